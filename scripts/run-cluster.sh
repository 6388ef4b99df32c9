#!/usr/bin/env bash
# `make run-cluster`: one chat system of three chat-server nodes (PORTS, default 4433 4434 4435)
# on a local redis-server (REDIS_PORT, default 6390) with AOF on and `appendfsync always`, its
# data in STATE/redis (default .build/run-cluster), the shared files' bytes in STATE/files (one
# folder for all nodes; the files' records are in Redis). Every line of output is prefixed with
# the process it comes from. Ctrl-C (or any node exiting) stops the nodes first, so that their
# users' `left` events are stored, then Redis with a clean SHUTDOWN. Node N serves its metrics on
# 127.0.0.1:METRICS_BASE+N; BIN, CERT and KEY name the binaries and the certificate.
# docs/CLUSTER.md; README "Running several nodes".
set -euo pipefail
cd "$(dirname "$0")/.."
HOST=${HOST:-127.0.0.1}
PORTS=${PORTS:-4433 4434 4435}
REDIS_PORT=${REDIS_PORT:-6390}
# Node N's metrics on METRICS_BASE + N (9465, 9466, 9467 by default), on loopback.
METRICS_BASE=${METRICS_BASE:-9464}
STATE=${STATE:-.build/run-cluster}
BIN=${BIN:-.build/release}
CERT=${CERT:-certs/server.pem}
KEY=${KEY:-certs/server.key}

tcp_port_bound() { awk -v p="$(printf ':%04X' "$1")" '$2 ~ p"$" && $4 == "0A" {found=1} END {exit !found}' /proc/net/tcp /proc/net/tcp6; }
udp_port_bound() { awk -v p="$(printf ':%04X' "$1")" '$2 ~ p"$" {found=1} END {exit !found}' /proc/net/udp /proc/net/udp6; }
# Each line of a process's output (stdout and stderr) with its name in front, as it comes. The
# terminal's Ctrl-C must not end it before the process it reads from has said its last.
prefixed() { trap '' INT; exec sed -u "s/^/[$1] /"; }

if tcp_port_bound "$REDIS_PORT"; then
    echo "run-cluster: TCP port $REDIS_PORT is taken; choose another with REDIS_PORT=..." >&2
    exit 1
fi
for port in $PORTS; do
    if udp_port_bound "$port"; then
        echo "run-cluster: UDP port $port is taken (a server already running?); choose others with PORTS=..." >&2
        exit 1
    fi
done
count=0
for port in $PORTS; do
    count=$((count + 1))
    if tcp_port_bound "$((METRICS_BASE + count))"; then
        echo "run-cluster: TCP port $((METRICS_BASE + count)) (node$count's metrics) is taken; choose others with METRICS_BASE=..." >&2
        exit 1
    fi
done
mkdir -p "$STATE/redis" "$STATE/files"

redis_pid=""
node_pids=()
stopping=0
stop_all() {
    [ "$stopping" -eq 1 ] && return
    stopping=1
    trap '' INT TERM
    echo "run-cluster: stopping the nodes"
    for pid in "${node_pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${node_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    if [ -n "$redis_pid" ] && kill -0 "$redis_pid" 2>/dev/null; then
        echo "run-cluster: stopping redis-server"
        redis-cli -h 127.0.0.1 -p "$REDIS_PORT" shutdown >/dev/null 2>&1 || kill -TERM "$redis_pid" 2>/dev/null || true
        wait "$redis_pid" 2>/dev/null || true
    fi
}
trap 'stop_all; exit 130' INT TERM
trap 'stop_all' EXIT

# Redis in a session of its own: the terminal's Ctrl-C reaches the nodes (which stop at once) but
# not Redis, which must outlive them to store their last events.
setsid redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$STATE/redis" --daemonize no --save "" \
    --appendonly yes --appendfsync always --protected-mode yes --logfile "" \
    > >(prefixed redis) 2>&1 < /dev/null &
redis_pid=$!
for _ in $(seq 200); do
    redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping >/dev/null 2>&1 && break
    kill -0 "$redis_pid" 2>/dev/null || { echo "run-cluster: redis-server did not start" >&2; exit 1; }
    sleep 0.05
done
redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping >/dev/null

index=0
for port in $PORTS; do
    index=$((index + 1))
    name="node$index"
    # stdin from /dev/null: three operator consoles must not share the terminal.
    "$BIN/chat-server" --host "$HOST" --port "$port" --cert "$CERT" --key "$KEY" \
        --cluster "redis://127.0.0.1:$REDIS_PORT" --node "$name" --files "$STATE/files" \
        --metrics "127.0.0.1:$((METRICS_BASE + index))" \
        > >(prefixed "$name") 2>&1 < /dev/null &
    node_pids+=($!)
done
echo "run-cluster: redis-server on 127.0.0.1:$REDIS_PORT (AOF, appendfsync always, in $STATE/redis);" \
     "nodes on $(echo "$PORTS" | sed "s/\([0-9]*\)/$HOST:\1/g"), their metrics on 127.0.0.1:$((METRICS_BASE + 1))..$((METRICS_BASE + index))"
echo "run-cluster: connect with $BIN/chat-client --host $HOST --port PORT --ca certs/ca.pem; Ctrl-C stops everything"
# Until Ctrl-C or until a node exits by itself (a failed start, a crash): then everything stops.
status=0
wait -n "${node_pids[@]}" || status=$?
if [ "$stopping" -eq 0 ]; then
    echo "run-cluster: a node exited (status $status); stopping the others" >&2
    stop_all
    exit 1
fi
