/* Heap stress: thousands of random malloc/calloc/realloc/memalign/free calls, each
   block filled with a pattern and checked before it is resized or freed; then all is
   freed and one block of nearly the whole heap must fit (free blocks merged). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pspsdk.h>

PSP_MODULE_INFO("heap", PSP_MODULE_USER, 1, 0);
PSP_NO_CREATE_MAIN_THREAD();
PSP_HEAP_SIZE_KB(2048);

#define SLOTS 256
#define STEPS 6000

static uint32_t state = 12345;
static uint32_t next_random(void)
{
    state = state * 1103515245u + 12345u;
    return state >> 8;
}

static unsigned char *blocks[SLOTS];
static size_t sizes[SLOTS];
static uint32_t checksum;
static int failures;

static unsigned char pattern(int slot, size_t i) { return (unsigned char)(slot * 31 + i * 7); }

static void fill(int slot)
{
    for (size_t i = 0; i < sizes[slot]; i++)
        blocks[slot][i] = pattern(slot, i);
}

static void check(int slot, size_t upto)
{
    for (size_t i = 0; i < upto; i++) {
        if (blocks[slot][i] != pattern(slot, i)) {
            failures++;
            return;
        }
        checksum = checksum * 33 + blocks[slot][i];
    }
}

static size_t random_size(void)
{
    uint32_t r = next_random();
    return (r & 15) == 0 ? 4000 + r % 16000 : 1 + r % 600;
}

int main(void)
{
    int allocs = 0, misaligned = 0;
    for (int step = 0; step < STEPS; step++) {
        int slot = (int)(next_random() % SLOTS);
        uint32_t op = next_random() % 10;
        if (blocks[slot] && op < 4) {
            check(slot, sizes[slot]);
            free(blocks[slot]);
            blocks[slot] = NULL;
        } else if (blocks[slot] && op < 7) {
            size_t n = random_size(), keep = n < sizes[slot] ? n : sizes[slot];
            unsigned char *p = realloc(blocks[slot], n);
            if (!p)
                continue;
            blocks[slot] = p;
            check(slot, keep);
            sizes[slot] = n;
            fill(slot);
        } else if (!blocks[slot]) {
            size_t n = random_size();
            if (op == 7) {
                blocks[slot] = calloc(n, 1);
                for (size_t i = 0; blocks[slot] && i < n; i++)
                    failures += blocks[slot][i] != 0;
            } else if (op == 8) {
                blocks[slot] = memalign(64, n);
                misaligned += blocks[slot] && ((uintptr_t)blocks[slot] & 63);
            } else {
                blocks[slot] = malloc(n);
            }
            if (!blocks[slot])
                continue;
            misaligned += ((uintptr_t)blocks[slot] & 15) != 0;
            sizes[slot] = n;
            fill(slot);
            allocs++;
        }
    }
    for (int slot = 0; slot < SLOTS; slot++) {
        if (blocks[slot]) {
            check(slot, sizes[slot]);
            free(blocks[slot]);
        }
    }
    void *whole = malloc(2040 * 1024);
    printf("heap allocs=%d failures=%d misaligned=%d checksum=%08x whole=%s\n",
           allocs, failures, misaligned, (unsigned)checksum, whole ? "yes" : "no");
    free(whole);
    return failures || misaligned || !whole;
}
