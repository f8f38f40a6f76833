/* llama2 on the PSP: a portable C99 inference engine for llama2.c checkpoints (legacy
 * fp32, q80 version 2) and this project's 4-bit q40, with swappable matmul kernels,
 * an fp32 or int8 KV cache, and weights cached in RAM up to a budget, the rest read
 * from the memory stick for each forward pass. */
#ifndef LLAMA2_H
#define LLAMA2_H

#include <stddef.h>
#include <stdint.h>

#define MAX_ERR 256
#define MAX_LAYERS 64

typedef struct {
    int dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len;
} Config;

enum { FMT_FP32, FMT_Q80, FMT_Q40 };     /* weight formats */
enum { KV_FP32, KV_INT8 };               /* KV cache: floats, or int8 with a scale per head and position */
enum { CACHE_PREFIX, CACHE_STRIPED };    /* which weights stay in RAM when not all fit */

/* Rows of a weight matrix in RAM (rows x cols): fp32 values; q80 int8 values with one
 * fp32 scale per group, as the file has them or re-laid in blocks of rows (blocked);
 * q40 records (always blocked, as the file has them). */
typedef struct {
    void *w;        /* fp32 / int8 values, or the records; 16-byte aligned */
    float *s;       /* q80 in the file's layout: the scales; NULL otherwise */
    int blocked;    /* q80 re-laid in records (see below) */
} Mat;

/* The blocked layouts (VFPU kernels): per block of BLOCK_ROWS rows, per group, one record
 * holding the rows' weights, row after row, then their scales; a kernel reads a matrix as
 * one stream. q80 (Kernels.q80_blocked_gs): gs int8 values a row, fp32 scales. q40: gs/2
 * bytes a row (two 4-bit weights a byte, allegrex/llama/q40.py), fp16 scales; a last
 * block of fewer rows holds records of that many rows. */
#define BLOCK_ROWS 8
#define Q80_RECORD_BYTES(gs) (BLOCK_ROWS * (size_t)(gs) + BLOCK_ROWS * sizeof(float))
#define Q40_RECORD_BYTES(rows, gs) ((size_t)(rows) * ((size_t)(gs) / 2 + 2))

/* A weight matrix: where it is in the file, and which of its rows are in RAM (rows
 * [0, cached_rows), in one or two pieces: the cache may span the heap and the volatile
 * partition); the other rows are read from the memory stick each time they are used. */
typedef struct {
    int rows, cols;
    int64_t file_w;             /* the values (q40: the records) */
    int64_t file_s;             /* q80: the scales */
    int cached_rows, pieces;
    int piece_rows[2], piece_region[2];
    Mat piece[2];
} Tensor;

/* The input vector of a matmul, prepared once for all rows. */
typedef struct {
    float *f;       /* fp32 values */
    int8_t *q;      /* q80/q40: quantized values */
    float *qf;      /* the same int8 values as floats (VFPU kernels) */
    float *s;       /* one scale per group */
    float *q4;      /* q40 VFPU: per group x[k+gs/2] - 16 x[k] then 16 x[k], k < gs/2 */
    float *c4;      /* q40 VFPU: per group 8 * (x[0] + ... + x[gs/2 - 1]), four times */
} Act;

typedef void (*MatmulFn)(float *out, const Act *x, const Mat *w, int n, int d);
typedef void (*QuantizeFn)(Act *a, const float *x, int n);

typedef struct {
    const char *name;
    MatmulFn fp32;
    MatmulFn q80;
    MatmulFn q40;
    QuantizeFn quantize;    /* q80/q40: prepares x->q, x->s and what the kernels read */
    int (*argmax)(const float *p, int n);   /* the sampler at temperature 0 */
    void (*swiglu)(float *hb, const float *hb2, int n);   /* hb = silu(hb) * hb2, runq.c's values */
    int q80_blocked_gs;     /* group size at which q80 wants the blocked layout (0: never) */
} Kernels;

extern int g_group_size;                     /* q80/q40 group size (runq.c's GS) */
extern const Kernels kernels_scalar;
const Kernels *kernels_vfpu(void);           /* NULL where there is no VFPU */
const Kernels *kernels_scalar_madd(void);    /* the q80 loop as psp-gcc compiles it (madd); NULL off the PSP */
void quantize_act(Act *a, const float *x, int n, int want_floats);
void swiglu_scalar(float *hb, const float *hb2, int n);
float half_to_float(uint16_t h);             /* IEEE half; subnormals read as zero, as the VFPU's vh2f */

/* Memory: the heap block (region 0) and the volatile partition (region 1, weights only);
 * every allocation is 16-byte aligned and counted by category. */
enum { MEM_WEIGHTS, MEM_KV, MEM_STATE, MEM_TOKENIZER, MEM_STREAM, MEM_CATEGORIES };
typedef struct {
    uint8_t *base;
    size_t size, used;
} Region;
typedef struct {
    Region region[2];
    size_t by_category[MEM_CATEGORIES];
    size_t asked;           /* every allocation's bytes, granted or not */
} Arena;
void *arena_alloc(Arena *a, size_t bytes, int category);          /* in the heap */
void *arena_alloc_in(Arena *a, int region, size_t bytes, int category);
size_t align16(size_t n);

enum { T_WQ, T_WK, T_WV, T_WO, T_W1, T_W3, T_W2, LAYER_TENSORS };   /* in the order forward() uses them */

typedef struct {
    Config c;
    int fmt, shared_classifier, group_size, kv_type;
    int context;                  /* KV cache length (<= seq_len) */
    int fd;                       /* the checkpoint, open for the whole run */
    int64_t file_size, file_pos;
    int64_t file_rms_att, file_rms_ffn, file_rms_final;  /* where the norm weights are in the file */
    /* weights */
    float *rms_att, *rms_ffn, *rms_final;   /* (layer, dim), (layer, dim), (dim) */
    Tensor emb;                             /* (vocab, dim) */
    Tensor wcls;                            /* the classifier when not shared */
    Tensor layer[MAX_LAYERS][LAYER_TENSORS];
    uint8_t *stream_buf;                    /* rows read from the memory stick pass through here */
    size_t stream_buf_bytes;
    uint8_t *staging;                       /* while loading: memory not in use yet (re-laying) */
    size_t staging_bytes;
    uint64_t stream_us;                     /* time spent reading weights in forward passes */
    int64_t stream_bytes;
    int stream_reads, stream_seeks;
    int blocked_matrices;                   /* matrices loaded in the blocked q80 layout */
    /* run state */
    float *x, *xb, *xb2, *hb, *hb2, *q, *k, *v, *att, *logits;
    void *key_cache, *value_cache;          /* float, or int8 (KV_INT8) */
    float *key_scale, *value_scale;         /* KV_INT8: per layer, position and kv head */
    float *rope_freq, *rope_cos, *rope_sin; /* per pair of a head: frequency (once), cos/sin at pos */
    Act ax, ah;                             /* prepared inputs of length dim / hidden_dim */
    const Kernels *kernels;
} Model;

typedef struct { float prob; int index; } ProbIndex;

/* Budget: what each part needs, for the report and the "does not fit" message. */
typedef struct {
    size_t weights_all;         /* every matrix and the norms, as RAM would hold them */
    size_t norms, weights, kv_cache, run_state, tokenizer, stream_buffer;  /* weights: cached matrices */
    size_t streamed;            /* bytes of weights read from the memory stick per forward pass */
    size_t heap, volatile_bytes, free_after;
    int streaming, cache;
} Budget;

int model_open(Model *m, const char *path, char *err);
void model_sizes(const Model *m, int context, size_t tokenizer_bytes, Budget *b);
size_t model_stream_buffer_bytes(const Model *m);
size_t model_place(Model *m, size_t heap_left, size_t volatile_bytes, size_t cap, int strategy, size_t *streamed);
int model_load(Model *m, Arena *a, const Budget *b, ProbIndex **probindex, char *err);
void forward_init(Model *m);                 /* after model_load: RoPE's frequencies */
float *forward(Model *m, int token, int pos, char *err);
int chunked_read(int fd, void *dst, size_t bytes);
MatmulFn model_kernel(const Model *m);
int model_stream_rows(Model *m, const Tensor *t, int row0, float *out, const Act *x);
int model_embedding_row(Model *m, int token, float *x);
const Tensor *model_classifier(const Model *m);

typedef struct {
    char **vocab;
    float *scores;
    int *sorted;            /* ids sorted by piece */
    int vocab_size, max_token_length;
    unsigned char byte_pieces[512];
    char *buf;              /* merge scratch */
} Tokenizer;

size_t tokenizer_bytes(const char *path, int vocab_size, char *err);
int tokenizer_load(Tokenizer *t, Arena *a, const char *path, int vocab_size, char *err);
int tokenizer_encode(Tokenizer *t, const char *text, int bos, int *tokens, int max_tokens, char *err);
const char *tokenizer_decode(Tokenizer *t, int prev_token, int token);
int piece_is_printable(const char *piece);

typedef struct {
    int vocab_size;
    ProbIndex *probindex;
    float temperature, topp;
    uint64_t rng_state;
    int (*argmax)(const float *p, int n);   /* the kernels' (same index as argmax_scalar) */
} Sampler;
int sample(Sampler *s, float *logits);
int argmax_scalar(const float *p, int n);   /* first index of the largest value */

#endif
