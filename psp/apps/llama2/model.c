/* Checkpoints: find every tensor in the file, size the budget, read weights in chunks
 * into the arena (or leave them on the memory stick and stream them per layer). */
#include <stdio.h>
#include <string.h>

#include "llama2.h"
#include "platform.h"

#define Q80_MAGIC 0x616b3432u
#define Q80_HEADER 256
#define READ_CHUNK (64 * 1024)

size_t align16(size_t n) { return (n + 15) & ~(size_t)15; }

void *arena_alloc(Arena *a, size_t bytes, int category) {
    size_t need = align16(bytes);
    if (a->used + need > a->size) return NULL;
    void *p = a->base + a->used;
    /* weights are read over in full: zeroing them would only cost load time */
    if (category != MEM_WEIGHTS && category != MEM_STREAM) memset(p, 0, need);
    a->used += need;
    a->by_category[category] += need;
    return p;
}

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

static int64_t rd_i32(const uint8_t *b) {
    return (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
}

/* Bytes of a matrix of n values: fp32, or int8 plus one float per group. */
static int64_t mat_bytes(const Model *m, int64_t n) {
    return m->q80 ? n + n / m->group_size * 4 : n * 4;
}

/* Lays out one matrix per layer (or one matrix) starting at *off. */
static void place(Model *m, Mat *mats, int count, int64_t n, int64_t *off) {
    for (int i = 0; i < count; i++) {
        mats[i].file_w = *off;
        mats[i].file_s = m->q80 ? *off + n : 0;
        if (!m->q80) *off += n * 4;
        else *off += mat_bytes(m, n);
    }
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

/* Reads the header, finds every tensor and checks the file is exactly as long as it says. */
int model_open(Model *m, const char *path, char *err) {
    uint8_t h[Q80_HEADER];
    memset(m, 0, sizeof *m);
    m->fd = plat_open(path);
    if (m->fd < 0) { snprintf(err, MAX_ERR, "cannot open model %s", path); return -1; }
    m->file_size = plat_size(m->fd);
    if (m->file_size < 28 || chunked_read(m->fd, h, m->file_size < Q80_HEADER ? 28 : Q80_HEADER)) {
        snprintf(err, MAX_ERR, "model %s is truncated: %lld bytes is too short for a header", path, (long long)m->file_size);
        return -1;
    }
    const uint8_t *ci = h;
    int64_t off = 28;
    if ((uint32_t)rd_i32(h) == Q80_MAGIC) {
        if (rd_i32(h + 4) != 2) {
            snprintf(err, MAX_ERR, "model %s: ak42 version %d, only version 2 (q80) is supported", path, (int)rd_i32(h + 4));
            return -1;
        }
        m->q80 = 1;
        ci = h + 8;
        m->shared_classifier = h[36];
        m->group_size = (int)rd_i32(h + 37);
        off = Q80_HEADER;
    }
    Config *c = &m->c;
    int *fields = &c->dim;
    for (int i = 0; i < 7; i++) fields[i] = (int)rd_i32(ci + 4 * i);
    if (!m->q80) {
        m->shared_classifier = c->vocab_size > 0;
        if (c->vocab_size < 0) c->vocab_size = -c->vocab_size;
    }
    if (check_config(c, err)) return -1;
    if (m->q80 && (m->group_size <= 0 || c->dim % m->group_size || c->hidden_dim % m->group_size)) {
        snprintf(err, MAX_ERR, "model %s: group size %d must divide dim %d and hidden_dim %d",
                 path, m->group_size, c->dim, c->hidden_dim);
        return -1;
    }
    int64_t L = c->n_layers, d = c->dim, hd = c->hidden_dim, kv = (int64_t)c->dim * c->n_kv_heads / c->n_heads;
    int64_t norms_att = off, norms_ffn, norm_final;
    if (m->q80) {
        norms_ffn = off + L * d * 4; norm_final = norms_ffn + L * d * 4; off = norm_final + d * 4;
        place(m, &m->emb, 1, (int64_t)c->vocab_size * d, &off);
    } else {
        place(m, &m->emb, 1, (int64_t)c->vocab_size * d, &off);
        norms_att = off; off += L * d * 4;
    }
    m->wq = m->layer_mats[0]; m->wk = m->layer_mats[1]; m->wv = m->layer_mats[2]; m->wo = m->layer_mats[3];
    m->w1 = m->layer_mats[4]; m->w2 = m->layer_mats[5]; m->w3 = m->layer_mats[6];
    place(m, m->wq, (int)L, d * d, &off);
    place(m, m->wk, (int)L, kv * d, &off);
    place(m, m->wv, (int)L, kv * d, &off);
    place(m, m->wo, (int)L, d * d, &off);
    if (!m->q80) { norms_ffn = off; off += L * d * 4; }
    place(m, m->w1, (int)L, hd * d, &off);
    place(m, m->w2, (int)L, d * hd, &off);
    place(m, m->w3, (int)L, hd * d, &off);
    if (!m->q80) {
        norm_final = off; off += d * 4;
        off += (int64_t)c->seq_len * (d / c->n_heads) * 4;   /* the two unused RoPE tables */
    }
    if (m->shared_classifier) m->wcls = m->emb;
    else place(m, &m->wcls, 1, (int64_t)c->vocab_size * d, &off);
    if (off != m->file_size) {
        snprintf(err, MAX_ERR, "model %s is %s: the header needs %lld bytes, the file has %lld",
                 path, off > m->file_size ? "truncated" : "too long", (long long)off, (long long)m->file_size);
        return -1;
    }
    m->file_rms_att = norms_att; m->file_rms_ffn = norms_ffn; m->file_rms_final = norm_final;
    return 0;
}

static size_t layer_bytes(const Model *m) {
    const Config *c = &m->c;
    int64_t d = c->dim, hd = c->hidden_dim, kv = (int64_t)c->dim * c->n_kv_heads / c->n_heads;
    int64_t sizes[7] = {d * d, kv * d, kv * d, d * d, hd * d, d * hd, hd * d};
    size_t total = 0;
    for (int t = 0; t < 7; t++)  /* values and scales are separate 16-byte aligned blocks */
        total += m->q80 ? align16((size_t)sizes[t]) + align16((size_t)(sizes[t] / m->group_size * 4))
                        : align16((size_t)sizes[t] * 4);
    return total;
}

static size_t run_state_bytes(const Model *m, int context) {
    const Config *c = &m->c;
    size_t d = c->dim, hd = c->hidden_dim, f = sizeof(float);
    size_t n = 0;
    n += 3 * align16(d * f) + 2 * align16(hd * f) + align16(d * f);         /* x xb xb2 hb hb2 q */
    n += align16((size_t)c->n_heads * context * f) + align16(c->vocab_size * f);  /* att logits */
    n += 3 * align16((d / c->n_heads) / 2 * f);                               /* rope */
    n += align16(c->vocab_size * sizeof(ProbIndex));                          /* sampler */
    if (m->q80) n += 2 * (align16(d) + align16(d * f) + align16(d / m->group_size * f))
                   + 2 * (align16(hd) + align16(hd * f) + align16(hd / m->group_size * f));
    return n + 64 * 16;
}

void model_budget(const Model *m, int context, size_t tokenizer_bytes, Budget *b) {
    const Config *c = &m->c;
    size_t norms = align16((size_t)c->n_layers * c->dim * 4) * 2 + align16(c->dim * 4);
    size_t emb = align16(c->vocab_size * (size_t)c->dim * (m->q80 ? 1 : 4))
               + (m->q80 ? align16((size_t)c->vocab_size * c->dim / m->group_size * 4) : 0);
    size_t kv = (size_t)c->dim * c->n_kv_heads / c->n_heads;
    b->weights = norms + (size_t)c->n_layers * layer_bytes(m) + emb * (m->shared_classifier ? 1 : 2);
    b->kv_cache = 2 * align16((size_t)c->n_layers * context * kv * 4);
    b->run_state = run_state_bytes(m, context);
    b->tokenizer = tokenizer_bytes;
    b->stream_buffer = layer_bytes(m);
    size_t row = align16(c->dim * (size_t)(m->q80 ? 1 : 4)) + align16(c->dim * 4);
    if (b->stream_buffer < row) b->stream_buffer = row;
    b->streaming = 0;
}

static int read_at(Model *m, void *dst, int64_t off, size_t bytes) {
    if (plat_seek(m->fd, off)) return -1;
    return chunked_read(m->fd, dst, bytes);
}

/* Bytes of one block of rows as the file has them: values, then scales. */
static size_t block_file_bytes(const Model *m, int64_t cols) {
    return Q80_BLOCK_ROWS * ((size_t)cols + (size_t)cols / (size_t)m->group_size * sizeof(float));
}

/* Whether a rows x cols matrix is loaded in the blocked layout the q80 kernel wants (and
 * the arena's free tail can hold one block on its way). */
static int wants_blocked(const Model *m, const Arena *a, int64_t rows, int64_t cols) {
    int gs = m->group_size;
    return m->q80 && m->kernels && m->kernels->q80_blocked_gs == gs && rows % Q80_BLOCK_ROWS == 0
           && cols % gs == 0 && Q80_RECORD_BYTES(gs) % 16 == 0 && a->size - a->used >= block_file_bytes(m, cols);
}

/* Reads a matrix into w->w (rows * cols int8 values then their scales: the same bytes as
 * the plain layout) re-laid in blocks of rows. The file's bytes of a chunk of blocks go
 * first to the arena's free tail (at least the run state's size while weights load, by
 * the plan), then record by record to their place: no memory beyond the budget. */
static int load_blocked(Model *m, Arena *a, Mat *w, int64_t rows, int64_t cols) {
    size_t gs = (size_t)m->group_size, groups = (size_t)cols / gs, rec = Q80_RECORD_BYTES(gs);
    size_t block_values = Q80_BLOCK_ROWS * (size_t)cols, block_scales = Q80_BLOCK_ROWS * groups * sizeof(float);
    size_t blocks = (size_t)rows / Q80_BLOCK_ROWS;
    size_t per_chunk = (a->size - a->used) / block_file_bytes(m, cols);  /* >= 1: wants_blocked */
    if (per_chunk > 8 * READ_CHUNK / block_values) per_chunk = 8 * READ_CHUNK / block_values;
    if (per_chunk == 0) per_chunk = 1;
    uint8_t *raw = a->base + a->used, *dst = w->w;
    for (size_t b0 = 0; b0 < blocks; b0 += per_chunk) {
        size_t n = blocks - b0 < per_chunk ? blocks - b0 : per_chunk;
        const uint8_t *raw_s = raw + n * block_values;
        if (read_at(m, raw, w->file_w + (int64_t)(b0 * block_values), n * block_values)
            || read_at(m, raw + n * block_values, w->file_s + (int64_t)(b0 * block_scales), n * block_scales)) return -1;
        for (size_t b = 0; b < n; b++)
            for (size_t g = 0; g < groups; g++, dst += rec)
                for (size_t r = 0; r < Q80_BLOCK_ROWS; r++) {
                    size_t row = b * Q80_BLOCK_ROWS + r;
                    memcpy(dst + r * gs, raw + row * (size_t)cols + g * gs, gs);
                    memcpy(dst + Q80_BLOCK_ROWS * gs + r * sizeof(float), raw_s + (row * groups + g) * sizeof(float), sizeof(float));
                }
    }
    w->blocked = 1;
    m->blocked_matrices++;
    return 0;
}

/* Reads one rows x cols matrix into freshly allocated arena memory. */
static int load_mat(Model *m, Arena *a, Mat *w, int64_t rows, int64_t cols, char *err) {
    int64_t n = rows * cols;
    w->w = arena_alloc(a, (size_t)(m->q80 ? n : n * 4), MEM_WEIGHTS);
    if (m->q80) w->s = arena_alloc(a, (size_t)(n / m->group_size * 4), MEM_WEIGHTS);
    if (!w->w || (m->q80 && !w->s)) { snprintf(err, MAX_ERR, "out of arena while loading weights"); return -1; }
    int failed;
    if (wants_blocked(m, a, rows, cols)) {
        /* values and scales are adjacent (both sizes are multiples of 16): one block of records */
        w->s = NULL;
        failed = load_blocked(m, a, w, rows, cols);
    } else {
        failed = read_at(m, w->w, w->file_w, (size_t)(m->q80 ? n : n * 4))
                 || (m->q80 && read_at(m, w->s, w->file_s, (size_t)(n / m->group_size * 4)));
    }
    if (failed) { snprintf(err, MAX_ERR, "read error in the model file"); return -1; }
    return 0;
}

static float *alloc_f(Arena *a, size_t n) { return arena_alloc(a, n * sizeof(float), MEM_STATE); }

static void alloc_act(Arena *a, Act *x, int n, int gs) {
    x->q = arena_alloc(a, (size_t)n, MEM_STATE);
    x->qf = alloc_f(a, (size_t)n);
    x->s = alloc_f(a, (size_t)(n / gs));
}

int model_load(Model *m, Arena *a, int context, int streaming, char *err) {
    Config *c = &m->c;
    int64_t L = c->n_layers, d = c->dim, hd = c->hidden_dim, kv = (int64_t)c->dim * c->n_kv_heads / c->n_heads;
    m->context = context;
    m->streaming = streaming;
    g_group_size = m->q80 ? m->group_size : 1;
    m->rms_att = arena_alloc(a, (size_t)(L * d * 4), MEM_WEIGHTS);
    m->rms_ffn = arena_alloc(a, (size_t)(L * d * 4), MEM_WEIGHTS);
    m->rms_final = arena_alloc(a, (size_t)(d * 4), MEM_WEIGHTS);
    if (!m->rms_att || !m->rms_ffn || !m->rms_final
        || read_at(m, m->rms_att, m->file_rms_att, (size_t)(L * d * 4))
        || read_at(m, m->rms_ffn, m->file_rms_ffn, (size_t)(L * d * 4))
        || read_at(m, m->rms_final, m->file_rms_final, (size_t)(d * 4))) {
        snprintf(err, MAX_ERR, "cannot read the norm weights");
        return -1;
    }
    int64_t sizes[7] = {d * d, kv * d, kv * d, d * d, hd * d, d * hd, hd * d};
    int64_t rows[7] = {d, kv, kv, d, hd, d, hd};
    Mat *mats[7] = {m->wq, m->wk, m->wv, m->wo, m->w1, m->w2, m->w3};
    memset(m->stream, 0, sizeof m->stream);
    if (!streaming) {
        if (load_mat(m, a, &m->emb, c->vocab_size, d, err)) return -1;
        if (m->shared_classifier) m->wcls = m->emb;
        else if (load_mat(m, a, &m->wcls, c->vocab_size, d, err)) return -1;
        for (int t = 0; t < 7; t++)
            for (int l = 0; l < L; l++)
                if (load_mat(m, a, &mats[t][l], rows[t], sizes[t] / rows[t], err)) return -1;
    } else {
        /* one rolling buffer holding one layer's seven matrices */
        for (int t = 0; t < 7; t++) {
            m->stream[t].w = arena_alloc(a, (size_t)(m->q80 ? sizes[t] : sizes[t] * 4), MEM_STREAM);
            if (m->q80) m->stream[t].s = arena_alloc(a, (size_t)(sizes[t] / m->group_size * 4), MEM_STREAM);
            if (!m->stream[t].w || (m->q80 && !m->stream[t].s)) {
                snprintf(err, MAX_ERR, "out of arena for the streaming buffer"); return -1;
            }
        }
        m->stream_layer = -1;
    }
    m->x = alloc_f(a, d); m->xb = alloc_f(a, d); m->xb2 = alloc_f(a, d); m->q = alloc_f(a, d);
    m->hb = alloc_f(a, hd); m->hb2 = alloc_f(a, hd);
    m->att = alloc_f(a, (size_t)c->n_heads * context);
    m->logits = alloc_f(a, c->vocab_size);
    m->rope_cos = alloc_f(a, (d / c->n_heads) / 2);
    m->rope_sin = alloc_f(a, (d / c->n_heads) / 2);
    m->rope_freq = alloc_f(a, (d / c->n_heads) / 2);
    if (m->q80) { alloc_act(a, &m->ax, (int)d, m->group_size); alloc_act(a, &m->ah, (int)hd, m->group_size); }
    m->key_cache = arena_alloc(a, (size_t)(L * context * kv * 4), MEM_KV);
    m->value_cache = arena_alloc(a, (size_t)(L * context * kv * 4), MEM_KV);
    if (!m->x || !m->xb || !m->xb2 || !m->q || !m->hb || !m->hb2 || !m->att || !m->logits || !m->rope_sin || !m->rope_freq
        || !m->key_cache || !m->value_cache || (m->q80 && (!m->ax.s || !m->ah.s))) {
        snprintf(err, MAX_ERR, "out of arena for the run state and KV cache");
        return -1;
    }
    return 0;
}

/* Streaming: read layer l's seven matrices into the rolling buffer. */
static int stream_layer(Model *m, int l) {
    if (m->stream_layer == l) return 0;
    Mat *mats[7] = {m->wq, m->wk, m->wv, m->wo, m->w1, m->w2, m->w3};
    const Config *c = &m->c;
    int64_t d = c->dim, hd = c->hidden_dim, kv = (int64_t)c->dim * c->n_kv_heads / c->n_heads;
    int64_t sizes[7] = {d * d, kv * d, kv * d, d * d, hd * d, d * hd, hd * d};
    uint64_t t0 = plat_ticks_us();
    for (int t = 0; t < 7; t++) {
        size_t wb = (size_t)(m->q80 ? sizes[t] : sizes[t] * 4);
        if (read_at(m, m->stream[t].w, mats[t][l].file_w, wb)) return -1;
        m->stream_bytes += (int64_t)wb;
        if (m->q80) {
            size_t sb = (size_t)(sizes[t] / m->group_size * 4);
            if (read_at(m, m->stream[t].s, mats[t][l].file_s, sb)) return -1;
            m->stream_bytes += (int64_t)sb;
        }
    }
    m->stream_us += plat_ticks_us() - t0;
    m->stream_layer = l;
    return 0;
}

/* The current Mat of tensor t at layer l: resident, or the rolling buffer's copy. */
const Mat *layer_mat(Model *m, int t, int l) {
    Mat *mats[7] = {m->wq, m->wk, m->wv, m->wo, m->w1, m->w2, m->w3};
    return m->streaming ? &m->stream[t] : &mats[t][l];
}

int model_stream_layer(Model *m, int l) { return m->streaming ? stream_layer(m, l) : 0; }

/* Row `row` (n values) of a resident q80 matrix as floats, q * scale, in either layout. */
static void q80_row_values(const Mat *w, int row, int n, int gs, float *x) {
    if (!w->blocked) {
        const int8_t *q = (const int8_t *)w->w + (size_t)row * n;
        const float *s = w->s + (size_t)row * (n / gs);
        for (int i = 0; i < n; i++) x[i] = q[i] * s[i / gs];
        return;
    }
    int r = row % Q80_BLOCK_ROWS;
    const uint8_t *rec = (const uint8_t *)w->w + (size_t)(row / Q80_BLOCK_ROWS) * (n / gs) * Q80_RECORD_BYTES(gs);
    for (int g = 0; g < n / gs; g++, rec += Q80_RECORD_BYTES(gs)) {
        const int8_t *q = (const int8_t *)rec + r * gs;
        float s;
        memcpy(&s, rec + Q80_BLOCK_ROWS * gs + r * sizeof(float), sizeof s);
        for (int i = 0; i < gs; i++) x[g * gs + i] = q[i] * s;
    }
}

/* Row `token` of the embedding into x (dequantized when q80). */
int model_embedding_row(Model *m, int token, float *x) {
    int d = m->c.dim, gs = m->group_size;
    if (m->streaming) {
        /* borrow the w1 slot of the rolling buffer: it is refilled before its next use */
        m->stream_layer = -1;
        if (m->q80) {
            int8_t *q = m->stream[4].w; float *s = m->stream[4].s;
            if (read_at(m, q, m->emb.file_w + (int64_t)token * d, (size_t)d)
                || read_at(m, s, m->emb.file_s + (int64_t)token * (d / gs) * 4, (size_t)(d / gs) * 4)) return -1;
            Mat row = {q, s, 0, 0, 0};
            q80_row_values(&row, 0, d, gs, x);
        } else if (read_at(m, x, m->emb.file_w + (int64_t)token * d * 4, (size_t)d * 4)) return -1;
        return 0;
    }
    if (m->q80) {
        q80_row_values(&m->emb, token, d, gs, x);
    } else {
        memcpy(x, (const float *)m->emb.w + (size_t)token * d, (size_t)d * sizeof(float));
    }
    return 0;
}

/* Streaming: the classifier in chunks of rows through the rolling buffer (w1's slot and beyond). */
int model_classifier_streamed(Model *m, const Act *x, float *logits) {
    int d = m->c.dim, gs = m->group_size, vocab = m->c.vocab_size;
    int64_t hd = m->c.hidden_dim;
    int rows = (int)hd;  /* w1's slot holds hidden_dim rows of dim values */
    m->stream_layer = -1;
    for (int r0 = 0; r0 < vocab; r0 += rows) {
        int n = vocab - r0 < rows ? vocab - r0 : rows;
        Mat chunk = m->stream[4];
        size_t wb = (size_t)n * d * (m->q80 ? 1 : 4);
        if (read_at(m, chunk.w, m->wcls.file_w + (int64_t)r0 * d * (m->q80 ? 1 : 4), wb)) return -1;
        if (m->q80 && read_at(m, chunk.s, m->wcls.file_s + (int64_t)r0 * (d / gs) * 4, (size_t)n * (d / gs) * 4)) return -1;
        m->stream_bytes += (int64_t)wb;
        (m->q80 ? m->kernels->q80 : m->kernels->fp32)(logits + r0, x, &chunk, d, n);
    }
    return 0;
}
