#define _GNU_SOURCE
#include "CLinux.h"
#include <errno.h>
#include <linux/errqueue.h>
#include <malloc.h>
#include <string.h>

_Static_assert(sizeof(struct clinux_mmsghdr) == sizeof(struct mmsghdr), "mmsghdr mirror size");
_Static_assert(offsetof(struct clinux_mmsghdr, msg_len) == offsetof(struct mmsghdr, msg_len),
               "mmsghdr mirror layout");

int clinux_recvmmsg(int fd, struct clinux_mmsghdr *msgs, unsigned int count, int flags) {
    return recvmmsg(fd, (struct mmsghdr *)msgs, count, flags, NULL);
}

int clinux_sendmmsg(int fd, struct clinux_mmsghdr *msgs, unsigned int count, int flags) {
    return sendmmsg(fd, (struct mmsghdr *)msgs, count, flags);
}

int clinux_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags) {
    return accept4(fd, address, length, flags);
}

int clinux_enable_socket_errors(int fd, int ipv6) {
    int on = 1;
    if (ipv6 && setsockopt(fd, IPPROTO_IPV6, IPV6_RECVERR, &on, sizeof on) != 0) return -1;
    // An IPv6 socket also carries IPv4-mapped traffic, whose errors come as IP_RECVERR.
    if (setsockopt(fd, IPPROTO_IP, IP_RECVERR, &on, sizeof on) != 0 && !ipv6) return -1;
    return 0;
}

int clinux_read_socket_error(int fd, struct sockaddr_storage *peer, int *code, int *from_icmp) {
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

struct cmsghdr *clinux_cmsg_firsthdr(struct msghdr *msg) { return CMSG_FIRSTHDR(msg); }
struct cmsghdr *clinux_cmsg_nxthdr(struct msghdr *msg, struct cmsghdr *cmsg) {
    return CMSG_NXTHDR(msg, cmsg);
}
unsigned char *clinux_cmsg_data(struct cmsghdr *cmsg) { return CMSG_DATA(cmsg); }
size_t clinux_cmsg_space(size_t length) { return CMSG_SPACE(length); }
size_t clinux_cmsg_len(size_t length) { return CMSG_LEN(length); }

size_t clinux_heap_bytes_in_use(void) { return mallinfo2().uordblks; }
