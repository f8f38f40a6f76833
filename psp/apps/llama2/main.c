/* The llama2 program: read the config, print and save the memory budget, load the model,
 * then generate (or chat, keeping the KV cache across turns) and save the exact text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llama2.h"
#include "platform.h"

#define MAX_PROMPTS 8
#define TEXT_MAX (64 * 1024)

typedef struct {
    char model[256], tokenizer[256], out[256], budget[256], stats[256], logits[256];
    char prompts[MAX_PROMPTS][512];
    int n_prompts, steps, context, heap_kb, logits_steps, chat, osk, clock;
    char kernel[16], stream[8];
    float temperature, topp;
    uint64_t seed;
} Settings;

static char g_base[256];          /* folder of the config file: relative paths start there */
static char g_text[TEXT_MAX];     /* the exact text, saved to the state file at the end */
static int g_text_len;
static Settings S;

static void path_join(char *dst, const char *name) {
    if (name[0] == '/' || strchr(name, ':')) snprintf(dst, 256, "%s", name);
    else snprintf(dst, 256, "%s%s", g_base, name);
}

static void emit(const char *s, int color) {
    plat_text(s, color);
    int n = (int)strlen(s);
    if (g_text_len + n < TEXT_MAX) { memcpy(g_text + g_text_len, s, (size_t)n); g_text_len += n; }
}

static void info(const char *fmt, double a, double b, double c, double d) {
    char line[256];
    snprintf(line, sizeof line, fmt, a, b, c, d);
    plat_text(line, COLOR_INFO);
}

static void save_text(void) {
    char path[256];
    path_join(path, S.out);
    plat_write_file(path, g_text, g_text_len, 0);
}

/* A clear message on screen, on stdout and at the end of the state file; exit status 1. */
static int fail(const char *msg) {
    char line[MAX_ERR + 16];
    snprintf(line, sizeof line, "error: %s\n", msg);
    if (g_text_len && g_text[g_text_len - 1] != '\n') emit("\n", COLOR_ERROR);
    emit(line, COLOR_ERROR);
    save_text();
    return 1;
}

static void set(Settings *s, const char *key, const char *val) {
    if (!strcmp(key, "model")) snprintf(s->model, 256, "%s", val);
    else if (!strcmp(key, "tokenizer")) snprintf(s->tokenizer, 256, "%s", val);
    else if (!strcmp(key, "out")) snprintf(s->out, 256, "%s", val);
    else if (!strcmp(key, "budget")) snprintf(s->budget, 256, "%s", val);
    else if (!strcmp(key, "stats")) snprintf(s->stats, 256, "%s", val);
    else if (!strcmp(key, "logits")) snprintf(s->logits, 256, "%s", val);
    else if (!strcmp(key, "logits_steps")) s->logits_steps = atoi(val);
    else if (!strcmp(key, "prompt")) { snprintf(s->prompts[0], 512, "%s", val); if (s->n_prompts < 1) s->n_prompts = 1; }
    else if (!strncmp(key, "prompt", 6) && atoi(key + 6) >= 2 && atoi(key + 6) <= MAX_PROMPTS) {
        int i = atoi(key + 6) - 1;
        snprintf(s->prompts[i], 512, "%s", val);
        if (s->n_prompts < i + 1) s->n_prompts = i + 1;
    }
    else if (!strcmp(key, "steps")) s->steps = atoi(val);
    else if (!strcmp(key, "context")) s->context = atoi(val);
    else if (!strcmp(key, "heap_kb")) s->heap_kb = atoi(val);
    else if (!strcmp(key, "temperature")) s->temperature = (float)atof(val);
    else if (!strcmp(key, "topp")) s->topp = (float)atof(val);
    else if (!strcmp(key, "seed")) s->seed = (uint64_t)strtoul(val, NULL, 10);
    else if (!strcmp(key, "kernel")) snprintf(s->kernel, 16, "%s", val);
    else if (!strcmp(key, "stream")) snprintf(s->stream, 8, "%s", val);
    else if (!strcmp(key, "mode")) s->chat = !strcmp(val, "chat");
    else if (!strcmp(key, "osk")) s->osk = atoi(val);
    else if (!strcmp(key, "clock")) s->clock = atoi(val);
}

/* key=value lines; '#' starts a comment line; "\n" in a value is a newline. */
static void parse_line(Settings *s, char *line) {
    char *eq = strchr(line, '=');
    if (line[0] == '#' || !eq) return;
    *eq = '\0';
    char *val = eq + 1, *w = val;
    for (char *r = val; *r; r++) {
        if (r[0] == '\\' && r[1] == 'n') { *w++ = '\n'; r++; }
        else if (*r != '\r') *w++ = *r;
    }
    *w = '\0';
    set(s, line, val);
}

static void defaults(Settings *s) {
    memset(s, 0, sizeof *s);
    strcpy(s->model, "model.bin"); strcpy(s->tokenizer, "tokenizer.bin");
    strcpy(s->out, "llama2_out.txt"); strcpy(s->budget, "llama2_budget.txt"); strcpy(s->stats, "llama2_stats.txt");
    strcpy(s->kernel, "scalar"); strcpy(s->stream, "auto");
    s->steps = 256; s->context = 256; s->heap_kb = 24 * 1024;
    s->temperature = 1.0f; s->topp = 0.9f; s->seed = 42; s->clock = 333;
}

static void read_config(const char *path) {
    int fd = plat_open(path);
    if (fd < 0) return;  /* no config: defaults */
    static char buf[16384];
    int n = plat_read(fd, buf, sizeof buf - 1);
    plat_close(fd);
    if (n <= 0) return;
    buf[n] = '\0';
    for (char *line = buf; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        parse_line(&S, line);
        line = nl ? nl + 1 : NULL;
    }
}

static void write_budget(const Budget *b, const Model *m) {
    char text[1024], path[256];
    int n = snprintf(text, sizeof text,
        "machine=%s\nformat=%s\nmode=%s\nweights=%lu\nkv_cache=%lu\nrun_state=%lu\ntokenizer=%lu\n"
        "stream_buffer=%lu\nheap=%lu\nfree=%lu\ncontext=%d\n",
        plat_name(), m->q80 ? "q80" : "fp32", b->streaming ? "stream" : "ram",
        (unsigned long)b->weights, (unsigned long)b->kv_cache, (unsigned long)b->run_state,
        (unsigned long)b->tokenizer, (unsigned long)(b->streaming ? b->stream_buffer : 0),
        (unsigned long)b->heap, (unsigned long)b->free_after, m->context);
    path_join(path, S.budget);
    plat_write_file(path, text, n, 0);
    info("memory (KB): weights %.0f, KV cache %.0f, run state %.0f, tokenizer %.0f\n",
         b->weights / 1024.0, b->kv_cache / 1024.0, b->run_state / 1024.0, b->tokenizer / 1024.0);
    info("heap %.0f KB, free %.0f KB\n", b->heap / 1024.0, b->free_after / 1024.0, 0, 0);
    if (b->streaming) info("weights stream from the memory stick (layer buffer %.0f KB)\n", b->stream_buffer / 1024.0, 0, 0, 0);
}

/* Decide RAM or streaming; on failure explain which part did not fit. */
static int plan(Model *m, Budget *b, size_t heap, char *err) {
    size_t norms = 2 * align16((size_t)m->c.n_layers * m->c.dim * 4) + align16((size_t)m->c.dim * 4);
    size_t fixed = b->kv_cache + b->run_state + b->tokenizer;
    b->heap = heap;
    b->free_after = 0;  /* nothing is free unless the model fits (the report prints it either way) */
    if (strcmp(S.stream, "on") && b->weights + fixed <= heap) { b->free_after = heap - b->weights - fixed; return 0; }
    size_t streamed = norms + b->stream_buffer;
    if (strcmp(S.stream, "off") && streamed + fixed <= heap) {
        b->streaming = 1;
        b->weights = streamed;
        b->free_after = heap - streamed - fixed;
        return 0;
    }
    const char *names[4] = {"the weights", "the KV cache", "the run state", "the tokenizer"};
    size_t parts[4] = {strcmp(S.stream, "off") ? streamed : b->weights, b->kv_cache, b->run_state, b->tokenizer};
    size_t used = 0;
    int i = 0;
    for (; i < 3 && used + parts[i] <= heap; i++) used += parts[i];
    snprintf(err, MAX_ERR, "does not fit: %s (%lu KB) after %lu KB of %lu KB heap; the model needs %lu KB in all%s",
             names[i], (unsigned long)(parts[i] / 1024), (unsigned long)(used / 1024), (unsigned long)(heap / 1024),
             (unsigned long)((parts[0] + fixed) / 1024), strcmp(S.stream, "off") ? " even streaming the weights" : "");
    return -1;
}

static int next_prompt(int turn, char *buf, int size) {
    if (turn < S.n_prompts) { snprintf(buf, (size_t)size, "%s", S.prompts[turn]); return 1; }
    if (turn == 0 && !S.osk) { buf[0] = '\0'; return 1; }
    if (S.osk) return plat_prompt(turn == 0 ? "Prompt" : "Your turn", buf, size);
    return 0;
}

int llama2_main(const char *config_path, int argc, char **argv) {
    static Model m;
    static Tokenizer tok;
    static Sampler sampler;
    static Arena arena;
    static int tokens[4096];
    char err[MAX_ERR] = "", path[256], line[512];
    defaults(&S);
    const char *slash = strrchr(config_path, '/');
    snprintf(g_base, sizeof g_base, "%.*s", slash ? (int)(slash - config_path + 1) : 0, config_path);
    read_config(config_path);
    for (int i = 0; i < argc; i++) { snprintf(line, sizeof line, "%s", argv[i]); parse_line(&S, line); }

    plat_set_clock(S.clock);
    uint64_t t_load = plat_ticks_us();
    path_join(path, S.model);
    if (model_open(&m, path, err)) return fail(err);
    int context = S.context > 0 && S.context < m.c.seq_len ? S.context : m.c.seq_len;
    if (context > 4096) context = 4096;
    path_join(path, S.tokenizer);
    size_t tok_bytes = tokenizer_bytes(path, m.c.vocab_size, err);
    if (!tok_bytes) return fail(err);
    m.kernels = &kernels_scalar;
    if (!strcmp(S.kernel, "vfpu")) {
        m.kernels = kernels_vfpu();
        if (!m.kernels) return fail("the vfpu kernel needs a PSP (this build has none)");
    } else if (strcmp(S.kernel, "scalar")) return fail("kernel must be scalar or vfpu");
    Budget b;
    model_budget(&m, context, tok_bytes, &b);
    size_t got = 0;
    arena.base = plat_heap((size_t)S.heap_kb * 1024, &got);
    arena.size = arena.base ? got : 0;
    m.context = context;
    if (!arena.base) {
        b.heap = 0; b.free_after = 0;
        write_budget(&b, &m);
        snprintf(err, MAX_ERR, "does not fit: the %d KB heap is more than the %lu KB of free memory here "
                 "(the model needs %lu KB)", S.heap_kb, (unsigned long)(got / 1024),
                 (unsigned long)((b.weights + b.kv_cache + b.run_state + b.tokenizer) / 1024));
        return fail(err);
    }
    if (plan(&m, &b, arena.size, err)) { write_budget(&b, &m); return fail(err); }
    write_budget(&b, &m);
    if (model_load(&m, &arena, context, b.streaming, err)) return fail(err);
    path_join(path, S.tokenizer);
    if (tokenizer_load(&tok, &arena, path, m.c.vocab_size, err)) return fail(err);
    sampler.vocab_size = m.c.vocab_size;
    sampler.temperature = S.temperature < 0 ? 0 : S.temperature;
    sampler.topp = S.topp;
    sampler.rng_state = S.seed ? S.seed : 42;
    sampler.argmax = m.kernels->argmax;
    sampler.probindex = arena_alloc(&arena, (size_t)m.c.vocab_size * sizeof(ProbIndex), MEM_STATE);
    if (!sampler.probindex) return fail("out of arena for the sampler");
    double load_s = (plat_ticks_us() - t_load) / 1e6;
    snprintf(line, sizeof line, "model %s (%s): dim %d, %d layers, vocab %d, context %d, kernel %s\n", S.model,
             m.q80 ? "q80" : "fp32", m.c.dim, m.c.n_layers, m.c.vocab_size, context, m.kernels->name);
    plat_text(line, COLOR_INFO);

    /* the generation loop: run.c's, over turns that share the KV cache */
    int pos = 0, pending = -1, turn = 0, generated = 0, logits_dumped = 0, stopped_full = 0;
    uint64_t t0 = plat_ticks_us(), t_first = 0;
    char stats[2048];
    int stats_len = 0;
    char prompt[512];
    while (next_prompt(turn, prompt, sizeof prompt)) {
        int n = 0;
        if (pending >= 0) tokens[n++] = pending;
        int k = tokenizer_encode(&tok, prompt, turn == 0, tokens + n, context - pos - n, err);
        if (k < 0) return fail(err);
        n += k;
        if (turn > 0) emit("\n", COLOR_INFO);
        int max_pos = pos + (S.steps > 0 ? S.steps : context);
        if (max_pos > context) max_pos = context;
        int token = tokens[0], next = 0, i = 0, turn_start = pos, gen_turn = 0;
        while (pos < max_pos) {
            float *logits = forward(&m, token, pos, err);
            if (!logits) return fail(err);
            if (S.logits[0] && logits_dumped < S.logits_steps) {
                path_join(path, S.logits);
                plat_write_file(path, (const char *)logits, m.c.vocab_size * 4, logits_dumped++ > 0);
            }
            if (i < n - 1) next = tokens[i + 1];
            else { next = sample(&sampler, logits); gen_turn++; if (!t_first) t_first = plat_ticks_us(); }
            pos++; i++;
            if (next == 1 || (S.chat && next == 2)) break;
            const char *piece = tokenizer_decode(&tok, token, next);
            if (piece_is_printable(piece)) emit(piece, i < n ? COLOR_PROMPT : COLOR_GEN);
            token = next;
        }
        generated += gen_turn;
        pending = next;
        stats_len += snprintf(stats + stats_len, sizeof stats - (size_t)stats_len,
                              "turn%d_prompt_tokens=%d\nturn%d_first_pos=%d\nturn%d_generated=%d\n",
                              turn + 1, n < pos - turn_start ? n : pos - turn_start, turn + 1, turn_start, turn + 1, gen_turn);
        turn++;
        if (!S.chat) break;
        if (pos >= context) { stopped_full = 1; break; }
    }
    uint64_t t_end = plat_ticks_us();
    double secs = (t_end - t0) / 1e6, ttft = t_first ? (t_first - t0) / 1e6 : 0;
    info("\n%.0f tokens in %.1fs (%.1f tok/s)\n", pos, secs, secs > 0 ? pos / secs : 0, 0);
    info("time to first token %.2fs, load %.2fs\n", ttft, load_s, 0, 0);
    if (m.streaming) info("memory stick: %.1f MB read in %.2fs\n", m.stream_bytes / 1048576.0, m.stream_us / 1e6, 0, 0);
    if (stopped_full) info("the context of %.0f tokens is full\n", context, 0, 0, 0);
    save_text();
    stats_len += snprintf(stats + stats_len, sizeof stats - (size_t)stats_len,
        "tokens=%d\ngenerated=%d\nseconds=%.6f\ntok_per_s=%.6f\nttft_seconds=%.6f\nload_seconds=%.6f\n"
        "stream_seconds=%.6f\nstream_bytes=%lld\nkernel=%s\nturns=%d\ncontext_full=%d\nblocked_matrices=%d\n",
        pos, generated, secs, secs > 0 ? pos / secs : 0.0, ttft, load_s, m.stream_us / 1e6,
        (long long)m.stream_bytes, m.kernels->name, turn, stopped_full, m.blocked_matrices);
    path_join(path, S.stats);
    plat_write_file(path, stats, stats_len, 0);
    return 0;
}
