/* malloc over one block of user memory taken from the kernel at the first call,
   sized by PSP_HEAP_SIZE_KB like the official runtime (negative: all free memory
   but that many KB; absent: all free memory but 512 KB).

   Blocks are multiples of 16 bytes and start 4 bytes before a 16-byte boundary, so
   every payload is 16-byte aligned (VFPU quad loads need it). A block starts with a
   header word: size | USED | PREV_USED. Free blocks also hold free-list links in the
   payload and repeat their size in their last word, so freeing merges neighbours in
   O(1). Free blocks sit in bins by power-of-two size; allocation is first fit from
   the smallest bin that can hold the request. */
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <errno.h>
#include "pspsdk.h"

#define ALIGN 16
#define HEADER 4
/* header, two free-list links, footer: 16 bytes on the PSP (32 on a 64-bit host) */
#define MIN_BLOCK ((uint32_t)(sizeof(free_block) + 4 + ALIGN - 1) & ~(uint32_t)(ALIGN - 1))
#define USED 1u
#define PREV_USED 2u
#define SIZE_MASK (~(uint32_t)(ALIGN - 1))
#define BINS 32
#define DEFAULT_RESERVE_KB 512

extern int sce_newlib_heap_kb_size __attribute__((weak));

typedef struct free_block {
    uint32_t head;
    struct free_block *next, *prev;
} free_block;

static free_block *bins[BINS];
static unsigned char *heap_start, *heap_end;  /* heap_end: the end sentinel's header */
static int heap_state;                        /* 0 untouched, 1 ready, -1 failed */
SceUID __heap_block_id = -1;

static uint32_t block_size(const void *b) { return *(const uint32_t *)b & SIZE_MASK; }
static void *next_block(void *b) { return (unsigned char *)b + block_size(b); }

static int bin_of(uint32_t size)
{
    return 31 - __builtin_clz(size);
}

static void bin_insert(free_block *b)
{
    int i = bin_of(block_size(b));
    b->prev = NULL;
    b->next = bins[i];
    if (bins[i])
        bins[i]->prev = b;
    bins[i] = b;
}

static void bin_remove(free_block *b)
{
    if (b->prev)
        b->prev->next = b->next;
    else
        bins[bin_of(block_size(b))] = b->next;
    if (b->next)
        b->next->prev = b->prev;
}

/* Mark b (of `size` bytes) free: header, footer, next block's PREV_USED bit, bin. */
static void make_free(void *b, uint32_t size, uint32_t prev_used)
{
    *(uint32_t *)b = size | prev_used;
    *(uint32_t *)((unsigned char *)b + size - 4) = size;
    uint32_t *next = next_block(b);
    *next &= ~PREV_USED;
    bin_insert(b);
}

static SceSize heap_bytes(void)
{
    if (&sce_newlib_heap_kb_size == NULL)
        return sceKernelMaxFreeMemSize() - DEFAULT_RESERVE_KB * 1024;
    int kb = sce_newlib_heap_kb_size;
    if (kb < 0)
        return sceKernelMaxFreeMemSize() + kb * 1024;
    return (SceSize)kb * 1024;
}

static int heap_init(void)
{
    SceSize size = heap_bytes() & ~(SceSize)(ALIGN - 1);
    if ((int)size < 64)
        return -1;
    __heap_block_id = sceKernelAllocPartitionMemory(PSP_MEMORY_PARTITION_USER, "heap_block", PSP_SMEM_Low, size, NULL);
    if (__heap_block_id < 0)
        return -1;
    unsigned char *base = sceKernelGetBlockHeadAddr(__heap_block_id);
    /* First header 12 bytes past a 16-byte boundary; last 4 bytes hold the end sentinel. */
    heap_start = (unsigned char *)(((uintptr_t)base + 15) & ~(uintptr_t)15) + 12;
    heap_end = heap_start + ((base + size - 16 - heap_start) & ~(uintptr_t)15);
    *(uint32_t *)heap_end = USED;  /* size 0, used: stops merging at the end */
    make_free(heap_start, (uint32_t)(heap_end - heap_start), PREV_USED);
    return 1;
}

static void *take(free_block *b, uint32_t need)
{
    uint32_t size = block_size(b);
    bin_remove(b);
    uint32_t prev = b->head & PREV_USED;
    if (size - need >= MIN_BLOCK) {
        b->head = need | USED | prev;
        make_free((unsigned char *)b + need, size - need, PREV_USED);
    } else {
        b->head = size | USED | prev;
        *(uint32_t *)next_block(b) |= PREV_USED;
    }
    return (unsigned char *)b + HEADER;
}

static uint32_t request_size(size_t n)
{
    if (n > 0x7fff0000u)
        return 0;
    uint32_t need = (uint32_t)(n + HEADER + ALIGN - 1) & SIZE_MASK;
    return need < MIN_BLOCK ? MIN_BLOCK : need;
}

void *malloc(size_t n)
{
    if (heap_state == 0)
        heap_state = heap_init();
    uint32_t need = request_size(n);
    if (heap_state < 0 || !need) {
        errno = ENOMEM;
        return NULL;
    }
    for (int i = bin_of(need); i < BINS; i++)
        for (free_block *b = bins[i]; b; b = b->next)
            if (block_size(b) >= need)
                return take(b, need);
    errno = ENOMEM;
    return NULL;
}

void free(void *p)
{
    if (!p)
        return;
    unsigned char *b = (unsigned char *)p - HEADER;
    uint32_t size = block_size(b), prev_used = *(uint32_t *)b & PREV_USED;
    unsigned char *next = b + size;
    if (!(*(uint32_t *)next & USED)) {
        bin_remove((free_block *)next);
        size += block_size(next);
    }
    if (!prev_used) {
        uint32_t prev_size = *(uint32_t *)(b - 4);
        b -= prev_size;
        bin_remove((free_block *)b);
        size += prev_size;
        prev_used = *(uint32_t *)b & PREV_USED;
    }
    make_free(b, size, prev_used);
}

void *calloc(size_t count, size_t size)
{
    if (size && count > (size_t)-1 / size)
        return NULL;
    void *p = malloc(count * size);
    if (p)
        memset(p, 0, count * size);
    return p;
}

void *realloc(void *p, size_t n)
{
    if (!p)
        return malloc(n);
    if (!n) {
        free(p);
        return NULL;
    }
    uint32_t need = request_size(n);
    if (!need)
        return NULL;
    unsigned char *b = (unsigned char *)p - HEADER;
    uint32_t size = block_size(b);
    unsigned char *next = b + size;
    if (size < need && !(*(uint32_t *)next & USED) && size + block_size(next) >= need) {
        bin_remove((free_block *)next);          /* grow into the free neighbour */
        size += block_size(next);
        *(uint32_t *)b = size | (*(uint32_t *)b & (PREV_USED | USED));
        *(uint32_t *)(b + size) |= PREV_USED;
    }
    if (size >= need) {
        if (size - need >= MIN_BLOCK) {          /* give the tail back */
            *(uint32_t *)b = need | (*(uint32_t *)b & (PREV_USED | USED));
            unsigned char *tail = b + need;
            *(uint32_t *)tail = (size - need) | USED | PREV_USED;
            free(tail + HEADER);
        }
        return p;
    }
    void *q = malloc(n);
    if (q) {
        memcpy(q, p, size - HEADER);
        free(p);
    }
    return q;
}

/* Over-allocate, then free the lead-in so the payload lands on the boundary. */
void *memalign(size_t alignment, size_t n)
{
    if (alignment <= ALIGN)
        return malloc(n);
    if (alignment & (alignment - 1)) {
        errno = EINVAL;
        return NULL;
    }
    unsigned char *p = malloc(n + alignment + MIN_BLOCK);
    if (!p)
        return NULL;
    uintptr_t aligned = ((uintptr_t)p + MIN_BLOCK + alignment - 1) & ~(uintptr_t)(alignment - 1);
    if (aligned == (uintptr_t)p)
        return p;
    unsigned char *b = p - HEADER, *ab = (unsigned char *)aligned - HEADER;
    uint32_t total = block_size(b), lead = (uint32_t)(ab - b);
    *(uint32_t *)ab = (total - lead) | USED | PREV_USED;
    *(uint32_t *)b = lead | USED | (*(uint32_t *)b & PREV_USED);
    free(p);
    return (void *)aligned;
}

void *aligned_alloc(size_t alignment, size_t n) { return memalign(alignment, n); }

int posix_memalign(void **out, size_t alignment, size_t n)
{
    void *p = memalign(alignment, n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}
