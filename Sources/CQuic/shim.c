#define _GNU_SOURCE
#include "CQuic.h"
#include <sys/socket.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
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

int cquic_enable_socket_errors(int fd, int ipv6) {
    int on = 1;
    if (ipv6 && setsockopt(fd, IPPROTO_IPV6, IPV6_RECVERR, &on, sizeof on) != 0) return -1;
    // An IPv6 socket also carries IPv4-mapped traffic, whose errors come as IP_RECVERR.
    if (setsockopt(fd, IPPROTO_IP, IP_RECVERR, &on, sizeof on) != 0 && !ipv6) return -1;
    return 0;
}

int cquic_read_socket_error(int fd, struct sockaddr_storage *peer, int *code, int *from_icmp) {
    char data[64];
    char control[512];
    struct iovec vector = {.iov_base = data, .iov_len = sizeof data};
    struct msghdr message = {0};
    message.msg_name = peer;
    message.msg_namelen = sizeof *peer;
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    memset(peer, 0, sizeof *peer);
    if (recvmsg(fd, &message, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    }
    *code = 0;
    *from_icmp = 0;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if ((header->cmsg_level == IPPROTO_IP && header->cmsg_type == IP_RECVERR) ||
            (header->cmsg_level == IPPROTO_IPV6 && header->cmsg_type == IPV6_RECVERR)) {
            struct sock_extended_err error;
            memcpy(&error, CMSG_DATA(header), sizeof error);
            *code = (int)error.ee_errno;
            *from_icmp = error.ee_origin == SO_EE_ORIGIN_ICMP || error.ee_origin == SO_EE_ORIGIN_ICMP6;
        }
    }
    return 1;
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
