#ifndef CLINUX_H
#define CLINUX_H

// The system calls Swift's Glibc module does not give us, as the runtime's one C boundary with
// the kernel: epoll, eventfd and signalfd (their headers are not in the module), the _GNU_SOURCE
// calls (recvmmsg, sendmmsg, accept4), the socket error queue and the CMSG_* macros. Nothing
// above the runtime (Sources/EventRuntime, Sources/QuicIO) sees these names.
#include <sys/socket.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/eventfd.h>

// Linux batching calls: glibc declares `struct mmsghdr`, recvmmsg and sendmmsg only under
// _GNU_SOURCE, which Swift's Glibc module is not built with. This mirror has the same layout
// (checked by _Static_assert in shim.c).
struct clinux_mmsghdr {
    struct msghdr msg_hdr;
    unsigned int msg_len;
};
int clinux_recvmmsg(int fd, struct clinux_mmsghdr *msgs, unsigned int count, int flags);
int clinux_sendmmsg(int fd, struct clinux_mmsghdr *msgs, unsigned int count, int flags);
// accept4 (non-blocking and close-on-exec in the same call) is _GNU_SOURCE too.
int clinux_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

// ICMP errors for what a UDP socket sent (ip(7) IP_RECVERR, ipv6(7) IPV6_RECVERR): on, then read
// from the socket's error queue one at a time. clinux_read_socket_error returns 1 with the
// original destination in `peer` and the error's errno in `code` (ECONNREFUSED for a port
// unreachable) and whether the error came from an ICMP message in `from_icmp`; 0 when the queue
// is empty; -1 on another failure (errno set).
int clinux_enable_socket_errors(int fd, int ipv6);
int clinux_read_socket_error(int fd, struct sockaddr_storage *peer, int *code, int *from_icmp);

// CMSG_* are macros.
struct cmsghdr *clinux_cmsg_firsthdr(struct msghdr *msg);
struct cmsghdr *clinux_cmsg_nxthdr(struct msghdr *msg, struct cmsghdr *cmsg);
unsigned char *clinux_cmsg_data(struct cmsghdr *cmsg);
size_t clinux_cmsg_space(size_t length);
size_t clinux_cmsg_len(size_t length);

// mallinfo2().uordblks: bytes the process's heap has handed out (malloc.h is not in Swift's Glibc).
size_t clinux_heap_bytes_in_use(void);

#endif
