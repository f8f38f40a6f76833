/* The transformer forward pass: RMSNorm, GQA attention with RoPE over the KV cache,
 * SwiGLU feed-forward (the kernels'); llama2.c's run.c/runq.c arithmetic, operation for operation. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "llama2.h"

enum { T_WQ, T_WK, T_WV, T_WO, T_W1, T_W2, T_W3 };

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

/* Prepare the input once (quantize for q80), then run the kernel over all rows. */
static void matmul(Model *m, float *out, Act *a, float *x, int n, const Mat *w, int d, int prepared) {
    a->f = x;
    if (m->q80) {
        if (!prepared) m->kernels->quantize(a, x, n);
        m->kernels->q80(out, a, w, n, d);
    } else {
        m->kernels->fp32(out, a, w, n, d);
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

PROFILED static void attention(Model *m, int l, int pos) {
    const Config *p = &m->c;
    int dim = p->dim, kv_dim = p->dim * p->n_kv_heads / p->n_heads, kv_mul = p->n_heads / p->n_kv_heads;
    int head_size = dim / p->n_heads;
    size_t loff = (size_t)l * m->context * kv_dim;
    for (int h = 0; h < p->n_heads; h++) {
        float *att = m->att + h * m->context;
        size_t kv_off = loff + (size_t)(h / kv_mul) * head_size;
        attention_scores(att, m->q + h * head_size, m->key_cache + kv_off, kv_dim, head_size, pos);
        softmax(att, pos + 1);
        attention_values(m->xb + h * head_size, att, m->value_cache + kv_off, kv_dim, head_size, pos);
    }
}

float *forward(Model *m, int token, int pos, char *err) {
    const Config *p = &m->c;
    float *x = m->x;
    int dim = p->dim, hidden_dim = p->hidden_dim;
    int kv_dim = p->dim * p->n_kv_heads / p->n_heads, head_size = dim / p->n_heads;
    if (model_embedding_row(m, token, x)) { snprintf(err, MAX_ERR, "read error in the model file (embedding)"); return NULL; }
    rope_table(m, pos);
    for (int l = 0; l < p->n_layers; l++) {
        if (model_stream_layer(m, l)) { snprintf(err, MAX_ERR, "read error in the model file (layer %d)", l); return NULL; }
        rmsnorm(m->xb, x, m->rms_att + (size_t)l * dim, dim);
        size_t loff = (size_t)l * m->context * kv_dim;
        float *k = m->key_cache + loff + (size_t)pos * kv_dim;
        float *v = m->value_cache + loff + (size_t)pos * kv_dim;
        matmul(m, m->q, &m->ax, m->xb, dim, layer_mat(m, T_WQ, l), dim, 0);
        matmul(m, k, &m->ax, m->xb, dim, layer_mat(m, T_WK, l), kv_dim, 1);
        matmul(m, v, &m->ax, m->xb, dim, layer_mat(m, T_WV, l), kv_dim, 1);
        rope(m->q, dim, m->rope_cos, m->rope_sin, head_size);
        rope(k, kv_dim, m->rope_cos, m->rope_sin, head_size);
        attention(m, l, pos);
        matmul(m, m->xb2, &m->ax, m->xb, dim, layer_mat(m, T_WO, l), dim, 0);
        for (int i = 0; i < dim; i++) x[i] += m->xb2[i];
        rmsnorm(m->xb, x, m->rms_ffn + (size_t)l * dim, dim);
        matmul(m, m->hb, &m->ax, m->xb, dim, layer_mat(m, T_W1, l), hidden_dim, 0);
        matmul(m, m->hb2, &m->ax, m->xb, dim, layer_mat(m, T_W3, l), hidden_dim, 1);
        m->kernels->swiglu(m->hb, m->hb2, hidden_dim);
        matmul(m, m->xb, &m->ah, m->hb, hidden_dim, layer_mat(m, T_W2, l), dim, 0);
        for (int i = 0; i < dim; i++) x[i] += m->xb[i];
    }
    rmsnorm(x, x, m->rms_final, dim);
    if (m->streaming) {
        m->ax.f = x;
        if (m->q80) m->kernels->quantize(&m->ax, x, dim);
        if (model_classifier_streamed(m, &m->ax, m->logits)) { snprintf(err, MAX_ERR, "read error in the model file (classifier)"); return NULL; }
    } else {
        matmul(m, m->logits, &m->ax, x, dim, &m->wcls, p->vocab_size, 0);
    }
    return m->logits;
}
