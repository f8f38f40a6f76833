/* llama2.c's tokenizer.bin and its BPE: encode by merging the best-scoring pair until
 * none is in the vocabulary, unknown UTF-8 bytes fall back to the <0xXX> tokens. */
#include <stdio.h>
#include <string.h>

#include "llama2.h"
#include "platform.h"

static int rd_int(const uint8_t *b) { return (int)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24); }

/* Arena bytes the tokenizer will take: the file's strings plus the per-token tables. */
size_t tokenizer_bytes(const char *path, int vocab_size, char *err) {
    int fd = plat_open(path);
    if (fd < 0) { snprintf(err, MAX_ERR, "cannot open tokenizer %s", path); return 0; }
    int64_t size = plat_size(fd);
    plat_close(fd);
    /* the file image, then its strings with their NULs (each record has 8 header bytes, so they fit in size) */
    return align16(2 * (size_t)size) + align16((size_t)vocab_size * sizeof(char *))
         + 3 * align16((size_t)vocab_size * 4) + 1024 + 64;
}

int tokenizer_load(Tokenizer *t, Arena *a, const char *path, int vocab_size, char *err) {
    int fd = plat_open(path);
    if (fd < 0) { snprintf(err, MAX_ERR, "cannot open tokenizer %s", path); return -1; }
    int64_t size = plat_size(fd);
    uint8_t *raw = size > 0 && size < (1 << 28) ? arena_alloc(a, 2 * (size_t)size, MEM_TOKENIZER) : NULL;
    t->vocab = arena_alloc(a, (size_t)vocab_size * sizeof(char *), MEM_TOKENIZER);
    t->scores = arena_alloc(a, (size_t)vocab_size * 4, MEM_TOKENIZER);
    t->sorted = arena_alloc(a, (size_t)vocab_size * 4, MEM_TOKENIZER);
    if (!raw || !t->vocab || !t->scores || !t->sorted) { plat_close(fd); snprintf(err, MAX_ERR, "out of arena for the tokenizer"); return -1; }
    if (size < 4 || chunked_read(fd, raw, (size_t)size)) { plat_close(fd); snprintf(err, MAX_ERR, "tokenizer %s: read error", path); return -1; }
    plat_close(fd);
    /* strings are copied behind the file image, each with its terminating NUL */
    char *strings = (char *)raw + size;
    t->vocab_size = vocab_size;
    t->max_token_length = rd_int(raw);
    int64_t pos = 4;
    for (int i = 0; i < vocab_size; i++) {
        if (pos + 8 > size) {
            snprintf(err, MAX_ERR, "tokenizer %s has fewer tokens than the model's vocabulary of %d (ends at token %d)", path, vocab_size, i);
            return -1;
        }
        memcpy(&t->scores[i], raw + pos, 4);
        int len = rd_int(raw + pos + 4);
        pos += 8;
        if (len < 0 || len > 4096 || pos + len > size || len > t->max_token_length) {
            snprintf(err, MAX_ERR, "tokenizer %s: token %d has a bad length %d", path, i, len);
            return -1;
        }
        memcpy(strings, raw + pos, (size_t)len);
        strings[len] = '\0';
        t->vocab[i] = strings;
        strings += len + 1;
        pos += len;
    }
    if (pos != size) {
        snprintf(err, MAX_ERR, "tokenizer %s has more tokens than the model's vocabulary of %d", path, vocab_size);
        return -1;
    }
    if (vocab_size < 259) { snprintf(err, MAX_ERR, "tokenizer vocabulary of %d is too small (needs the 256 byte tokens)", vocab_size); return -1; }
    for (int i = 0; i < 256; i++) { t->byte_pieces[i * 2] = (unsigned char)i; t->byte_pieces[i * 2 + 1] = '\0'; }
    t->buf = arena_alloc(a, (size_t)t->max_token_length * 2 + 3, MEM_TOKENIZER);
    if (!t->buf) { snprintf(err, MAX_ERR, "out of arena for the tokenizer"); return -1; }
    /* sort ids by piece, ties by id, so every machine gets the same order: a bottom-up
     * merge sort (no libc qsort) with one scratch array */
    int *ids = t->sorted, n = vocab_size;
    int *tmp = arena_alloc(a, (size_t)n * sizeof(int), MEM_TOKENIZER);
    if (!tmp) { snprintf(err, MAX_ERR, "out of arena for the tokenizer"); return -1; }
    for (int i = 0; i < n; i++) ids[i] = i;
    for (int width = 1; width < n; width *= 2) {
        for (int lo = 0; lo < n; lo += 2 * width) {
            int mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                int c = strcmp(t->vocab[ids[i]], t->vocab[ids[j]]);
                tmp[k++] = (c < 0 || (c == 0 && ids[i] < ids[j])) ? ids[i++] : ids[j++];
            }
            while (i < mid) tmp[k++] = ids[i++];
            while (j < hi) tmp[k++] = ids[j++];
        }
        int *swap = ids; ids = tmp; tmp = swap;
    }
    if (ids != t->sorted) memcpy(t->sorted, ids, (size_t)n * sizeof(int));
    return 0;
}

/* The lowest id whose piece is `str`, or -1. */
static int lookup(const Tokenizer *t, const char *str) {
    int lo = 0, hi = t->vocab_size - 1, found = -1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2, c = strcmp(t->vocab[t->sorted[mid]], str);
        if (c == 0) { found = t->sorted[mid]; hi = mid - 1; }
        else if (c < 0) lo = mid + 1;
        else hi = mid - 1;
    }
    return found;
}

/* Tokens of `text` (BOS first if asked); -1 with a message if more than max_tokens. */
int tokenizer_encode(Tokenizer *t, const char *text, int bos, int *tokens, int max_tokens, char *err) {
    int n = 0;
    char *buf = t->buf;
    size_t len = 0;
    #define PUSH(tok) do { if (n >= max_tokens) goto too_long; tokens[n++] = (tok); } while (0)
    if (bos) PUSH(1);
    if (text[0] != '\0') {
        int dummy = lookup(t, " ");
        if (dummy >= 0) PUSH(dummy);
    }
    for (const char *c = text; *c != '\0'; c++) {
        if ((*c & 0xC0) != 0x80) len = 0;
        buf[len++] = *c;
        buf[len] = '\0';
        if ((*(c + 1) & 0xC0) == 0x80 && len < 4) continue;
        int id = lookup(t, buf);
        if (id != -1) PUSH(id);
        else for (size_t i = 0; i < len; i++) PUSH((unsigned char)buf[i] + 3);
        len = 0;
    }
    while (1) {
        float best_score = -1e10f;
        int best_id = -1, best_idx = -1;
        for (int i = 0; i < n - 1; i++) {
            size_t a = strlen(t->vocab[tokens[i]]), b = strlen(t->vocab[tokens[i + 1]]);
            if (a + b > (size_t)t->max_token_length) continue;  /* cannot be a piece */
            memcpy(buf, t->vocab[tokens[i]], a);
            memcpy(buf + a, t->vocab[tokens[i + 1]], b + 1);
            int id = lookup(t, buf);
            if (id != -1 && t->scores[id] > best_score) { best_score = t->scores[id]; best_id = id; best_idx = i; }
        }
        if (best_idx == -1) break;
        tokens[best_idx] = best_id;
        for (int i = best_idx + 1; i < n - 1; i++) tokens[i] = tokens[i + 1];
        n--;
    }
    return n;
too_long:
    snprintf(err, MAX_ERR, "the prompt is longer than the context of %d tokens", max_tokens);
    return -1;
    #undef PUSH
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

const char *tokenizer_decode(Tokenizer *t, int prev_token, int token) {
    const char *piece = t->vocab[token];
    if (prev_token == 1 && piece[0] == ' ') piece++;
    /* raw byte tokens look like <0x0A> */
    if (piece[0] == '<' && piece[1] == '0' && piece[2] == 'x' && hexval(piece[3]) >= 0 && hexval(piece[4]) >= 0 && piece[5] == '>')
        piece = (const char *)t->byte_pieces + (hexval(piece[3]) * 16 + hexval(piece[4])) * 2;
    return piece;
}

/* run.c prints a one-byte piece only if it is printable or whitespace. */
int piece_is_printable(const char *piece) {
    if (piece == NULL || piece[0] == '\0') return 0;
    if (piece[1] == '\0') {
        unsigned char b = (unsigned char)piece[0];
        return (b >= 0x20 && b < 0x7f) || b == ' ' || (b >= '\t' && b <= '\r');
    }
    return 1;
}
