#ifndef CQUIC_H
#define CQUIC_H

// The whole C surface of ngtcp2 the engine sees, with GnuTLS's (CGnuTLS, first: its module
// holds GnuTLS's headers, which ngtcp2_crypto_gnutls.h includes again). The system calls are
// CLinux's (Sources/CLinux); everything in Swift above QuicEngine is free of C.
#include <CGnuTLS.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <stdint.h>

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

#endif
