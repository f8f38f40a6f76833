/* The transformer forward pass: RMSNorm, GQA attention with RoPE over the KV cache,
 * SwiGLU feed-forward (the kernels'); llama2.c's run.c/runq.c arithmetic, operation for
 * operation (with an int8 KV cache: keys and values quantized per head, as runq.c does
 * activations). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "llama2.h"

/* Kept as separate functions so a profile can tell norms, RoPE and attention apart. */
#define PROFILED __attribute__((noinline))

PROFILED static void rmsnorm(float *o, const float *x, const float *weight, int size) {
    float ss = 0.0f;
    for (int j = 0; j < size; j++) ss += x[j] * x[j];
    ss /= size;
    ss += 1e-5f;
    ss = 1.0f / sqrtf(ss);
    for (int j = 0; j < size; j++) o[j] = weight[j] * (ss * x[j]);
}

PROFILED void softmax(float *x, int size) {
    float max_val = x[0];
    for (int i = 1; i < size; i++) if (x[i] > max_val) max_val = x[i];
    float sum = 0.0f;
    for (int i = 0; i < size; i++) { x[i] = expf(x[i] - max_val); sum += x[i]; }
    for (int i = 0; i < size; i++) x[i] /= sum;
}

/* Prepare the input once (quantize for q80/q40), then run the kernel over the rows in RAM
 * and read the others from the memory stick. */
static int matmul(Model *m, float *out, Act *a, float *x, int n, const Tensor *t, int prepared) {
    a->f = x;
    if (m->fmt != FMT_FP32 && !prepared) m->kernels->quantize(a, x, n);
    MatmulFn fn = model_kernel(m);
    int row = 0;
    for (int p = 0; p < t->pieces; row += t->piece_rows[p++]) fn(out + row, a, &t->piece[p], n, t->piece_rows[p]);
    return row < t->rows ? model_stream_rows(m, t, row, out, a) : 0;
}

/* Each kv head's values as int8 with one scale, max|x| / 127 (runq.c's rule for activations). */
static void kv_quantize(int8_t *q, float *scale, const float *x, int kv_dim, int head_size) {
    for (int h = 0; h < kv_dim / head_size; h++) {
        const float *xh = x + h * head_size;
        float wmax = 0.0f;
        for (int i = 0; i < head_size; i++) if (fabsf(xh[i]) > wmax) wmax = fabsf(xh[i]);
        float s = wmax / 127.0f;
        scale[h] = s;
        for (int i = 0; i < head_size; i++) q[h * head_size + i] = s == 0.0f ? 0 : (int8_t)roundf(xh[i] / s);
    }
}

/* run.c's frequency of each pair in a head, once (powf works in soft-float doubles). */
void forward_init(Model *m) {
    int head_size = m->c.dim / m->c.n_heads;
    for (int i = 0; i < head_size; i += 2) m->rope_freq[i / 2] = 1.0f / powf(10000.0f, i / (float)head_size);
}

/* cos/sin of pos * freq for each pair in a head: the same values run.c computes per element. */
PROFILED static void rope_table(Model *m, int pos) {
    int head_size = m->c.dim / m->c.n_heads;
    for (int i = 0; i < head_size; i += 2) {
        float val = pos * m->rope_freq[i / 2];
        m->rope_cos[i / 2] = cosf(val);
        m->rope_sin[i / 2] = sinf(val);
    }
}

/* Rotates each pair (v[i], v[i + 1]) of every head by the position's angle for i (run.c's values). */
static void rope(float *v, int n, const float *cos_i, const float *sin_i, int head_size) {
    for (int h = 0; h < n; h += head_size)
        for (int j = 0; j < head_size / 2; j++) {
            float *pair = v + h + 2 * j, v0 = pair[0], v1 = pair[1];
            pair[0] = v0 * cos_i[j] - v1 * sin_i[j];
            pair[1] = v0 * sin_i[j] + v1 * cos_i[j];
        }
}

/* att[t] = (q . k_t) / sqrt(head_size) for t = 0..pos, each dot product summed in order
 * (run.c's values); four positions side by side, so the FPU pipelines four sums. */
static void attention_scores(float *att, const float *q, const float *k, int kv_dim, int head_size, int pos) {
    float scale = sqrtf(head_size);
    int t = 0;
    for (; t + 4 <= pos + 1; t += 4) {
        const float *k0 = k + (size_t)t * kv_dim, *k1 = k0 + kv_dim, *k2 = k1 + kv_dim, *k3 = k2 + kv_dim;
        float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
        for (int i = 0; i < head_size; i++) {
            s0 += q[i] * k0[i];
            s1 += q[i] * k1[i];
            s2 += q[i] * k2[i];
            s3 += q[i] * k3[i];
        }
        att[t] = s0 / scale;
        att[t + 1] = s1 / scale;
        att[t + 2] = s2 / scale;
        att[t + 3] = s3 / scale;
    }
    for (; t <= pos; t++) {
        const float *kt = k + (size_t)t * kv_dim;
        float score = 0.0f;
        for (int i = 0; i < head_size; i++) score += q[i] * kt[i];
        att[t] = score / scale;
    }
}

/* xb[i] = sum over t of att[t] * v_t[i], added in order of t (run.c's values); eight
 * values of i at a time, kept in registers across the positions. */
static void attention_values(float *xb, const float *att, const float *v, int kv_dim, int head_size, int pos) {
    int i = 0;
    for (; i + 8 <= head_size; i += 8) {
        float x[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
        for (int t = 0; t <= pos; t++) {
            const float *vt = v + (size_t)t * kv_dim + i;
            float a = att[t];
            for (int j = 0; j < 8; j++) x[j] += a * vt[j];
        }
        for (int j = 0; j < 8; j++) xb[i + j] = x[j];
    }
    for (; i < head_size; i++) {
        float x = 0.0f;
        for (int t = 0; t <= pos; t++) x += att[t] * v[(size_t)t * kv_dim + i];
        xb[i] = x;
    }
}

/* The int8 cache's scores: (q . k_t summed in order) * scale_t / sqrt(head_size). */
static void attention_scores_i8(float *att, const float *q, const int8_t *k, const float *ks, int kv_dim,
                                int ks_step, int head_size, int pos) {
    float scale = sqrtf(head_size);
    for (int t = 0; t <= pos; t++) {
        const int8_t *kt = k + (size_t)t * kv_dim;
        float score = 0.0f;
        for (int i = 0; i < head_size; i++) score += q[i] * (float)kt[i];
        att[t] = (score * ks[(size_t)t * ks_step]) / scale;
    }
}

/* The int8 cache's values: xb[i] = sum over t of (att[t] * scale_t) * v_t[i], in order of t. */
static void attention_values_i8(float *xb, const float *att, const int8_t *v, const float *vs, int kv_dim,
                                int vs_step, int head_size, int pos) {
    for (int i = 0; i < head_size; i++) xb[i] = 0.0f;
    for (int t = 0; t <= pos; t++) {
        const int8_t *vt = v + (size_t)t * kv_dim;
        float a = att[t] * vs[(size_t)t * vs_step];
        for (int i = 0; i < head_size; i++) xb[i] += a * (float)vt[i];
    }
}

PROFILED static void attention(Model *m, int l, int pos) {
    const Config *p = &m->c;
    int dim = p->dim, kv_dim = p->dim * p->n_kv_heads / p->n_heads, kv_mul = p->n_heads / p->n_kv_heads;
    int head_size = dim / p->n_heads;
    size_t loff = (size_t)l * m->context * kv_dim, soff = (size_t)l * m->context * p->n_kv_heads;
    for (int h = 0; h < p->n_heads; h++) {
        float *att = m->att + h * m->context;
        size_t kv_off = loff + (size_t)(h / kv_mul) * head_size;
        if (m->kv_type == KV_INT8) {
            const float *ks = m->key_scale + soff + h / kv_mul, *vs = m->value_scale + soff + h / kv_mul;
            attention_scores_i8(att, m->q + h * head_size, (const int8_t *)m->key_cache + kv_off, ks, kv_dim,
                                p->n_kv_heads, head_size, pos);
            softmax(att, pos + 1);
            attention_values_i8(m->xb + h * head_size, att, (const int8_t *)m->value_cache + kv_off, vs, kv_dim,
                                p->n_kv_heads, head_size, pos);
            continue;
        }
        attention_scores(att, m->q + h * head_size, (const float *)m->key_cache + kv_off, kv_dim, head_size, pos);
        softmax(att, pos + 1);
        attention_values(m->xb + h * head_size, att, (const float *)m->value_cache + kv_off, kv_dim, head_size, pos);
    }
}

float *forward(Model *m, int token, int pos, char *err) {
    const Config *p = &m->c;
    float *x = m->x;
    int dim = p->dim, hidden_dim = p->hidden_dim;
    int kv_dim = p->dim * p->n_kv_heads / p->n_heads, head_size = dim / p->n_heads;
    if (model_embedding_row(m, token, x)) { snprintf(err, MAX_ERR, "read error in the model file (embedding)"); return NULL; }
    rope_table(m, pos);
    int l = 0;
    for (; l < p->n_layers; l++) {
        const Tensor *w = m->layer[l];
        rmsnorm(m->xb, x, m->rms_att + (size_t)l * dim, dim);
        size_t loff = (size_t)l * m->context * kv_dim + (size_t)pos * kv_dim;
        float *k = m->kv_type == KV_INT8 ? m->k : (float *)m->key_cache + loff;
        float *v = m->kv_type == KV_INT8 ? m->v : (float *)m->value_cache + loff;
        if (matmul(m, m->q, &m->ax, m->xb, dim, &w[T_WQ], 0) || matmul(m, k, &m->ax, m->xb, dim, &w[T_WK], 1)
            || matmul(m, v, &m->ax, m->xb, dim, &w[T_WV], 1)) break;
        rope(m->q, dim, m->rope_cos, m->rope_sin, head_size);
        rope(k, kv_dim, m->rope_cos, m->rope_sin, head_size);
        if (m->kv_type == KV_INT8) {
            size_t soff = ((size_t)l * m->context + (size_t)pos) * p->n_kv_heads;
            kv_quantize((int8_t *)m->key_cache + loff, m->key_scale + soff, k, kv_dim, head_size);
            kv_quantize((int8_t *)m->value_cache + loff, m->value_scale + soff, v, kv_dim, head_size);
        }
        attention(m, l, pos);
        if (matmul(m, m->xb2, &m->ax, m->xb, dim, &w[T_WO], 0)) break;
        for (int i = 0; i < dim; i++) x[i] += m->xb2[i];
        rmsnorm(m->xb, x, m->rms_ffn + (size_t)l * dim, dim);
        if (matmul(m, m->hb, &m->ax, m->xb, dim, &w[T_W1], 0) || matmul(m, m->hb2, &m->ax, m->xb, dim, &w[T_W3], 1))
            break;
        m->kernels->swiglu(m->hb, m->hb2, hidden_dim);
        if (matmul(m, m->xb, &m->ah, m->hb, hidden_dim, &w[T_W2], 0)) break;
        for (int i = 0; i < dim; i++) x[i] += m->xb[i];
    }
    if (l == p->n_layers) {
        rmsnorm(x, x, m->rms_final, dim);
        if (!matmul(m, m->logits, &m->ax, x, dim, model_classifier(m), 0)) return m->logits;
    }
    snprintf(err, MAX_ERR, "read error in the model file (%s)", l < p->n_layers ? "layer weights" : "classifier");
    return NULL;
}
