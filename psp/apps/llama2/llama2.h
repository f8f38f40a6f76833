/* llama2 on the PSP: a portable C99 inference engine for llama2.c checkpoints
 * (legacy fp32 and q80 version 2) with swappable matmul kernels. */
#ifndef LLAMA2_H
#define LLAMA2_H

#include <stddef.h>
#include <stdint.h>

#define MAX_ERR 256
#define MAX_LAYERS 64

typedef struct {
    int dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len;
} Config;

/* A weight matrix (rows x cols): fp32 values, or int8 values with one scale per group. */
typedef struct {
    void *w;        /* float* (fp32) or int8_t* (q80); 16-byte aligned */
    float *s;       /* q80 scales, one per group; NULL for fp32 */
    int64_t file_w; /* where the values start in the checkpoint */
    int64_t file_s; /* where the scales start (q80) */
    int blocked;    /* q80 re-laid in blocks of rows (w: the records, s NULL), see below */
} Mat;

/* The blocked q80 layout (VFPU kernels, Kernels.q80_blocked_gs): per block of
 * Q80_BLOCK_ROWS rows, per group, one record holding the rows' gs int8 values, row
 * after row, then their fp32 scales; the kernel reads a matrix as one stream. */
#define Q80_BLOCK_ROWS 8
#define Q80_RECORD_BYTES(gs) (Q80_BLOCK_ROWS * (size_t)(gs) + Q80_BLOCK_ROWS * sizeof(float))

/* The input vector of a matmul, prepared once for all rows. */
typedef struct {
    float *f;       /* fp32 values */
    int8_t *q;      /* q80: quantized values */
    float *qf;      /* q80: the same int8 values as floats (for the VFPU kernel) */
    float *s;       /* q80: one scale per group */
} Act;

typedef void (*MatmulFn)(float *out, const Act *x, const Mat *w, int n, int d);

typedef void (*QuantizeFn)(Act *a, const float *x, int n);

typedef struct {
    const char *name;
    MatmulFn fp32;
    MatmulFn q80;
    QuantizeFn quantize;    /* q80: prepares x->q, x->s and (for the VFPU kernels) x->qf */
    int (*argmax)(const float *p, int n);   /* the sampler at temperature 0 */
    void (*swiglu)(float *hb, const float *hb2, int n);   /* hb = silu(hb) * hb2, runq.c's values */
    int q80_blocked_gs;     /* group size at which q80 wants the blocked layout (0: never) */
} Kernels;

extern int g_group_size;                     /* q80 group size (runq.c's GS) */
extern const Kernels kernels_scalar;
const Kernels *kernels_vfpu(void);           /* NULL where there is no VFPU */
void quantize_act(Act *a, const float *x, int n, int want_floats);
void swiglu_scalar(float *hb, const float *hb2, int n);

/* Memory arena: one block; every allocation is 16-byte aligned and counted by category. */
enum { MEM_WEIGHTS, MEM_KV, MEM_STATE, MEM_TOKENIZER, MEM_STREAM, MEM_CATEGORIES };
typedef struct {
    uint8_t *base;
    size_t size, used;
    size_t by_category[MEM_CATEGORIES];
} Arena;
void *arena_alloc(Arena *a, size_t bytes, int category);
size_t align16(size_t n);

typedef struct {
    Config c;
    int q80, shared_classifier, group_size;
    int streaming;                /* 1: layer weights are read per forward into a rolling buffer */
    int context;                  /* KV cache length (<= seq_len) */
    int fd;                       /* checkpoint kept open when streaming */
    int64_t file_size;
    /* weights */
    float *rms_att, *rms_ffn, *rms_final;   /* (layer, dim), (layer, dim), (dim) */
    Mat emb;                                /* (vocab, dim) */
    Mat wcls;                               /* classifier; == emb when shared */
    Mat layer_mats[7][MAX_LAYERS];          /* each layer's matrices (file and RAM), by tensor */
    Mat *wq, *wk, *wv, *wo, *w1, *w2, *w3;  /* per layer: rows of layer_mats */
    int64_t file_rms_att, file_rms_ffn, file_rms_final;  /* where the norm weights are in the file */
    Mat stream[7];                          /* streaming: the current layer's tensors */
    int stream_layer;
    uint64_t stream_us;                     /* time spent reading weights per forward */
    int64_t stream_bytes;
    int blocked_matrices;                   /* matrices loaded in the blocked q80 layout */
    /* run state */
    float *x, *xb, *xb2, *hb, *hb2, *q, *att, *logits, *key_cache, *value_cache;
    float *rope_freq, *rope_cos, *rope_sin; /* per pair of a head: frequency (once), cos/sin at pos */
    Act ax, ah;                             /* prepared inputs of length dim / hidden_dim */
    const Kernels *kernels;
} Model;

/* Budget: what each part needs, for the report and the "does not fit" message. */
typedef struct {
    size_t weights, kv_cache, run_state, tokenizer, stream_buffer, heap, free_after;
    int streaming;
} Budget;

int model_open(Model *m, const char *path, char *err);
void model_budget(const Model *m, int context, size_t tokenizer_bytes, Budget *b);
int model_load(Model *m, Arena *a, int context, int streaming, char *err);
void forward_init(Model *m);                 /* after model_load: RoPE's frequencies */
float *forward(Model *m, int token, int pos, char *err);
int chunked_read(int fd, void *dst, size_t bytes);
const Mat *layer_mat(Model *m, int t, int l);
int model_stream_layer(Model *m, int l);
int model_embedding_row(Model *m, int token, float *x);
int model_classifier_streamed(Model *m, const Act *x, float *logits);

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

typedef struct { float prob; int index; } ProbIndex;
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
