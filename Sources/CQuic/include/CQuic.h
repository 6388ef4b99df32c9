#ifndef CQUIC_H
#define CQUIC_H

// The whole C surface the engine sees. Everything else in Swift above QuicEngine is free of C.
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <gnutls/crypto.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/eventfd.h>

// ngtcp2 0.12 exposes these as function-like macros over *_versioned functions; Swift imports no
// function-like macro, so each gets a one-line forwarder with the `cquic_` prefix.
ngtcp2_ssize cquic_conn_writev_stream(ngtcp2_conn *conn, ngtcp2_path *path, ngtcp2_pkt_info *pi,
                                      uint8_t *dest, size_t destlen, ngtcp2_ssize *pdatalen,
                                      uint32_t flags, int64_t stream_id, const ngtcp2_vec *datav,
                                      size_t datavcnt, ngtcp2_tstamp ts);
ngtcp2_ssize cquic_conn_writev_datagram(ngtcp2_conn *conn, ngtcp2_path *path, ngtcp2_pkt_info *pi,
                                        uint8_t *dest, size_t destlen, int *paccepted,
                                        uint32_t flags, uint64_t dgram_id,
                                        const ngtcp2_vec *datav, size_t datavcnt,
                                        ngtcp2_tstamp ts);
int cquic_conn_read_pkt(ngtcp2_conn *conn, const ngtcp2_path *path, const ngtcp2_pkt_info *pi,
                        const uint8_t *pkt, size_t pktlen, ngtcp2_tstamp ts);
ngtcp2_ssize cquic_conn_write_connection_close(ngtcp2_conn *conn, ngtcp2_path *path,
                                               ngtcp2_pkt_info *pi, uint8_t *dest, size_t destlen,
                                               const ngtcp2_connection_close_error *ccerr,
                                               ngtcp2_tstamp ts);

// One connection's allocator: every block ngtcp2 takes through it is on a list, and
// cquic_conn_memory_free, called after ngtcp2_conn_del, frees whatever ngtcp2 did not. ngtcp2
// 0.12.1 (Debian bookworm) loses STREAM and CRYPTO frames that it malloc'd with many data vectors
// once a merge shrinks them (upstream issue #1244, fixed in 1.6.0): a few hundred bytes per
// connection that retransmitted, for as long as a server runs. Used on the connection's thread only.
typedef struct cquic_conn_memory cquic_conn_memory;
cquic_conn_memory *cquic_conn_memory_new(void);
const ngtcp2_mem *cquic_conn_memory_allocator(cquic_conn_memory *memory);
// Frees the remaining blocks and the allocator; returns how many blocks were left.
size_t cquic_conn_memory_free(cquic_conn_memory *memory);
// Bytes ngtcp2 holds through this allocator now (usable sizes of its blocks).
size_t cquic_conn_memory_bytes(const cquic_conn_memory *memory);

// An idle connection's pool pages copied compactly onto the heap and handed back to the kernel;
// returns the resident bytes handed back (0: nothing set aside, e.g. already). Until
// cquic_conn_memory_restore, nothing may touch the connection's ngtcp2 state.
size_t cquic_conn_memory_set_aside(cquic_conn_memory *memory);
// Puts back what cquic_conn_memory_set_aside copied out (nothing when nothing is set aside).
void cquic_conn_memory_restore(cquic_conn_memory *memory);
int cquic_conn_memory_is_set_aside(const cquic_conn_memory *memory);
// Scratch buffers threads keep between set-asides: one per thread that has set memory aside,
// freed when the thread ends.
size_t cquic_conn_memory_scratch_buffers(void);

// The resident part of the pages ngtcp2's larger blocks take (conn_memory.c's page pool), all
// connections of the process together.
size_t cquic_page_pool_resident_bytes(void);

// mallinfo2().uordblks: bytes the process's heap has handed out (malloc.h is not in Swift's Glibc).
size_t cquic_heap_bytes_in_use(void);

int cquic_conn_client_new(ngtcp2_conn **pconn, const ngtcp2_cid *dcid, const ngtcp2_cid *scid,
                          const ngtcp2_path *path, uint32_t version,
                          const ngtcp2_callbacks *callbacks, const ngtcp2_settings *settings,
                          const ngtcp2_transport_params *params, cquic_conn_memory *memory,
                          void *user_data);
int cquic_conn_server_new(ngtcp2_conn **pconn, const ngtcp2_cid *dcid, const ngtcp2_cid *scid,
                          const ngtcp2_path *path, uint32_t version,
                          const ngtcp2_callbacks *callbacks, const ngtcp2_settings *settings,
                          const ngtcp2_transport_params *params, cquic_conn_memory *memory,
                          void *user_data);
void cquic_settings_default(ngtcp2_settings *settings);
void cquic_transport_params_default(ngtcp2_transport_params *params);
void cquic_conn_get_conn_stat(ngtcp2_conn *conn, ngtcp2_conn_stat *cstat);

// Computed constant macros do not import; these enums carry their values.
enum { CQUIC_MAX_RETRY_TOKENLEN = NGTCP2_CRYPTO_MAX_RETRY_TOKENLEN };

// gnutls_free is a macro over a global function pointer, which Swift 6 sees as shared mutable state.
void cquic_gnutls_free(void *pointer);

// GNUTLS_CURVE_TO_BITS is a function-like macro: the `bits` argument that asks
// gnutls_x509_privkey_generate for a key on `curve`.
unsigned int cquic_gnutls_curve_to_bits(gnutls_ecc_curve_t curve);

// Linux batching calls: glibc declares `struct mmsghdr`, recvmmsg and sendmmsg only under
// _GNU_SOURCE, which Swift's Glibc module is not built with. This mirror has the same layout
// (checked by _Static_assert in shim.c).
struct cquic_mmsghdr {
    struct msghdr msg_hdr;
    unsigned int msg_len;
};
int cquic_recvmmsg(int fd, struct cquic_mmsghdr *msgs, unsigned int count, int flags);
int cquic_sendmmsg(int fd, struct cquic_mmsghdr *msgs, unsigned int count, int flags);
// accept4 (non-blocking and close-on-exec in the same call) is _GNU_SOURCE too.
int cquic_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

// ICMP errors for what a UDP socket sent (ip(7) IP_RECVERR, ipv6(7) IPV6_RECVERR): on, then read
// from the socket's error queue one at a time. cquic_read_socket_error returns 1 with the original
// destination in `peer` and the error's errno in `code` (ECONNREFUSED for a port unreachable) and
// whether the error came from an ICMP message in `from_icmp`; 0 when the queue is empty; -1 on
// another failure (errno set).
int cquic_enable_socket_errors(int fd, int ipv6);
int cquic_read_socket_error(int fd, struct sockaddr_storage *peer, int *code, int *from_icmp);

// CMSG_* are macros.
struct cmsghdr *cquic_cmsg_firsthdr(struct msghdr *msg);
struct cmsghdr *cquic_cmsg_nxthdr(struct msghdr *msg, struct cmsghdr *cmsg);
unsigned char *cquic_cmsg_data(struct cmsghdr *cmsg);
size_t cquic_cmsg_space(size_t length);
size_t cquic_cmsg_len(size_t length);

#endif
