/* Checkpoints: find every tensor in the file, size the budget, decide which rows of the
 * weight matrices stay in RAM (all of them, a prefix in the order forward() uses them, or
 * a stripe of every matrix), read those in, and read the others from the memory stick
 * each time forward() needs them. */
#include <stdio.h>
#include <string.h>

#include "llama2.h"
#include "platform.h"

#define AK42_MAGIC 0x616b3432u
#define Q80_VERSION 2
#define Q40_VERSION 40
#define AK42_HEADER 256
#define READ_CHUNK (64 * 1024)
/* Rows read per forward pass go through a buffer of one request's size: a request costs
 * 0.4 ms, 5% of 64 KB's transfer, while every KB the buffer takes from the cache is one
 * more KB to read per pass (timing/memstick.py). q80 streams whole matrices at a time,
 * up to Q80_STREAM_MAX: its file keeps a matrix's values and scales apart, so a chunk
 * costs two seeks (43 ms, 16% of 2 MB's transfer). */
#define STREAM_CHUNK READ_CHUNK
#define Q80_STREAM_MAX (2u << 20)

size_t align16(size_t n) { return (n + 15) & ~(size_t)15; }

void *arena_alloc_in(Arena *a, int region, size_t bytes, int category) {
    Region *r = &a->region[region];
    size_t need = align16(bytes);
    a->asked += need;
    if (!r->base || r->used + need > r->size) return NULL;
    void *p = r->base + r->used;
    /* weights are read over in full: zeroing them would only cost load time */
    if (category != MEM_WEIGHTS && category != MEM_STREAM) memset(p, 0, need);
    r->used += need;
    a->by_category[category] += need;
    return p;
}

void *arena_alloc(Arena *a, size_t bytes, int category) { return arena_alloc_in(a, 0, bytes, category); }

int chunked_read(int fd, void *dst, size_t bytes) {
    uint8_t *p = dst;
    while (bytes > 0) {
        int want = bytes > READ_CHUNK ? READ_CHUNK : (int)bytes;
        int got = plat_read(fd, p, want);
        if (got <= 0) return -1;
        p += got;
        bytes -= (size_t)got;
    }
    return 0;
}

/* Reads at a file offset; seeks only when the file is not already there. */
static int read_at(Model *m, void *dst, int64_t off, size_t bytes) {
    if (off != m->file_pos) {
        if (plat_seek(m->fd, off)) return -1;
        m->stream_seeks++;
    }
    m->file_pos = -1;  /* unknown until the read succeeds */
    if (chunked_read(m->fd, dst, bytes)) return -1;
    m->file_pos = off + (int64_t)bytes;
    m->stream_reads++;
    return 0;
}

static int64_t rd_i32(const uint8_t *b) {
    return (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
}

/* ---- tensors, where they are in the file and what their rows take ---- */

/* Bytes of one row in the file: fp32; int8 and an fp32 scale per group; q40. */
static size_t row_bytes(const Model *m, int cols) {
    size_t gs = (size_t)m->group_size;
    if (m->fmt == FMT_Q80) return (size_t)cols + (size_t)cols / gs * 4;
    if (m->fmt == FMT_Q40) return (size_t)cols / 2 + (size_t)cols / gs * 2;
    return (size_t)cols * 4;
}

/* RAM for `rows` rows of t in one piece (q80: values, then scales, each aligned). */
static size_t piece_bytes(const Model *m, const Tensor *t, int rows) {
    if (m->fmt == FMT_Q80)
        return align16((size_t)rows * t->cols) + align16((size_t)rows * (size_t)(t->cols / m->group_size) * 4);
    return align16((size_t)rows * row_bytes(m, t->cols));
}

static void set_tensor(const Model *m, Tensor *t, int rows, int cols, int64_t *off) {
    memset(t, 0, sizeof *t);
    t->rows = rows;
    t->cols = cols;
    t->file_w = *off;
    t->file_s = m->fmt == FMT_Q80 ? *off + (int64_t)rows * cols : *off;
    *off += (int64_t)rows * (int64_t)row_bytes(m, cols);
}

const Tensor *model_classifier(const Model *m) { return m->shared_classifier ? &m->emb : &m->wcls; }

/* Every matrix in the order forward() uses them (the classifier first: with a shared one
 * the embedding row of each position comes from it), which is also the q40 file's order. */
static int cache_order(Model *m, Tensor **out) {
    int n = 0;
    out[n++] = &m->emb;
    if (!m->shared_classifier) out[n++] = &m->wcls;
    for (int l = 0; l < m->c.n_layers; l++)
        for (int t = 0; t < LAYER_TENSORS; t++) out[n++] = &m->layer[l][t];
    return n;
}

static int check_config(const Config *c, char *err) {
    if (c->dim <= 0 || c->hidden_dim <= 0 || c->n_layers <= 0 || c->n_heads <= 0 || c->n_kv_heads <= 0
        || c->vocab_size <= 0 || c->seq_len <= 0 || c->dim > 65536 || c->hidden_dim > 262144
        || c->n_layers > MAX_LAYERS || c->vocab_size > 1000000 || c->seq_len > 1000000
        || c->dim % c->n_heads || c->n_heads % c->n_kv_heads || (c->dim / c->n_heads) % 2) {
        snprintf(err, MAX_ERR, "not a llama2.c checkpoint: bad header (dim %d, hidden %d, layers %d, heads %d, "
                 "kv heads %d, vocab %d, seq %d)", c->dim, c->hidden_dim, c->n_layers, c->n_heads,
                 c->n_kv_heads, c->vocab_size, c->seq_len);
        return -1;
    }
    return 0;
}

/* llama2.c's order: the tensors of one kind for every layer, then the next kind. */
static void place_llama2c_layers(Model *m, int64_t *off, int64_t *norms_ffn) {
    const Config *c = &m->c;
    int d = c->dim, hd = c->hidden_dim, kv = c->dim * c->n_kv_heads / c->n_heads;
    static const int kinds[7] = {T_WQ, T_WK, T_WV, T_WO, T_W1, T_W2, T_W3};
    for (int k = 0; k < 7; k++) {
        int t = kinds[k];
        if (t == T_W1 && m->fmt == FMT_FP32) { *norms_ffn = *off; *off += (int64_t)c->n_layers * d * 4; }
        int rows = t == T_WK || t == T_WV ? kv : t == T_W1 || t == T_W3 ? hd : d;
        for (int l = 0; l < c->n_layers; l++) set_tensor(m, &m->layer[l][t], rows, t == T_W2 ? hd : d, off);
    }
}

/* q40's order: a layer's tensors as forward() uses them, layer after layer. */
static void place_forward_layers(Model *m, int64_t *off) {
    const Config *c = &m->c;
    int d = c->dim, hd = c->hidden_dim, kv = c->dim * c->n_kv_heads / c->n_heads;
    for (int l = 0; l < c->n_layers; l++)
        for (int t = 0; t < LAYER_TENSORS; t++) {
            int rows = t == T_WK || t == T_WV ? kv : t == T_W1 || t == T_W3 ? hd : d;
            set_tensor(m, &m->layer[l][t], rows, t == T_W2 ? hd : d, off);
        }
}

static int read_header(Model *m, const char *path, const uint8_t *h, char *err) {
    const uint8_t *ci = h;
    if ((uint32_t)rd_i32(h) == AK42_MAGIC) {
        int version = (int)rd_i32(h + 4);
        if (version != Q80_VERSION && version != Q40_VERSION) {
            snprintf(err, MAX_ERR, "model %s: ak42 version %d, only version 2 (q80) and 40 (q40) are supported",
                     path, version);
            return -1;
        }
        m->fmt = version == Q80_VERSION ? FMT_Q80 : FMT_Q40;
        ci = h + 8;
        m->shared_classifier = h[36];
        m->group_size = (int)rd_i32(h + 37);
    }
    Config *c = &m->c;
    int *fields = &c->dim;
    for (int i = 0; i < 7; i++) fields[i] = (int)rd_i32(ci + 4 * i);
    if (m->fmt == FMT_FP32) {
        m->shared_classifier = c->vocab_size > 0;
        if (c->vocab_size < 0) c->vocab_size = -c->vocab_size;
        m->group_size = 1;
    }
    if (check_config(c, err)) return -1;
    if (m->fmt != FMT_FP32 && (m->group_size <= 0 || c->dim % m->group_size || c->hidden_dim % m->group_size
                               || (m->fmt == FMT_Q40 && m->group_size % 2))) {
        snprintf(err, MAX_ERR, "model %s: group size %d must divide dim %d and hidden_dim %d%s", path,
                 m->group_size, c->dim, c->hidden_dim, m->fmt == FMT_Q40 ? " and be even" : "");
        return -1;
    }
    return 0;
}

/* Reads the header, finds every tensor and checks the file is exactly as long as it says. */
int model_open(Model *m, const char *path, char *err) {
    uint8_t h[AK42_HEADER];
    memset(m, 0, sizeof *m);
    m->fd = plat_open(path);
    if (m->fd < 0) { snprintf(err, MAX_ERR, "cannot open model %s", path); return -1; }
    m->file_size = plat_size(m->fd);
    if (m->file_size < 28 || chunked_read(m->fd, h, m->file_size < AK42_HEADER ? 28 : AK42_HEADER)) {
        snprintf(err, MAX_ERR, "model %s is truncated: %lld bytes is too short for a header", path, (long long)m->file_size);
        return -1;
    }
    m->file_pos = -1;
    if (read_header(m, path, h, err)) return -1;
    const Config *c = &m->c;
    int64_t L = c->n_layers, d = c->dim, off;
    int64_t norms_ffn = 0, norm_final = 0, norms_att;
    if (m->fmt == FMT_FP32) {
        off = 28;
        set_tensor(m, &m->emb, c->vocab_size, c->dim, &off);
        norms_att = off; off += L * d * 4;
        place_llama2c_layers(m, &off, &norms_ffn);
        norm_final = off; off += d * 4;
        off += (int64_t)c->seq_len * (d / c->n_heads) * 4;   /* the two unused RoPE tables */
        if (!m->shared_classifier) set_tensor(m, &m->wcls, c->vocab_size, c->dim, &off);
    } else {
        norms_att = AK42_HEADER; norms_ffn = norms_att + L * d * 4; norm_final = norms_ffn + L * d * 4;
        off = norm_final + d * 4;
        set_tensor(m, &m->emb, c->vocab_size, c->dim, &off);
        if (m->fmt == FMT_Q40) {
            if (!m->shared_classifier) set_tensor(m, &m->wcls, c->vocab_size, c->dim, &off);
            place_forward_layers(m, &off);
        } else {
            place_llama2c_layers(m, &off, &norms_ffn);
            if (!m->shared_classifier) set_tensor(m, &m->wcls, c->vocab_size, c->dim, &off);
        }
    }
    if (off != m->file_size) {
        snprintf(err, MAX_ERR, "model %s is %s: the header needs %lld bytes, the file has %lld",
                 path, off > m->file_size ? "truncated" : "too long", (long long)off, (long long)m->file_size);
        return -1;
    }
    m->file_rms_att = norms_att; m->file_rms_ffn = norms_ffn; m->file_rms_final = norm_final;
    return 0;
}

/* ---- the memory budget ---- */

static float *alloc_f(Arena *a, size_t n) { return arena_alloc(a, n * sizeof(float), MEM_STATE); }

static void alloc_act(const Model *m, Arena *a, Act *x, int n) {
    int gs = m->group_size;
    x->q = arena_alloc(a, (size_t)n, MEM_STATE);
    x->qf = alloc_f(a, (size_t)n);
    x->s = alloc_f(a, (size_t)(n / gs));
    if (m->fmt == FMT_Q40) { x->q4 = alloc_f(a, (size_t)n); x->c4 = alloc_f(a, (size_t)(n / gs) * 4); }
}

/* The run state (also the sampler's scratch); *ok: every allocation succeeded. */
static int alloc_state(Model *m, Arena *a, ProbIndex **probindex) {
    const Config *c = &m->c;
    size_t d = c->dim, hd = c->hidden_dim, kv = (size_t)c->dim * c->n_kv_heads / c->n_heads;
    size_t pairs = (size_t)(c->dim / c->n_heads) / 2;
    m->x = alloc_f(a, d); m->xb = alloc_f(a, d); m->xb2 = alloc_f(a, d); m->q = alloc_f(a, d);
    m->k = alloc_f(a, kv); m->v = alloc_f(a, kv);
    m->hb = alloc_f(a, hd); m->hb2 = alloc_f(a, hd);
    m->att = alloc_f(a, (size_t)c->n_heads * m->context);
    m->logits = alloc_f(a, (size_t)c->vocab_size);
    m->rope_cos = alloc_f(a, pairs); m->rope_sin = alloc_f(a, pairs); m->rope_freq = alloc_f(a, pairs);
    *probindex = arena_alloc(a, (size_t)c->vocab_size * sizeof(ProbIndex), MEM_STATE);
    int ok = m->x && m->xb && m->xb2 && m->q && m->k && m->v && m->hb && m->hb2 && m->att && m->logits
             && m->rope_cos && m->rope_sin && m->rope_freq && *probindex;
    if (m->fmt != FMT_FP32) {
        alloc_act(m, a, &m->ax, c->dim);
        alloc_act(m, a, &m->ah, c->hidden_dim);
        ok = ok && m->ax.s && m->ah.s && (m->fmt != FMT_Q40 || (m->ax.c4 && m->ah.c4));
    }
    return ok;
}

/* Keys and values of every layer and position: floats, or int8 with a scale per kv head. */
static size_t kv_bytes(const Model *m) {
    const Config *c = &m->c;
    size_t n = (size_t)c->n_layers * m->context * ((size_t)c->dim * c->n_kv_heads / c->n_heads);
    size_t scales = (size_t)c->n_layers * m->context * c->n_kv_heads * sizeof(float);
    return m->kv_type == KV_INT8 ? 2 * align16(n) + 2 * align16(scales) : 2 * align16(n * sizeof(float));
}

static int alloc_kv(Model *m, Arena *a) {
    const Config *c = &m->c;
    size_t n = (size_t)c->n_layers * m->context * ((size_t)c->dim * c->n_kv_heads / c->n_heads);
    size_t scales = (size_t)c->n_layers * m->context * c->n_kv_heads * sizeof(float);
    uint8_t *p = arena_alloc(a, kv_bytes(m), MEM_KV);  /* one block: also the staging while loading */
    if (!p) return -1;
    size_t values = m->kv_type == KV_INT8 ? align16(n) : align16(n * sizeof(float));
    m->key_cache = p;
    m->value_cache = p + values;
    if (m->kv_type == KV_INT8) {
        m->key_scale = (float *)(p + 2 * values);
        m->value_scale = (float *)(p + 2 * values + align16(scales));
    }
    m->staging = p;
    m->staging_bytes = kv_bytes(m);
    return 0;
}

static size_t norms_bytes(const Model *m) {
    return 2 * align16((size_t)m->c.n_layers * m->c.dim * 4) + align16((size_t)m->c.dim * 4);
}

/* What each part takes (the weights all in RAM); b->weights and b->streamed come from
 * model_place. The run state is measured by allocating it in an arena of no memory. */
void model_sizes(const Model *m, int context, size_t tokenizer_bytes, Budget *b) {
    static Model probe;                          /* a copy (large: the tensors), to allocate nothing in */
    probe = *m;
    probe.context = context;
    Arena none;
    memset(&none, 0, sizeof none);               /* every allocation fails; `asked` adds them up */
    ProbIndex *pi;
    alloc_state(&probe, &none, &pi);
    memset(b, 0, sizeof *b);
    b->norms = norms_bytes(m);
    b->run_state = none.asked;
    b->kv_cache = kv_bytes(&probe);
    b->tokenizer = tokenizer_bytes;
    Tensor *order[2 + MAX_LAYERS * LAYER_TENSORS];
    int n = cache_order(&probe, order);
    b->weights_all = b->norms;
    for (int i = 0; i < n; i++) b->weights_all += piece_bytes(m, order[i], order[i]->rows);
}

/* ---- which rows stay in RAM ---- */

/* The most rows of t, from `done` on and at most `want` in all, whose piece fits `bytes`:
 * whole blocks of rows (the blocked layouts and the chunks), or all that is left. */
static int rows_fitting(const Model *m, const Tensor *t, int done, int want, size_t bytes) {
    int left = want - done;
    if (left <= 0) return 0;
    if (piece_bytes(m, t, left) <= bytes && (want == t->rows || left % BLOCK_ROWS == 0)) return left;
    int r = (int)(bytes / row_bytes(m, t->cols));
    if (r > left) r = left;
    r -= r % BLOCK_ROWS;
    while (r > 0 && piece_bytes(m, t, r) > bytes) r -= BLOCK_ROWS;
    return r;
}

/* Decides the rows of every matrix kept in RAM: up to `cap` bytes in all, in the heap's
 * `heap_left` bytes first, then the volatile partition's. CACHE_PREFIX keeps whole matrices
 * in the order forward() uses them until the cap (one matrix may be cut); CACHE_STRIPED
 * the same share of rows of every matrix. Returns the bytes kept; *streamed: the bytes a
 * forward pass reads from the memory stick (the embedding row aside). */
size_t model_place(Model *m, size_t heap_left, size_t volatile_bytes, size_t cap, int strategy, size_t *streamed) {
    Tensor *order[2 + MAX_LAYERS * LAYER_TENSORS];
    int n = cache_order(m, order);
    size_t total = 0, placed = 0, left[2] = {heap_left, volatile_bytes};
    for (int i = 0; i < n; i++) total += piece_bytes(m, order[i], order[i]->rows);
    int cut = 0;
    *streamed = 0;
    for (int i = 0; i < n; i++) {
        Tensor *t = order[i];
        int want = cut ? 0 : t->rows;
        if (strategy == CACHE_STRIPED && cap < total) {
            want = (int)((double)t->rows * (double)cap / (double)total);
            want -= want % BLOCK_ROWS;
        }
        t->cached_rows = t->pieces = 0;
        for (int region = 0; region < 2 && t->cached_rows < want; region++) {
            size_t room = left[region] < cap - placed ? left[region] : cap - placed;
            int rows = rows_fitting(m, t, t->cached_rows, want, room);
            if (rows == 0) continue;
            size_t bytes = piece_bytes(m, t, rows);
            t->piece_rows[t->pieces] = rows;
            t->piece_region[t->pieces++] = region;
            t->cached_rows += rows;
            left[region] -= bytes;
            placed += bytes;
        }
        if (strategy == CACHE_PREFIX && t->cached_rows < t->rows) cut = 1;
        *streamed += (size_t)(t->rows - t->cached_rows) * row_bytes(m, t->cols);
    }
    return placed;
}

/* The stream buffer: a request's worth, at least a block of rows of the widest matrix; for
 * q80, the rows of every matrix not kept whole in RAM at once, up to Q80_STREAM_MAX. */
size_t model_stream_buffer_bytes(const Model *m) {
    Tensor *order[2 + MAX_LAYERS * LAYER_TENSORS];
    int n = cache_order((Model *)m, order);
    size_t need = STREAM_CHUNK, q80 = 0;
    for (int i = 0; i < n; i++) {
        const Tensor *t = order[i];
        size_t block = piece_bytes(m, t, t->rows < BLOCK_ROWS ? t->rows : BLOCK_ROWS);
        if (block > need) need = block;
        if (m->fmt == FMT_Q80 && t->cached_rows < t->rows && piece_bytes(m, t, t->rows - t->cached_rows) > q80)
            q80 = piece_bytes(m, t, t->rows - t->cached_rows);
    }
    if (q80 > Q80_STREAM_MAX) q80 = Q80_STREAM_MAX;
    return q80 > need ? q80 : need;
}

/* ---- loading ---- */

/* Whether q80 rows go into the blocked layout the kernels want: whole blocks of rows, and
 * staging room for the rows' scales and one block of values (see load_blocked). */
static int wants_blocked(const Model *m, int rows, int cols) {
    size_t gs = (size_t)m->group_size;
    return m->fmt == FMT_Q80 && m->kernels && m->kernels->q80_blocked_gs == (int)gs && rows % BLOCK_ROWS == 0
           && cols % gs == 0 && Q80_RECORD_BYTES(gs) % 16 == 0
           && m->staging_bytes >= (size_t)rows * (cols / gs) * sizeof(float) + BLOCK_ROWS * (size_t)cols;
}

/* Reads rows [row0, row0 + rows) of q80 matrix t into p re-laid in blocks: the values go to
 * the end of p, the scales to the staging memory (pick_staging), both in one pass through
 * the file; then
 * record by record from the front (a record never reaches values not yet moved: it is
 * as long as its values and scales, and the scales are elsewhere), each block's values
 * first copied to the staging memory. */
static int load_blocked(Model *m, const Tensor *t, int row0, int rows, uint8_t *p) {
    size_t gs = (size_t)m->group_size, cols = (size_t)t->cols, groups = cols / gs, rec = Q80_RECORD_BYTES(gs);
    size_t block_values = BLOCK_ROWS * cols, scales = (size_t)rows * groups * sizeof(float);
    uint8_t *values = p + scales, *scale_src = m->staging, *block = m->staging + scales;
    if (read_at(m, values, t->file_w + (int64_t)row0 * t->cols, (size_t)rows * cols)
        || read_at(m, scale_src, t->file_s + (int64_t)row0 * (int64_t)groups * 4, scales)) return -1;
    uint8_t *dst = p;
    for (size_t b = 0; b < (size_t)rows / BLOCK_ROWS; b++) {
        memcpy(block, values + b * block_values, block_values);
        for (size_t g = 0; g < groups; g++, dst += rec)
            for (size_t r = 0; r < BLOCK_ROWS; r++) {
                size_t row = b * BLOCK_ROWS + r;
                memcpy(dst + r * gs, block + r * cols + g * gs, gs);
                memcpy(dst + BLOCK_ROWS * gs + r * sizeof(float), scale_src + (row * groups + g) * sizeof(float), sizeof(float));
            }
    }
    m->blocked_matrices++;
    return 0;
}

/* Memory not in use while a matrix loads, for re-laying it: the largest of the KV cache
 * and stream buffer (not used before generation) and what the weights not read yet will
 * take at the end of either region. */
static void pick_staging(Model *m, const Arena *a, uint8_t *kv, size_t kv_size) {
    m->staging = kv;
    m->staging_bytes = kv_size;
    for (int r = 0; r < 2; r++) {
        const Region *g = &a->region[r];
        if (g->base && g->size - g->used > m->staging_bytes) {
            m->staging = g->base + g->used;
            m->staging_bytes = g->size - g->used;
        }
    }
}

/* Allocates piece `i` of t (rows from row0) in its region and reads it in (`kv`: the
 * staging memory the run state offers, see pick_staging). */
static int load_piece(Model *m, Arena *a, Tensor *t, int i, int row0, uint8_t *kv, size_t kv_size) {
    int rows = t->piece_rows[i];
    uint8_t *p = arena_alloc_in(a, t->piece_region[i], piece_bytes(m, t, rows), MEM_WEIGHTS);
    if (!p) return -1;
    pick_staging(m, a, kv, kv_size);
    Mat *w = &t->piece[i];
    w->w = p;
    w->s = NULL;
    w->blocked = m->fmt == FMT_Q40;
    if (m->fmt != FMT_Q80)
        return read_at(m, p, t->file_w + (int64_t)row0 * (int64_t)row_bytes(m, t->cols),
                       (size_t)rows * row_bytes(m, t->cols));
    if (wants_blocked(m, rows, t->cols)) {
        w->blocked = 1;
        return load_blocked(m, t, row0, rows, p);
    }
    size_t groups = (size_t)(t->cols / m->group_size);
    w->s = (float *)(p + align16((size_t)rows * t->cols));
    return read_at(m, p, t->file_w + (int64_t)row0 * t->cols, (size_t)rows * t->cols)
           || read_at(m, w->s, t->file_s + (int64_t)row0 * (int64_t)groups * 4, (size_t)rows * groups * 4);
}

/* Allocates and reads everything model_place decided, after the run state, the KV cache
 * and the stream buffer (the heap's front; the weights fill the rest). The matrices are
 * read in the file's order, so the memory stick reads them sequentially. */
int model_load(Model *m, Arena *a, const Budget *b, ProbIndex **probindex, char *err) {
    const Config *c = &m->c;
    size_t L = (size_t)c->n_layers, d = (size_t)c->dim;
    g_group_size = m->group_size;
    m->rms_att = arena_alloc(a, L * d * 4, MEM_WEIGHTS);
    m->rms_ffn = arena_alloc(a, L * d * 4, MEM_WEIGHTS);
    m->rms_final = arena_alloc(a, d * 4, MEM_WEIGHTS);
    if (!m->rms_att || !m->rms_ffn || !m->rms_final
        || read_at(m, m->rms_att, m->file_rms_att, L * d * 4) || read_at(m, m->rms_ffn, m->file_rms_ffn, L * d * 4)
        || read_at(m, m->rms_final, m->file_rms_final, d * 4)) {
        snprintf(err, MAX_ERR, "cannot read the norm weights");
        return -1;
    }
    if (!alloc_state(m, a, probindex) || alloc_kv(m, a)) {
        snprintf(err, MAX_ERR, "out of arena for the run state and KV cache");
        return -1;
    }
    if (b->streaming) {
        m->stream_buf_bytes = b->stream_buffer;
        m->stream_buf = arena_alloc(a, m->stream_buf_bytes, MEM_STREAM);
        if (!m->stream_buf) { snprintf(err, MAX_ERR, "out of arena for the stream buffer"); return -1; }
        if (m->stream_buf_bytes > m->staging_bytes) { m->staging = m->stream_buf; m->staging_bytes = m->stream_buf_bytes; }
    }
    Tensor *order[2 + MAX_LAYERS * LAYER_TENSORS];
    int n = cache_order(m, order);
    for (int i = 1; i < n; i++)  /* into file order (an insertion sort: a few hundred matrices) */
        for (int j = i; j > 0 && order[j]->file_w < order[j - 1]->file_w; j--) {
            Tensor *tmp = order[j]; order[j] = order[j - 1]; order[j - 1] = tmp;
        }
    uint8_t *kv = m->staging;
    size_t kv_size = m->staging_bytes;
    for (int i = 0; i < n; i++)
        for (int p = 0, row = 0; p < order[i]->pieces; row += order[i]->piece_rows[p++])
            if (load_piece(m, a, order[i], p, row, kv, kv_size)) {
                snprintf(err, MAX_ERR, "read error in the model file (or out of arena for the weights)");
                return -1;
            }
    m->staging = NULL;
    m->staging_bytes = 0;
    m->stream_reads = m->stream_seeks = 0;  /* from here on they count the forward passes' */
    return 0;
}

/* ---- rows read per forward pass ---- */

MatmulFn model_kernel(const Model *m) {
    return m->fmt == FMT_Q80 ? m->kernels->q80 : m->fmt == FMT_Q40 ? m->kernels->q40 : m->kernels->fp32;
}

/* Reads rows [r, r + rows) of t into the stream buffer; *w: them as a matrix. */
static int read_rows(Model *m, const Tensor *t, int r, int rows, Mat *w) {
    size_t rb = row_bytes(m, t->cols);
    memset(w, 0, sizeof *w);
    w->w = m->stream_buf;
    w->blocked = m->fmt == FMT_Q40;
    uint64_t t0 = plat_ticks_us();
    int failed;
    if (m->fmt == FMT_Q80) {
        size_t groups = (size_t)(t->cols / m->group_size);
        w->s = (float *)(m->stream_buf + align16((size_t)rows * t->cols));
        failed = read_at(m, m->stream_buf, t->file_w + (int64_t)r * t->cols, (size_t)rows * t->cols)
                 || read_at(m, w->s, t->file_s + (int64_t)r * (int64_t)groups * 4, (size_t)rows * groups * 4);
    } else {
        failed = read_at(m, m->stream_buf, t->file_w + (int64_t)r * (int64_t)rb, (size_t)rows * rb);
    }
    m->stream_us += plat_ticks_us() - t0;
    m->stream_bytes += (int64_t)((size_t)rows * rb);
    return failed;
}

/* out[r] for the rows of t from row0 on, read from the memory stick in chunks. */
int model_stream_rows(Model *m, const Tensor *t, int row0, float *out, const Act *x) {
    int chunk = rows_fitting(m, t, row0, t->rows, m->stream_buf_bytes);
    if (chunk <= 0) return -1;
    MatmulFn fn = model_kernel(m);
    for (int r = row0; r < t->rows; r += chunk) {
        int rows = t->rows - r < chunk ? t->rows - r : chunk;
        Mat w;
        if (read_rows(m, t, r, rows, &w)) return -1;
        fn(out + r, x, &w, t->cols, rows);
    }
    return 0;
}

/* Row `row` (n values) of q80 rows in RAM as floats, q * scale, in either layout. */
static void q80_row_values(const Mat *w, int row, int n, int gs, float *x) {
    if (!w->blocked) {
        const int8_t *q = (const int8_t *)w->w + (size_t)row * n;
        const float *s = w->s + (size_t)row * (n / gs);
        for (int i = 0; i < n; i++) x[i] = q[i] * s[i / gs];
        return;
    }
    int r = row % BLOCK_ROWS;
    const uint8_t *rec = (const uint8_t *)w->w + (size_t)(row / BLOCK_ROWS) * (n / gs) * Q80_RECORD_BYTES(gs);
    for (int g = 0; g < n / gs; g++, rec += Q80_RECORD_BYTES(gs)) {
        const int8_t *q = (const int8_t *)rec + r * gs;
        float s;
        memcpy(&s, rec + BLOCK_ROWS * gs + r * sizeof(float), sizeof s);
        for (int i = 0; i < gs; i++) x[g * gs + i] = q[i] * s;
    }
}

/* Row `row` of q40 rows in RAM (`rows` of them) as floats, q * scale. */
static void q40_row_values(const Mat *w, int row, int rows, int n, int gs, float *x) {
    int block = row / BLOCK_ROWS, r = row % BLOCK_ROWS;
    int in_block = rows - block * BLOCK_ROWS < BLOCK_ROWS ? rows - block * BLOCK_ROWS : BLOCK_ROWS;
    const uint8_t *rec = (const uint8_t *)w->w + (size_t)block * BLOCK_ROWS * ((size_t)n / 2 + (size_t)n / gs * 2);
    for (int g = 0; g < n / gs; g++, rec += Q40_RECORD_BYTES(in_block, gs)) {
        const uint8_t *b = rec + (size_t)r * gs / 2, *h = rec + (size_t)in_block * gs / 2 + 2 * r;
        float s = half_to_float((uint16_t)(h[0] | h[1] << 8));
        for (int k = 0; k < gs / 2; k++) {
            x[g * gs + k] = (float)((b[k] & 15) - 8) * s;
            x[g * gs + gs / 2 + k] = (float)((int8_t)b[k] >> 4) * s;
        }
    }
}

static void row_values(const Model *m, const Mat *w, int row, int rows, float *x) {
    int d = m->c.dim;
    if (m->fmt == FMT_Q80) q80_row_values(w, row, d, m->group_size, x);
    else if (m->fmt == FMT_Q40) q40_row_values(w, row, rows, d, m->group_size, x);
    else memcpy(x, (const float *)w->w + (size_t)row * d, (size_t)d * sizeof(float));
}

/* Row `token` of the embedding into x (dequantized): from RAM, or read (its block of rows). */
int model_embedding_row(Model *m, int token, float *x) {
    const Tensor *t = &m->emb;
    int row0 = 0;
    for (int p = 0; p < t->pieces; row0 += t->piece_rows[p++])
        if (token < row0 + t->piece_rows[p]) {
            row_values(m, &t->piece[p], token - row0, t->piece_rows[p], x);
            return 0;
        }
    int first = token - token % BLOCK_ROWS, rows = t->rows - first < BLOCK_ROWS ? t->rows - first : BLOCK_ROWS;
    Mat w;
    if (read_rows(m, t, first, rows, &w)) return -1;
    row_values(m, &w, token - first, rows, x);
    return 0;
}
