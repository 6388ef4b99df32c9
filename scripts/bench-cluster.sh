#!/usr/bin/env bash
# What clustering costs (issue 15, docs/PERFORMANCE.md "Several nodes on Redis"): server CPU per
# delivery of one chat-server alone (history in memory), of one node on Redis, and of three nodes
# on Redis, with Redis's own CPU per message, and the latency every delivery saw, for the cells
# CLIENTS/ROOMS@RATE of CELLS. chat-bot load spreads its clients over the nodes (--server, round
# robin), so with three nodes two thirds of each room's members are on other nodes than the
# sender. CPU comes from /proc/PID/stat over the stretch from "connected" to "drained" (warm-up,
# run and drain), summed over the nodes. Release builds; a 2-core machine cannot pin three nodes,
# Redis and the bots apart, so the rows are CPU accounting, not saturation figures.
#
#   CELLS="50/1@200" DURATION=2 WARMUP=1 scripts/bench-cluster.sh     # a quick smoke run
#
# SERVER (and BOT) run other binaries instead of building the release ones (an older build, to
# compare before and after a change in runs made one after the other).
set -euo pipefail
cd "$(dirname "$0")/.."
CELLS=${CELLS:-"50/1@200 50/1@1000 1000/50@1000"}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-2}
SIZE=${SIZE:-100}
PORT=${BENCH_PORT:-4490}
REDIS_PORT=${BENCH_REDIS_PORT:-6490}
source scripts/bench-lib.sh
if [ -n "${SERVER:-}" ]; then BOT=${BOT:-.build/release/chat-bot}; else build_release_binaries; fi
bench_workspace

node_pids=()
redis_pid=""
stop_all() {
    for pid in "${node_pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    node_pids=()
    if [ -n "$redis_pid" ]; then kill "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true; redis_pid=""; fi
}
trap 'stop_all; rm -rf "$work"' EXIT

start_redis() {
    if tcp_port_listening "$REDIS_PORT"; then echo "TCP port $REDIS_PORT is in use; set BENCH_REDIS_PORT" >&2; exit 1; fi
    # No persistence: the figures are Redis's CPU for the commands, not for its disk.
    redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" > "$work/redis.log" 2>&1 &
    redis_pid=$!
    for _ in $(seq 200); do tcp_port_listening "$REDIS_PORT" && return 0; sleep 0.05; done
    echo "redis-server did not start: $(cat "$work/redis.log")" >&2
    exit 1
}

# start_nodes N [--cluster]: N chat-servers on PORT, PORT+1, ...; with a cluster flag each is a
# node on the Redis above.
start_nodes() {
    local count=$1 clustered=${2:-}
    for index in $(seq 0 $((count - 1))); do
        local port=$((PORT + index)) flags=()
        if udp_port_bound "$port"; then echo "UDP port $port is in use; set BENCH_PORT" >&2; exit 1; fi
        # The nodes of one chat system share one files folder (a node on its own is refused).
        [ -n "$clustered" ] && flags=(--cluster "redis://127.0.0.1:$REDIS_PORT" --node "bench$index" --files "$work/files")
        "$SERVER" --port "$port" --cert "$C/server.pem" --key "$C/server.key" --log-level warning --flood-burst 1000000 \
            --flood-rate 1000000 --typing-rate 1000 --max-clients 50000 --sendq 67108864 "${flags[@]}" > "$work/node$index.log" 2>&1 &
        node_pids+=($!)
        for _ in $(seq 600); do udp_port_bound "$port" && break; sleep 0.05; done
        if [ -n "$clustered" ]; then
            for _ in $(seq 200); do grep -q "cluster node ready" "$work/node$index.log" && break; sleep 0.05; done
        fi
    done
}

nodes_ticks() { local sum=0; for pid in "${node_pids[@]}"; do sum=$((sum + $(cpu_ticks "$pid"))); done; echo "$sum"; }
# The times the nodes went to sleep and were woken (voluntary context switches), summed: each
# wake-up costs a node a system call, a switch and cold caches, which the instruction counts of
# scripts/profile-cluster.sh do not show. (/proc/PID/stat's split of CPU into user and kernel
# ticks is sampled and, on this VM, unreliable: not used.)
nodes_wakeups() {
    local switches=0 pid
    for pid in "${node_pids[@]}"; do switches=$((switches + $(awk '/^voluntary_ctxt_switches/ {print $2}' "/proc/$pid/status"))); done
    echo "$switches"
}
redis_ticks() { if [ -n "$redis_pid" ]; then cpu_ticks "$redis_pid"; else echo 0; fi; }
# Microseconds Redis spent executing commands since the last CONFIG RESETSTAT (INFO commandstats:
# the commands alone, without its event loop, its timers and the idle connections' pings).
redis_command_us() {
    [ -n "$redis_pid" ] || { echo 0; return; }
    redis-cli -p "$REDIS_PORT" INFO commandstats | awk -F'usec=' '/^cmdstat_/ {split($2, a, ","); sum += a[1]} END {print sum + 0}'
}

# run_cell CLIENTS ROOMS RATE: chat-bot load over the running nodes; sets the row's figures.
run_cell() {
    local clients=$1 rooms=$2 rate=$3 servers=()
    for index in $(seq 0 $((${#node_pids[@]} - 1))); do servers+=(--server "127.0.0.1:$((PORT + index))"); done
    report="$work/report.json"
    rm -f "$report" "$work/bot.err"
    "$BOT" load "${servers[@]}" --ca "$C/ca.pem" --clients "$clients" --rooms "$rooms" --rate "$rate" --size "$SIZE" \
        --duration "$DURATION" --warmup "$WARMUP" --json "$report" > "$work/bot.out" 2> "$work/bot.err" &
    local bot=$! before="" after="" redis_before="" redis_after="" command_us=0
    while kill -0 "$bot" 2>/dev/null; do
        if [ -z "$before" ] && grep -q "connected" "$work/bot.err" 2>/dev/null; then
            before=$(nodes_ticks); redis_before=$(redis_ticks); wakeups_before=$(nodes_wakeups)
            [ -n "$redis_pid" ] && redis-cli -p "$REDIS_PORT" CONFIG RESETSTAT > /dev/null
        fi
        if [ -z "$after" ] && grep -q "drained" "$work/bot.err" 2>/dev/null; then
            after=$(nodes_ticks); redis_after=$(redis_ticks); command_us=$(redis_command_us); wakeups_after=$(nodes_wakeups)
        fi
        sleep 0.05
    done
    wait "$bot" || true
    if [ ! -s "$report" ]; then echo "chat-bot load failed: $(tail -3 "$work/bot.err")" >&2; exit 1; fi
    [ -n "$after" ] || { after=$(nodes_ticks); redis_after=$(redis_ticks); wakeups_after=$(nodes_wakeups); }
    [ -n "$before" ] || { before=$after; redis_before=$redis_after; wakeups_before=$wakeups_after; }
    local delivered sent
    delivered=$(json "$report" deliveries.delivered)
    sent=$(json "$report" messages.sent)
    server_us=$(per_unit_us $((after - before)) "$delivered")
    wakeups=$(awk -v w=$((wakeups_after - wakeups_before)) -v n="$sent" 'BEGIN {if (n > 0) printf "%.1f", w / n; else print "n/a"}')
    redis_us="$(per_unit_us $((redis_after - redis_before)) "$sent") ($(awk -v u="$command_us" -v n="$sent" 'BEGIN {if (n > 0) printf "%.1f", u / n; else print "n/a"}') in commands)"
    figures="p50 $(json "$report" deliveries.latency_ms.p50) / p99 $(json "$report" deliveries.latency_ms.p99) ms; lost $(json "$report" deliveries.lost), dup $(json "$report" deliveries.duplicated), reordered $(json "$report" deliveries.out_of_order); $delivered deliveries"
}

echo "## Several nodes on Redis ($(date -u +%Y-%m-%d), $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo))"
echo
echo "chat-bot load, ${DURATION} s measured after ${WARMUP} s warm-up, ${SIZE}-byte messages; server CPU per delivery summed"
echo "over the nodes (/proc/PID/stat, 1/${HZ} s ticks, from connected to drained); Redis CPU per message sent, the"
echo "process's (with its idle timers and the nodes' pings) and, in brackets, its commands' own (INFO commandstats);"
echo "Redis $(redis-server --version | awk '{print $3}' | cut -d= -f2) without persistence on loopback."
echo
echo "Wake-ups: the nodes' voluntary context switches (sleeps in epoll_wait ended by input) per message sent, summed."
echo
echo "| cell | setup | server CPU µs per delivery | wake-ups per message | Redis CPU µs per message | figures |"
echo "|---|---|---|---|---|---|"
for cell in $CELLS; do
    clients=${cell%%/*}; rest=${cell#*/}; rooms=${rest%@*}; rate=${cell#*@}
    for setup in standalone "1 node" "3 nodes"; do
        case "$setup" in
            standalone) start_nodes 1 ;;
            "1 node") start_redis; start_nodes 1 --cluster ;;
            "3 nodes") start_redis; start_nodes 3 --cluster ;;
        esac
        run_cell "$clients" "$rooms" "$rate"
        redis_column=$([ "$setup" = standalone ] && echo "—" || echo "$redis_us")
        echo "| $clients clients / $rooms room(s) @ $rate msgs/s | $setup | $server_us | $wakeups | $redis_column | $figures |"
        stop_all
        sleep 1
    done
done
