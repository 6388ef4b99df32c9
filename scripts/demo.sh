#!/usr/bin/env bash
# `make demo`: starts chat-server on HOST:PORT unless one already listens there, then runs the bots
# of scripts/demo.bot in #lobby until Ctrl-C (which also stops a server started here).
set -euo pipefail
cd "$(dirname "$0")/.."
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-4433}
BIN=${BIN:-.build/release}

udp_port_bound() { awk -v p="$(printf ':%04X' "$1")" '$2 ~ p"$" {found=1} END {exit !found}' /proc/net/udp /proc/net/udp6; }

server_pid=""
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; true' EXIT
if udp_port_bound "$PORT"; then
    echo "demo: using the server already on port $PORT"
else
    "$BIN/chat-server" --host "$HOST" --port "$PORT" --cert certs/server.pem --key certs/server.key > .build/demo-server.log 2>&1 &
    server_pid=$!
    for _ in $(seq 100); do udp_port_bound "$PORT" && break; sleep 0.05; done
    echo "demo: started chat-server on $HOST:$PORT (log in .build/demo-server.log)"
fi
echo "demo: bots ada, grace and linus are chatting in #lobby; watch with: $BIN/chat-client --nick you"
echo "demo: Ctrl-C stops them"
status=0
"$BIN/chat-bot" script scripts/demo.bot --host "$HOST" --port "$PORT" --ca certs/ca.pem || status=$?
# 130 is Ctrl-C, the way a demo ends.
[ "$status" -eq 130 ] && status=0
exit "$status"
