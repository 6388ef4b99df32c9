#define _GNU_SOURCE
#include "CQuic.h"
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// LeakSanitizer scans the heap, stacks and globals for pointers, not memory mapped by hand: the
// pool's chunks hold ngtcp2's objects and the links of each connection's block list, so unless
// they are registered as roots, every malloc'd block reachable only through them looks leaked.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#include <sanitizer/lsan_interface.h>
#define CQUIC_SCANNED_BY_LEAK_CHECKER(region, bytes) __lsan_register_root_region(region, bytes)
#endif
#endif
#ifndef CQUIC_SCANNED_BY_LEAK_CHECKER
#define CQUIC_SCANNED_BY_LEAK_CHECKER(region, bytes) ((void)0)
#endif

// Each block ngtcp2 takes has this header in front: the links of its connection's list and, for a
// block from the page pool, the pages it spans (0: the block came from malloc). Four words keep
// malloc's 16-byte alignment.
struct cquic_block {
    struct cquic_block *previous;
    struct cquic_block *next;
    size_t pages;
    size_t reserved;
};
_Static_assert(sizeof(struct cquic_block) % _Alignof(max_align_t) == 0, "block header alignment");

struct cquic_conn_memory {
    ngtcp2_mem allocator;
    struct cquic_block blocks; // the list's sentinel
    size_t bytes;              // usable bytes of the blocks on the list, for the memory figures
    // While the connection is idle: what its pool blocks' pages held (see "Idle connections"
    // below), their pages handed back; NULL while they are in use.
    unsigned char *set_aside;
};

// --- The page pool.
// ngtcp2 carves most of a connection's state out of blocks of 4 to 12 KB (its object pools and
// skip-list node blocks) that it fills from the front as it needs objects; an idle connection uses
// the first few hundred bytes of most of them. From malloc such a block is resident whole (the heap
// reuses pages earlier connections touched). From the pool each block starts on its own fresh
// pages, which the kernel backs only when written: the untouched rest of the block costs no memory.
// A freed slot is handed back to the kernel (MADV_DONTNEED) before it is reused, so it starts
// unbacked again. Slots of 1 to largest_slot_pages
// pages, never split or merged: ngtcp2 asks for a handful of fixed sizes. Slots are cut from
// chunks mapped once and never unmapped (their freed slots are unbacked, so they cost address
// space only); adjacent chunks merge into one mapping, so connections add no mappings.
enum { page_bytes = 4096, largest_slot_pages = 16, chunk_bytes = 4 << 20 };

struct slot_stack {
    void **slots;
    size_t count;
    size_t capacity;
};

static struct {
    pthread_mutex_t lock; // endpoints on several threads share the pool
    int usable;           // 1 when the system's pages are page_bytes, -1 when not, 0 before the check
    uint8_t *uncut;       // the newest chunk's part not yet cut into slots
    uint8_t *uncut_end;
    struct slot_stack free_slots[largest_slot_pages + 1]; // by page count
    struct slot_stack chunks;                             // every chunk mapped, for the figures
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

static size_t pages_for(size_t bytes) { return (bytes + page_bytes - 1) / page_bytes; }

// Pushes `slot`; 0 when there is no memory to remember it. Called with the lock held.
static int push_locked(struct slot_stack *stack, void *slot) {
    if (stack->count == stack->capacity) {
        size_t capacity = stack->capacity == 0 ? 64 : stack->capacity * 2;
        void **grown = realloc(stack->slots, capacity * sizeof(void *));
        if (grown == NULL) return 0;
        stack->slots = grown;
        stack->capacity = capacity;
    }
    stack->slots[stack->count++] = slot;
    return 1;
}

// A slot of `pages` pages, or NULL (then the block comes from malloc). Called with the lock held.
static void *take_slot_locked(size_t pages) {
    if (pool.usable == 0) pool.usable = sysconf(_SC_PAGESIZE) == page_bytes ? 1 : -1;
    if (pool.usable < 0) return NULL;
    struct slot_stack *stack = &pool.free_slots[pages];
    if (stack->count > 0) return stack->slots[--stack->count];
    size_t bytes = pages * page_bytes;
    if ((size_t)(pool.uncut_end - pool.uncut) < bytes) {
        void *chunk = mmap(NULL, chunk_bytes, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (chunk == MAP_FAILED) return NULL;
        if (!push_locked(&pool.chunks, chunk)) {
            munmap(chunk, chunk_bytes);
            return NULL;
        }
        // A transparent huge page would back 2 MB at the first write and defeat the pool.
        madvise(chunk, chunk_bytes, MADV_NOHUGEPAGE);
        CQUIC_SCANNED_BY_LEAK_CHECKER(chunk, chunk_bytes);
        pool.uncut = chunk;
        pool.uncut_end = pool.uncut + chunk_bytes;
    }
    void *slot = pool.uncut;
    pool.uncut += bytes;
    return slot;
}

static void *take_slot(size_t pages) {
    pthread_mutex_lock(&pool.lock);
    void *slot = take_slot_locked(pages);
    pthread_mutex_unlock(&pool.lock);
    return slot;
}

static void give_slot(void *slot, size_t pages) {
    madvise(slot, pages * page_bytes, MADV_DONTNEED);
    pthread_mutex_lock(&pool.lock);
    // Without memory to remember it the slot stays out of use: address space, not memory.
    (void)push_locked(&pool.free_slots[pages], slot);
    pthread_mutex_unlock(&pool.lock);
}

size_t cquic_page_pool_resident_bytes(void) {
    static unsigned char residency[chunk_bytes / page_bytes];
    size_t pages = 0;
    pthread_mutex_lock(&pool.lock);
    for (size_t index = 0; index < pool.chunks.count; index += 1) {
        if (mincore(pool.chunks.slots[index], chunk_bytes, residency) != 0) continue;
        for (size_t page = 0; page < sizeof(residency); page += 1) pages += residency[page] & 1;
    }
    pthread_mutex_unlock(&pool.lock);
    return pages * page_bytes;
}

// --- One connection's blocks.

static size_t usable_bytes(struct cquic_block *block) {
    return block->pages > 0 ? block->pages * page_bytes - sizeof(struct cquic_block)
                            : malloc_usable_size(block) - sizeof(struct cquic_block);
}

static void link_block(cquic_conn_memory *memory, struct cquic_block *block) {
    memory->bytes += usable_bytes(block);
    block->previous = &memory->blocks;
    block->next = memory->blocks.next;
    memory->blocks.next->previous = block;
    memory->blocks.next = block;
}

static void unlink_block(cquic_conn_memory *memory, struct cquic_block *block) {
    memory->bytes -= usable_bytes(block);
    block->previous->next = block->next;
    block->next->previous = block->previous;
}

static void release_block(struct cquic_block *block) {
    if (block->pages > 0) {
        give_slot(block, block->pages);
    } else {
        free(block);
    }
}

// A block with room for `size` bytes after its header.
static struct cquic_block *new_block(size_t size) {
    if (size > SIZE_MAX - sizeof(struct cquic_block)) return NULL;
    size_t total = sizeof(struct cquic_block) + size;
    size_t pages = pages_for(total);
    // Below a page a block shares its pages anyway; above the largest slot malloc maps it itself.
    if (total >= page_bytes && pages <= largest_slot_pages) {
        struct cquic_block *block = take_slot(pages);
        if (block != NULL) {
            block->pages = pages;
            return block;
        }
    }
    struct cquic_block *block = malloc(total);
    if (block == NULL) return NULL;
    block->pages = 0;
    return block;
}

static void *tracked_malloc(size_t size, void *user_data) {
    struct cquic_block *block = new_block(size);
    if (block == NULL) return NULL;
    link_block(user_data, block);
    return block + 1;
}

static void tracked_free(void *pointer, void *user_data) {
    if (pointer == NULL) return;
    struct cquic_block *block = (struct cquic_block *)pointer - 1;
    unlink_block(user_data, block);
    release_block(block);
}

// ngtcp2 clears with calloc only what it fills whole (the connection itself, 8.4 KB): that comes
// from malloc, packed, rather than on pages of its own that it would back entirely anyway.
static void *tracked_calloc(size_t count, size_t size, void *user_data) {
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    size_t total = count * size;
    if (total > SIZE_MAX - sizeof(struct cquic_block)) return NULL;
    struct cquic_block *block = malloc(sizeof(struct cquic_block) + total);
    if (block == NULL) return NULL;
    block->pages = 0;
    memset(block + 1, 0, total);
    link_block(user_data, block);
    return block + 1;
}

static void *tracked_realloc(void *pointer, size_t size, void *user_data) {
    if (pointer == NULL) return tracked_malloc(size, user_data);
    if (size > SIZE_MAX - sizeof(struct cquic_block)) return NULL;
    struct cquic_block *block = (struct cquic_block *)pointer - 1;
    if (block->pages > 0) {
        void *moved = tracked_malloc(size, user_data);
        if (moved == NULL) return NULL;
        size_t kept = usable_bytes(block);
        memcpy(moved, pointer, kept < size ? kept : size);
        tracked_free(pointer, user_data);
        return moved;
    }
    unlink_block(user_data, block);
    struct cquic_block *moved = realloc(block, sizeof(struct cquic_block) + size);
    if (moved == NULL) {
        link_block(user_data, block);
        return NULL;
    }
    link_block(user_data, moved);
    return moved + 1;
}

cquic_conn_memory *cquic_conn_memory_new(void) {
    cquic_conn_memory *memory = malloc(sizeof(cquic_conn_memory));
    if (memory == NULL) return NULL;
    memory->allocator = (ngtcp2_mem){memory, tracked_malloc, tracked_free, tracked_calloc, tracked_realloc};
    memory->blocks.previous = &memory->blocks;
    memory->blocks.next = &memory->blocks;
    memory->bytes = 0;
    memory->set_aside = NULL;
    return memory;
}

size_t cquic_conn_memory_bytes(const cquic_conn_memory *memory) { return memory->bytes; }

size_t cquic_heap_bytes_in_use(void) { return mallinfo2().uordblks; }

const ngtcp2_mem *cquic_conn_memory_allocator(cquic_conn_memory *memory) { return &memory->allocator; }

size_t cquic_conn_memory_free(cquic_conn_memory *memory) {
    cquic_conn_memory_restore(memory);
    size_t left = 0;
    struct cquic_block *block = memory->blocks.next;
    while (block != &memory->blocks) {
        struct cquic_block *next = block->next;
        release_block(block);
        block = next;
        left += 1;
    }
    free(memory);
    return left;
}

// --- Idle connections.
// An idle connection's pool blocks have their first page or two written: a block header, the
// first few objects, the first node of a skip list; the rest of each page is zeros. Set aside,
// the written runs of those pages are copied into one compact heap buffer (a few hundred bytes a
// block instead of a page) and the pages handed back to the kernel; restored, the runs are copied
// back to the same addresses, which read zeros everywhere else as before. Nothing may read or
// write the blocks in between (the block headers of the list are on those pages too): the
// connection restores before any call into ngtcp2.

// A run of written bytes in the set-aside buffer: where it goes, its length (a multiple of the
// granule), then the bytes. The buffer ends with a run at NULL.
struct written_run {
    unsigned char *at;
    size_t length;
};
enum { granule = sizeof(struct written_run), joined_gap = 2 * granule };
_Static_assert(page_bytes % granule == 0, "granules tile a page");

struct set_aside_buffer {
    unsigned char *bytes;
    size_t length;
    size_t capacity;
};

static int reserve(struct set_aside_buffer *buffer, size_t more) {
    if (buffer->capacity - buffer->length >= more) return 1;
    size_t capacity = buffer->capacity == 0 ? 4096 : buffer->capacity;
    while (capacity - buffer->length < more) capacity *= 2;
    unsigned char *grown = realloc(buffer->bytes, capacity);
    if (grown == NULL) return 0;
    buffer->bytes = grown;
    buffer->capacity = capacity;
    return 1;
}

static int append_run(struct set_aside_buffer *buffer, unsigned char *at, size_t length) {
    if (!reserve(buffer, sizeof(struct written_run) + length)) return 0;
    struct written_run run = {at, length};
    memcpy(buffer->bytes + buffer->length, &run, sizeof(run));
    memcpy(buffer->bytes + buffer->length + sizeof(run), at, length);
    buffer->length += sizeof(run) + length;
    return 1;
}

static int is_zero_granule(const unsigned char *at) {
    uint64_t words[granule / sizeof(uint64_t)];
    memcpy(words, at, granule);
    uint64_t any = 0;
    for (size_t index = 0; index < granule / sizeof(uint64_t); index += 1) any |= words[index];
    return any == 0;
}

// Appends the written runs of one page (gaps shorter than a run's header join their runs).
static int append_page(struct set_aside_buffer *buffer, unsigned char *page) {
    size_t run_start = 0, run_end = 0; // [start, end) of the open run; empty when equal
    for (size_t offset = 0; offset < page_bytes; offset += granule) {
        if (is_zero_granule(page + offset)) continue;
        if (run_end > run_start && offset - run_end >= joined_gap) {
            if (!append_run(buffer, page + run_start, run_end - run_start)) return 0;
            run_start = offset;
        } else if (run_end == run_start) {
            run_start = offset;
        }
        run_end = offset + granule;
    }
    return run_end > run_start ? append_run(buffer, page + run_start, run_end - run_start) : 1;
}

// The scratch buffer set-asides are gathered in is kept by each thread from one call to the next
// (a realloc per set-aside would cost more than the copy); a thread that ends frees it.
static pthread_key_t scratch_key;
static pthread_once_t scratch_key_once = PTHREAD_ONCE_INIT;
static _Atomic size_t scratch_buffers;
static void free_scratch(void *bytes) {
    free(bytes);
    atomic_fetch_sub(&scratch_buffers, 1);
}
static void make_scratch_key(void) { pthread_key_create(&scratch_key, free_scratch); }

size_t cquic_conn_memory_scratch_buffers(void) { return atomic_load(&scratch_buffers); }

static size_t set_aside_through(cquic_conn_memory *memory, struct set_aside_buffer *scratch);

size_t cquic_conn_memory_set_aside(cquic_conn_memory *memory) {
    if (memory->set_aside != NULL) return 0;
    static __thread struct set_aside_buffer buffer;
    int had = buffer.bytes != NULL;
    size_t bytes = set_aside_through(memory, &buffer);
    int has = buffer.bytes != NULL;
    if (has && !had) atomic_fetch_add(&scratch_buffers, 1);
    if (had && !has) atomic_fetch_sub(&scratch_buffers, 1);
    pthread_once(&scratch_key_once, make_scratch_key);
    pthread_setspecific(scratch_key, buffer.bytes);
    return bytes;
}

static size_t set_aside_through(cquic_conn_memory *memory, struct set_aside_buffer *scratch) {
    struct set_aside_buffer buffer = *scratch;
    size_t bytes = 0;
    static __thread unsigned char residency[largest_slot_pages];
    buffer.length = 0;
    size_t resident = 0;
    struct cquic_block *block;
    for (block = memory->blocks.next; block != &memory->blocks; block = block->next) {
        if (block->pages == 0) continue;
        if (mincore(block, block->pages * page_bytes, residency) != 0) goto done;
        for (size_t page = 0; page < block->pages; page += 1) {
            if ((residency[page] & 1) == 0) continue;
            resident += 1;
            if (!append_page(&buffer, (unsigned char *)block + page * page_bytes)) goto done;
        }
    }
    if (resident == 0) goto done;
    struct written_run end = {NULL, 0};
    if (!reserve(&buffer, sizeof(end))) goto done;
    memcpy(buffer.bytes + buffer.length, &end, sizeof(end));
    buffer.length += sizeof(end);
    unsigned char *kept = malloc(buffer.length);
    if (kept == NULL) goto done;
    memcpy(kept, buffer.bytes, buffer.length);
    // Every page copied: now they can go (a block's links are on its first page).
    block = memory->blocks.next;
    while (block != &memory->blocks) {
        struct cquic_block *next = block->next;
        if (block->pages > 0) madvise(block, block->pages * page_bytes, MADV_DONTNEED);
        block = next;
    }
    memory->set_aside = kept;
    bytes = resident * page_bytes;
done:
    // A large buffer once is not kept for every later, small one.
    if (buffer.capacity > 64 * 1024) {
        free(buffer.bytes);
        buffer = (struct set_aside_buffer){0};
    }
    *scratch = buffer;
    return bytes;
}

void cquic_conn_memory_restore(cquic_conn_memory *memory) {
    if (memory->set_aside == NULL) return;
    const unsigned char *cursor = memory->set_aside;
    for (;;) {
        struct written_run run;
        memcpy(&run, cursor, sizeof(run));
        if (run.at == NULL) break;
        memcpy(run.at, cursor + sizeof(run), run.length);
        cursor += sizeof(run) + run.length;
    }
    free(memory->set_aside);
    memory->set_aside = NULL;
}

int cquic_conn_memory_is_set_aside(const cquic_conn_memory *memory) { return memory->set_aside != NULL; }

int cquic_conn_client_new(ngtcp2_conn **pconn, const ngtcp2_cid *dcid, const ngtcp2_cid *scid,
                          const ngtcp2_path *path, uint32_t version,
                          const ngtcp2_callbacks *callbacks, const ngtcp2_settings *settings,
                          const ngtcp2_transport_params *params, cquic_conn_memory *memory,
                          void *user_data) {
    return ngtcp2_conn_client_new(pconn, dcid, scid, path, version, callbacks, settings, params,
                                  &memory->allocator, user_data);
}

int cquic_conn_server_new(ngtcp2_conn **pconn, const ngtcp2_cid *dcid, const ngtcp2_cid *scid,
                          const ngtcp2_path *path, uint32_t version,
                          const ngtcp2_callbacks *callbacks, const ngtcp2_settings *settings,
                          const ngtcp2_transport_params *params, cquic_conn_memory *memory,
                          void *user_data) {
    return ngtcp2_conn_server_new(pconn, dcid, scid, path, version, callbacks, settings, params,
                                  &memory->allocator, user_data);
}
