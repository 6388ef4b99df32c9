#!/usr/bin/env bash
# Where the CPU of several nodes goes (docs/CLUSTER.md, "Where a node's instructions go"): every
# node under callgrind at once, on one redis-server, with chat-bot load spreading its clients over
# them; then instructions per delivery split as scripts/profile-chat.sh's callgrind mode splits
# them, per node and summed. NODES 0 runs one chat-server alone (history in memory) for the
# comparison. Low rates only: each node runs about 50 times slower under valgrind.
#
#   scripts/profile-cluster.sh NODES CLIENTS ROOMS RATE      e.g. 3 50 1 100, then 0 50 1 100
#
# KEEP=DIR keeps the callgrind files (callgrind_annotate --inclusive=yes DIR/callgrind.N).
set -euo pipefail
cd "$(dirname "$0")/.."
NODES=${1:?"usage: $0 NODES CLIENTS ROOMS RATE"}; CLIENTS=${2:?clients}; ROOMS=${3:?rooms}; RATE=${4:?rate}
DURATION=${DURATION:-10}
PORT=${BENCH_PORT:-4497}
REDIS_PORT=${BENCH_REDIS_PORT:-6497}
source scripts/bench-lib.sh
build_release_binaries
bench_workspace
objcopy --strip-debug "$SERVER" "$work/chat-server"   # valgrind 3.19 cannot read Swift 6's debug information

node_pids=()
redis_pid=""
stop_all() {
    for pid in "${node_pids[@]}"; do kill -INT "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    node_pids=()
    if [ -n "$redis_pid" ]; then kill "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true; redis_pid=""; fi
}
trap 'stop_all; rm -rf "$work"' EXIT

if [ "$NODES" -gt 0 ]; then
    if tcp_port_listening "$REDIS_PORT"; then echo "TCP port $REDIS_PORT is in use; set BENCH_REDIS_PORT" >&2; exit 1; fi
    redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" > "$work/redis.log" 2>&1 &
    redis_pid=$!
    for _ in $(seq 200); do tcp_port_listening "$REDIS_PORT" && break; sleep 0.05; done
fi
count=$((NODES > 0 ? NODES : 1))
servers=()
for index in $(seq 0 $((count - 1))); do
    port=$((PORT + index)) flags=()
    if udp_port_bound "$port"; then echo "UDP port $port is in use; set BENCH_PORT" >&2; exit 1; fi
    # The nodes of one chat system share one files folder (a node on its own is refused).
    [ "$NODES" -gt 0 ] && flags=(--cluster "redis://127.0.0.1:$REDIS_PORT" --node "profile$index" --files "$work/files")
    valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.$index" --dump-instr=no --instr-atstart=no \
        "$work/chat-server" --port "$port" --cert "$C/server.pem" --key "$C/server.key" --log-level warning \
        --flood-burst 1000000 --flood-rate 1000000 --typing-rate 1000 --max-clients 50000 --sendq 67108864 "${flags[@]}" \
        > "$work/node$index.log" 2>&1 &
    node_pids+=($!)
    servers+=(--server "127.0.0.1:$port")
    for _ in $(seq 600); do udp_port_bound "$port" && break; sleep 0.1; done
    if [ "$NODES" -gt 0 ]; then
        for _ in $(seq 600); do grep -q "cluster node ready" "$work/node$index.log" && break; sleep 0.1; done
    fi
done

"$BOT" load "${servers[@]}" --ca "$C/ca.pem" --clients "$CLIENTS" --rooms "$ROOMS" --rate "$RATE" --size 100 \
    --duration "$DURATION" --warmup 2 --drain 2 --connect-timeout 120 --json "$work/report.json" > "$work/bot.out" 2> "$work/bot.err" &
bot_pid=$!
wait_for() { while kill -0 "$bot_pid" 2>/dev/null && ! grep -q "$1" "$work/bot.err"; do sleep 0.05; done; }
wait_for measuring
for pid in "${node_pids[@]}"; do callgrind_control -i on "$pid" > /dev/null; done
wait_for drain   # "draining" or, when nothing was left, "drained"
for pid in "${node_pids[@]}"; do callgrind_control -i off "$pid" > /dev/null; done
wait "$bot_pid" || true
stop_all
deliveries=$(json "$work/report.json" deliveries.delivered)
echo "## $([ "$NODES" -gt 0 ] && echo "$NODES nodes on Redis" || echo "one chat-server alone") under callgrind: $CLIENTS clients in $ROOMS rooms, $RATE msgs/s, $DURATION s measured"
echo "deliveries $deliveries, lost $(json "$work/report.json" deliveries.lost); instructions per delivery of the whole run"
for index in $(seq 0 $((count - 1))); do
    echo
    echo "node $index:"
    python3 tools/profile/callgrind_categories.py "$work/callgrind.$index" "$deliveries" | tee "$work/split.$index"
done
if [ "$count" -gt 1 ]; then
    echo
    echo "summed over the nodes:"
    cat "$work"/split.* | awk -F'|' '/^\| [a-z]/ && !/where/ {gsub(/[ ,]/, "", $3); if (!($2 in sum)) order[++n] = $2; sum[$2] += $3}
        END {print "| where | instructions per delivery |"; print "|---|---|"; for (i = 1; i <= n; i++) printf "|%s| %d |\n", order[i], sum[order[i]]}'
fi
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP"; cp "$work"/callgrind.* "$KEEP"/; fi
