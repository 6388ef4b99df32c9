#!/usr/bin/env python3
"""Splits a perf profile (cpu-clock samples with call graphs) of chat-server into µs per delivery.

usage: perf_categories.py CHILDREN_REPORT DSO_REPORT US_PER_DELIVERY

CHILDREN_REPORT is `perf report --children --sort sym -g none`, DSO_REPORT `perf report
--no-children --sort dso -g none`; US_PER_DELIVERY the server's CPU per delivery over the same
stretch. On loopback the kernel's send includes delivering the datagram to the receiving socket.
"""
import re
import sys

children_path, dso_path, us = sys.argv[1], sys.argv[2], float(sys.argv[3])


def children(symbol):
    for line in open(children_path):
        match = re.match(r'\s*([\d.]+)%\s+([\d.]+)%\s+\[[k.]\]\s+(\S+)', line)
        if match and match.group(3) == symbol:
            return float(match.group(1))
    return 0.0


by_object = {}
for line in open(dso_path):
    match = re.match(r'\s*([\d.]+)%\s+(\S+)', line)
    if match:
        by_object[match.group(2)] = float(match.group(1))

send = children('__x64_sys_sendmmsg') + children('__x64_sys_sendmsg')
receive = children('__x64_sys_recvmmsg')
wait = children('__x64_sys_epoll_pwait2') + children('__x64_sys_epoll_wait')
timer = children('__x64_sys_timerfd_settime') + children('__x64_sys_read')
kernel = by_object.get('[kernel.kallsyms]', 0.0)
crypto = sum(share for name, share in by_object.items() if any(lib in name for lib in ('gnutls', 'nettle', 'hogweed', 'gmp')))
ngtcp2 = sum(share for name, share in by_object.items() if 'ngtcp2' in name)
ours = sum(by_object.get(name, 0.0) for name in ('chat-server', 'libswiftCore.so', 'libc.so.6', '[vdso]'))
rows = [
    ('kernel: send (sendmmsg, with loopback delivery)', send),
    ('kernel: receive (recvmmsg)', receive),
    ('kernel: waiting and waking (epoll)', wait),
    ('kernel: timerfd', timer),
    ('kernel: other', kernel - send - receive - wait - timer),
    ('ngtcp2', ngtcp2),
    ('crypto (GnuTLS, Nettle)', crypto),
    ('ours (chat-server, Swift runtime, libc)', ours),
]
print('| where | share of samples | µs per delivery |')
print('|---|---|---|')
for name, share in rows:
    print(f'| {name} | {share:.1f}% | {share * us / 100:.2f} |')
print(f'| total | | {us:.2f} |')
