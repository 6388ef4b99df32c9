#!/usr/bin/env python3
"""Splits a callgrind profile of chat-server into instructions per delivery by what they do.

usage: callgrind_categories.py CALLGRIND_OUT DELIVERIES

ngtcp2's entry points are counted inclusively (what ngtcp2 does when we call it), the crypto
callbacks it makes are taken out of them and shown apart; "ours" is everything else: the engine's
glue, the chat server, the Swift runtime and libc outside ngtcp2's calls.
"""
import re
import subprocess
import sys

path, deliveries = sys.argv[1], int(sys.argv[2])
annotated = subprocess.run(['callgrind_annotate', '--inclusive=yes', path],
                           capture_output=True, text=True, check=True).stdout
inclusive = {}
for line in annotated.splitlines():
    match = re.match(r'\s*([\d,]+)\s+\([^)]*\)\s+\S*:(\S+)', line)
    if match:
        inclusive.setdefault(match.group(2), int(match.group(1).replace(',', '')))


def cost(*names):
    return sum(inclusive.get(name, 0) for name in names)


total = next(int(line.split()[1]) for line in open(path) if line.startswith('totals:'))
encrypt, decrypt, mask = cost('ngtcp2_crypto_encrypt_cb'), cost('ngtcp2_crypto_decrypt_cb'), cost('ngtcp2_crypto_hp_mask_cb')
write = cost('ngtcp2_conn_writev_stream_versioned', 'ngtcp2_conn_writev_datagram_versioned')
read = cost('ngtcp2_conn_read_pkt_versioned')
timers = cost('ngtcp2_conn_handle_expiry', 'ngtcp2_conn_get_expiry')
rows = [
    ('ngtcp2: building packets (without crypto)', write - encrypt - mask / 2),
    ('ngtcp2: reading packets, mostly ACKs (without crypto)', read - decrypt - mask / 2),
    ('ngtcp2: timers (handle_expiry, get_expiry)', timers),
    ('crypto: AEAD and header protection', encrypt + decrypt + mask),
    ('ours: engine glue, chat server, Swift runtime, libc', total - write - read - timers),
]
print('| where | instructions per delivery |')
print('|---|---|')
for name, value in rows:
    print(f'| {name} | {value / deliveries:,.0f} |')
print(f'| total | {total / deliveries:,.0f} |')
