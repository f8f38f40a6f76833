/* The sampler: argmax at temperature 0, else softmax at a temperature and top-p
 * (nucleus) sampling with llama2.c's xorshift generator. */
#include "llama2.h"

void softmax(float *x, int size);

static uint32_t random_u32(uint64_t *state) {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return (uint32_t)((*state * 0x2545F4914F6CDD1Dull) >> 32);
}

static float random_f32(uint64_t *state) { return (random_u32(state) >> 8) / 16777216.0f; }

int argmax_scalar(const float *p, int n) {
    int best = 0;
    float max_p = p[0];
    for (int i = 1; i < n; i++) if (p[i] > max_p) { best = i; max_p = p[i]; }
    return best;
}

static int sample_mult(const float *p, int n, float coin) {
    float cdf = 0.0f;
    for (int i = 0; i < n; i++) { cdf += p[i]; if (coin < cdf) return i; }
    return n - 1;
}

/* Descending by probability, ties by index: one order on every machine (no libc qsort). */
static int before(const ProbIndex *a, const ProbIndex *b) {
    return a->prob > b->prob || (a->prob == b->prob && a->index < b->index);
}

static void sort_desc(ProbIndex *v, int n) {
    for (int gap = n / 2; gap > 0; gap = gap == 2 ? 1 : gap * 5 / 11) {
        for (int i = gap; i < n; i++) {
            ProbIndex item = v[i];
            int j = i;
            while (j >= gap && before(&item, &v[j - gap])) { v[j] = v[j - gap]; j -= gap; }
            v[j] = item;
        }
    }
}

static int sample_topp(const float *p, int n, float topp, ProbIndex *pi, float coin) {
    int n0 = 0;
    const float cutoff = (1.0f - topp) / (n - 1);
    for (int i = 0; i < n; i++)
        if (p[i] >= cutoff) { pi[n0].index = i; pi[n0].prob = p[i]; n0++; }
    sort_desc(pi, n0);
    float cumulative = 0.0f;
    int last = n0 - 1;
    for (int i = 0; i < n0; i++) {
        cumulative += pi[i].prob;
        if (cumulative > topp) { last = i; break; }
    }
    float r = coin * cumulative, cdf = 0.0f;
    for (int i = 0; i <= last; i++) { cdf += pi[i].prob; if (r < cdf) return pi[i].index; }
    return pi[last].index;
}

int sample(Sampler *s, float *logits) {
    if (s->temperature == 0.0f) return s->argmax(logits, s->vocab_size);
    for (int q = 0; q < s->vocab_size; q++) logits[q] /= s->temperature;
    softmax(logits, s->vocab_size);
    float coin = random_f32(&s->rng_state);
    if (s->topp <= 0 || s->topp >= 1) return sample_mult(logits, s->vocab_size, coin);
    return sample_topp(logits, s->vocab_size, s->topp, s->probindex, coin);
}
