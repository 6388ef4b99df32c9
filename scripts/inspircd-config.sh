#!/usr/bin/env bash
# Writes an InspIRCd 3 configuration for a fair run against chat-server (scripts/bench-irc.sh,
# and the irc-load end-to-end test): TLS on loopback with the given certificate, IRCv3 echo-message,
# message tags and server time, 20 lines of channel history in memory, flood limits out of reach.
# Every setting that differs from InspIRCd's default says why; docs/PERFORMANCE.md has the table.
# Usage: scripts/inspircd-config.sh DIR PORT CERT KEY   (writes DIR/inspircd.conf and DIR/motd.txt;
# the server's pid file and log go to DIR as well)
set -euo pipefail
dir=${1:?usage: inspircd-config.sh DIR PORT CERT KEY}
port=${2:?port}
cert=${3:?certificate}
key=${4:?key}
mkdir -p "$dir"
echo "qchat benchmark server" > "$dir/motd.txt"
cat > "$dir/inspircd.conf" <<EOF
<config format="xml">
<server name="irc.bench" description="qchat benchmark" network="bench">
<admin name="bench" nick="bench" email="bench@localhost">

# Our own files in a temporary folder, instead of /etc/inspircd and /var/run/inspircd.
<pid file="$dir/inspircd.pid">
<log method="file" type="* -USERINPUT -USEROUTPUT" level="default" target="$dir/ircd.log">
<files motd="$dir/motd.txt">

# TLS with GnuTLS, as chat-server: the same ECDSA P-256 certificate chain and CA, TLS 1.3 with
# AES-128-GCM (the cipher chat-server's QUIC negotiates first; the default also offers TLS 1.2
# and other ciphers). No client certificate is asked for (the default asks), as chat-server
# asks for none without --client-ca.
<module name="ssl_gnutls">
<sslprofile name="bench" provider="gnutls" certfile="$cert" keyfile="$key"
            priority="NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM" requestclientcert="no">
# Loopback only, on the benchmark's port (the default listens on every address, 6667 plain).
<bind address="127.0.0.1" port="$port" type="clients" sslprofile="bench">

# IRCv3 as a modern client expects (none is loaded by default): capability negotiation,
# echo-message (the sender's copy is its acknowledgement, as chat-server's ack), message ids
# and server time on every message (chat-server's messages carry id, seq and ts). msgid is
# only sent to clients with the message-tags capability, which ircv3_ctctags provides.
<module name="cap">
<module name="ircv3">
<module name="ircv3_echomessage">
<module name="ircv3_ctctags">
<module name="ircv3_msgid">
<module name="ircv3_servertime">

# Channel history in memory, 20 lines a channel (off by default): chat-server keeps its history in
# memory too (its default, 1,000 events a room).
<module name="chanhistory">
<chanhistory maxlines="20" prefixmsg="no">
# Every new channel gets +H 20:1w (20 lines, kept a week) besides the default "not" (+nt, and
# channel operator status for whoever creates it).
<options defaultmodes="notH 20:1w">

# The benchmark's clients all come from 127.0.0.1:
# threshold, commandrate, fakelag: flood limits out of reach (default: a penalty threshold of 10
# and one command a second, then fake lag: commands held back, which would show as latency), as
# chat-server runs with --flood-burst and --flood-rate raised;
# hardsendq, softsendq, recvq: 1 MiB queues (default 1 MiB, 4 KiB, 4 KiB), so a busy client is
# neither slowed down nor dropped, as chat-server runs with --sendq raised;
# localmax, globalmax, limit: no limit per address or class (default 3 per address), as loopback
# is exempt from chat-server's --max-per-address;
# resolvehostnames: no reverse DNS lookups (default yes), which chat-server never makes.
<connect name="bench" allow="127.0.0.0/8"
         threshold="1000000" commandrate="1000000000" fakelag="no"
         hardsendq="1048576" softsendq="1048576" recvq="1048576"
         localmax="1000000" globalmax="1000000" limit="1000000"
         resolvehostnames="no">

# A thousand clients connect at once: an accept queue of 4096 instead of 128.
<performance somaxconn="4096">
EOF
