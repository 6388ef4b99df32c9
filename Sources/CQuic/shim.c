#define _GNU_SOURCE
#include <malloc.h>
#include "CQuic.h"
#include <sys/socket.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(struct cquic_mmsghdr) == sizeof(struct mmsghdr), "mmsghdr mirror size");
_Static_assert(offsetof(struct cquic_mmsghdr, msg_len) == offsetof(struct mmsghdr, msg_len),
               "mmsghdr mirror layout");

ngtcp2_ssize cquic_conn_writev_stream(ngtcp2_conn *conn, ngtcp2_path *path, ngtcp2_pkt_info *pi,
                                      uint8_t *dest, size_t destlen, ngtcp2_ssize *pdatalen,
                                      uint32_t flags, int64_t stream_id, const ngtcp2_vec *datav,
                                      size_t datavcnt, ngtcp2_tstamp ts) {
    return ngtcp2_conn_writev_stream(conn, path, pi, dest, destlen, pdatalen, flags, stream_id,
                                     datav, datavcnt, ts);
}

ngtcp2_ssize cquic_conn_writev_datagram(ngtcp2_conn *conn, ngtcp2_path *path, ngtcp2_pkt_info *pi,
                                        uint8_t *dest, size_t destlen, int *paccepted,
                                        uint32_t flags, uint64_t dgram_id,
                                        const ngtcp2_vec *datav, size_t datavcnt,
                                        ngtcp2_tstamp ts) {
    return ngtcp2_conn_writev_datagram(conn, path, pi, dest, destlen, paccepted, flags, dgram_id,
                                       datav, datavcnt, ts);
}

int cquic_conn_read_pkt(ngtcp2_conn *conn, const ngtcp2_path *path, const ngtcp2_pkt_info *pi,
                        const uint8_t *pkt, size_t pktlen, ngtcp2_tstamp ts) {
    return ngtcp2_conn_read_pkt(conn, path, pi, pkt, pktlen, ts);
}

ngtcp2_ssize cquic_conn_write_connection_close(ngtcp2_conn *conn, ngtcp2_path *path,
                                               ngtcp2_pkt_info *pi, uint8_t *dest, size_t destlen,
                                               const ngtcp2_connection_close_error *ccerr,
                                               ngtcp2_tstamp ts) {
    return ngtcp2_conn_write_connection_close(conn, path, pi, dest, destlen, ccerr, ts);
}

// The list links sit in front of each block; two pointers keep malloc's 16-byte alignment.
struct cquic_block {
    struct cquic_block *previous;
    struct cquic_block *next;
};
_Static_assert(sizeof(struct cquic_block) % _Alignof(max_align_t) == 0, "block header alignment");

struct cquic_conn_memory {
    ngtcp2_mem allocator;
    struct cquic_block blocks; // the list's sentinel
    size_t bytes;              // usable bytes of the blocks on the list, for the memory figures
};

static void link_block(cquic_conn_memory *memory, struct cquic_block *block) {
    memory->bytes += malloc_usable_size(block);
    block->previous = &memory->blocks;
    block->next = memory->blocks.next;
    memory->blocks.next->previous = block;
    memory->blocks.next = block;
}

static void unlink_block(cquic_conn_memory *memory, struct cquic_block *block) {
    memory->bytes -= malloc_usable_size(block);
    block->previous->next = block->next;
    block->next->previous = block->previous;
}

static void *tracked_malloc(size_t size, void *user_data) {
    if (size > SIZE_MAX - sizeof(struct cquic_block)) return NULL;
    struct cquic_block *block = malloc(sizeof(struct cquic_block) + size);
    if (block == NULL) return NULL;
    link_block(user_data, block);
    return block + 1;
}

static void tracked_free(void *pointer, void *user_data) {
    if (pointer == NULL) return;
    struct cquic_block *block = (struct cquic_block *)pointer - 1;
    unlink_block(user_data, block);
    free(block);
}

static void *tracked_calloc(size_t count, size_t size, void *user_data) {
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    void *pointer = tracked_malloc(count * size, user_data);
    if (pointer != NULL) memset(pointer, 0, count * size);
    return pointer;
}

static void *tracked_realloc(void *pointer, size_t size, void *user_data) {
    if (pointer == NULL) return tracked_malloc(size, user_data);
    if (size > SIZE_MAX - sizeof(struct cquic_block)) return NULL;
    struct cquic_block *block = (struct cquic_block *)pointer - 1;
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
    return memory;
}

size_t cquic_conn_memory_bytes(const cquic_conn_memory *memory) { return memory->bytes; }

size_t cquic_heap_bytes_in_use(void) { return mallinfo2().uordblks; }

const ngtcp2_mem *cquic_conn_memory_allocator(cquic_conn_memory *memory) { return &memory->allocator; }

size_t cquic_conn_memory_free(cquic_conn_memory *memory) {
    size_t left = 0;
    struct cquic_block *block = memory->blocks.next;
    while (block != &memory->blocks) {
        struct cquic_block *next = block->next;
        free(block);
        block = next;
        left += 1;
    }
    free(memory);
    return left;
}

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

void cquic_settings_default(ngtcp2_settings *settings) { ngtcp2_settings_default(settings); }

void cquic_transport_params_default(ngtcp2_transport_params *params) {
    ngtcp2_transport_params_default(params);
}

void cquic_conn_get_conn_stat(ngtcp2_conn *conn, ngtcp2_conn_stat *cstat) {
    ngtcp2_conn_get_conn_stat(conn, cstat);
}

int cquic_recvmmsg(int fd, struct cquic_mmsghdr *msgs, unsigned int count, int flags) {
    return recvmmsg(fd, (struct mmsghdr *)msgs, count, flags, NULL);
}

int cquic_sendmmsg(int fd, struct cquic_mmsghdr *msgs, unsigned int count, int flags) {
    return sendmmsg(fd, (struct mmsghdr *)msgs, count, flags);
}

int cquic_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags) {
    return accept4(fd, address, length, flags);
}

struct cmsghdr *cquic_cmsg_firsthdr(struct msghdr *msg) { return CMSG_FIRSTHDR(msg); }
struct cmsghdr *cquic_cmsg_nxthdr(struct msghdr *msg, struct cmsghdr *cmsg) {
    return CMSG_NXTHDR(msg, cmsg);
}
unsigned char *cquic_cmsg_data(struct cmsghdr *cmsg) { return CMSG_DATA(cmsg); }
size_t cquic_cmsg_space(size_t length) { return CMSG_SPACE(length); }
size_t cquic_cmsg_len(size_t length) { return CMSG_LEN(length); }

void cquic_gnutls_free(void *pointer) { gnutls_free(pointer); }

unsigned int cquic_gnutls_curve_to_bits(gnutls_ecc_curve_t curve) { return GNUTLS_CURVE_TO_BITS(curve); }
