#!/usr/bin/env bash
# Chat benchmarks with chat-bot load against chat-server (release builds): a connect storm, one
# room of 50 clients at rising rates, 50 rooms of 20 clients, 1,000 typists, and server memory
# per idle client. Server pinned to core 0, bots to core 1; the server's CPU time comes from
# /proc/PID/stat before and after each measured stretch. Prints a markdown report;
# `make bench` runs it after the engine benchmarks.
#
# Every size can be overridden for a quick smoke run, e.g.
#   STORM=50 ROOM_RATES="200 500" DURATION=1 WARMUP=0.5 ROOMS=2 ROOM_SIZE=5 ROOMS_RATE=50 \
#   TYPISTS=20 IDLE_LOW=20 IDLE_HIGH=60 scripts/bench-chat.sh
set -euo pipefail
cd "$(dirname "$0")/.."
STORM=${STORM:-2000}                       # clients in the connect storm
STORM_ROOM_SIZE=${STORM_ROOM_SIZE:-20}     # clients per room while storming (rooms = STORM / this)
ROOM_CLIENTS=${ROOM_CLIENTS:-50}           # clients in the single room
ROOM_RATES=${ROOM_RATES:-"200 500 1000 2000 4000 8000 16000 32000"}
P99_LIMIT_MS=${P99_LIMIT_MS:-50}           # the rate ladder stops above this p99 or at a lost delivery
ROOMS=${ROOMS:-50}
ROOM_SIZE=${ROOM_SIZE:-20}
ROOMS_RATE=${ROOMS_RATE:-1000}             # messages a second over all the rooms
TYPISTS=${TYPISTS:-1000}
TYPING_RATE=${TYPING_RATE:-$TYPISTS}       # typing datagrams a second over all typists (1/s each)
IDLE_LOW=${IDLE_LOW:-1000}
IDLE_HIGH=${IDLE_HIGH:-10000}
DURATION=${DURATION:-10}                   # measured seconds of each load run
WARMUP=${WARMUP:-2}
SIZE=${SIZE:-100}                          # message text bytes
PORT=${BENCH_PORT:-4490}
source scripts/bench-lib.sh
build_release_binaries
bench_workspace

# A fresh server for each section, so one section's heap and history do not colour the next.
start_server() {
    [ -n "$server_pid" ] && { kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; }
    if udp_port_bound "$PORT"; then echo "UDP port $PORT is in use; set BENCH_PORT" >&2; exit 1; fi
    launch_chat_server
}

# chat-bot load with the given flags on core 1 (run_bot in scripts/bench-lib.sh).
run_load() { run_bot load "$PORT" "$@"; }

latency() { echo "p50 $(json "$report" "$1.p50") / p99 $(json "$report" "$1.p99") / p99.9 $(json "$report" "$1.p99_9") / max $(json "$report" "$1.max") ms"; }
losses() { echo "lost $(json "$report" deliveries.lost), dup $(json "$report" deliveries.duplicated), reordered $(json "$report" deliveries.out_of_order), rate-limited $(json "$report" messages.rate_limited)"; }

echo "## Chat benchmarks ($(date -u +%Y-%m-%d), $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo))"
echo
echo "chat-server (release) on core 0 with flood and typing limits raised; chat-bot on core 1; ${DURATION} s measured"
echo "after ${WARMUP} s warm-up, ${SIZE}-byte messages, open-loop uniform schedule. Server CPU comes from"
echo "/proc/PID/stat (1/${HZ} s ticks): per connect over the connect phase, per delivery over the rest of the run"
echo "(warm-up and drain included, divided by every delivery received in that time). All bots share core 1:"
echo "when their CPU time nears the run's length, the bot core, not the server, limits the row."
echo
echo "| row | command | figures | server CPU µs |"
echo "|---|---|---|---|"

# --- Connect storms: every client handshakes and joins at once (100 handshakes in flight), in
# rooms of STORM_ROOM_SIZE (the join's fan-out) and alone in a room (the handshake and hello
# alone); full handshakes (--no-resume), then the same clients again resuming the TLS session
# whose ticket the first storm kept in a session file (a reconnect storm after a restart).
tickets="$work/session.ticket"
storm_row() {
    local label=$1 rooms=$2; shift 2
    start_server
    run_load --clients "$STORM" --rooms "$rooms" --rate 0 --duration 1 --warmup 0 --connect-parallel 100 "$@"
    joined=$(json "$report" connect.joined)
    echo "| $label | \`$command\` | $joined/$STORM joined in $(json "$report" connect.seconds) s; connect (handshake + join) $(latency connect.ms) | $(per_unit_us "$connect_ticks" "$joined") per connect |"
}
storm_row "connect storm, full handshakes, rooms of $STORM_ROOM_SIZE" $(( (STORM + STORM_ROOM_SIZE - 1) / STORM_ROOM_SIZE )) --no-resume --session-file "$tickets"
storm_row "connect storm, resumed, rooms of $STORM_ROOM_SIZE" $(( (STORM + STORM_ROOM_SIZE - 1) / STORM_ROOM_SIZE )) --session-file "$tickets"
storm_row "connect storm, full handshakes, a room each" "$STORM" --no-resume
storm_row "connect storm, resumed, a room each" "$STORM" --session-file "$tickets"

# --- One room of ROOM_CLIENTS at rising rates, until p99 passes the limit or a delivery is lost.
start_server
for rate in $ROOM_RATES; do
    run_load --clients "$ROOM_CLIENTS" --rooms 1 --rate "$rate" --duration "$DURATION" --warmup "$WARMUP"
    p99=$(json "$report" deliveries.latency_ms.p99)
    echo "| 1 room x $ROOM_CLIENTS, $rate msg/s | \`$command\` | $(json "$report" deliveries.per_second) deliveries/s; $(latency deliveries.latency_ms); $(losses); bot CPU $(json "$report" bot_cpu_seconds) s | $(per_unit_us "$load_ticks" "$(json "$report" deliveries.received_all)") per delivery |"
    if [ "$(json "$report" ok)" != true ] || awk -v p="$p99" -v l="$P99_LIMIT_MS" 'BEGIN {exit !(p > l)}'; then break; fi
done

# --- Many rooms.
start_server
run_load --clients $((ROOMS * ROOM_SIZE)) --rooms "$ROOMS" --rate "$ROOMS_RATE" --duration "$DURATION" --warmup "$WARMUP"
echo "| $ROOMS rooms x $ROOM_SIZE | \`$command\` | $(json "$report" deliveries.per_second) deliveries/s; $(latency deliveries.latency_ms); $(losses); bot CPU $(json "$report" bot_cpu_seconds) s | $(per_unit_us "$load_ticks" "$(json "$report" deliveries.received_all)") per delivery |"

# --- Typists: typing datagrams only, 20 per room.
start_server
run_load --clients "$TYPISTS" --rooms $(( (TYPISTS + 19) / 20 )) --rate 0 --typing "$TYPING_RATE" --duration "$DURATION" --warmup "$WARMUP"
echo "| $TYPISTS typists | \`$command\` | $(json "$report" typing.sent) sent, $(json "$report" typing.received) of $(json "$report" typing.expected) relayed copies received (ratio $(json "$report" typing.delivery_ratio)); $(latency typing.latency_ms) | $(per_unit_us "$load_ticks" "$(json "$report" typing.received_all)") per relayed typing |"

# --- Idle clients: server RSS with IDLE_LOW and then IDLE_HIGH connected (20 per room).
measure_idle() { measure_idle_rss load "$PORT" "$1" $(( ($1 + 19) / 20 )); }
start_server
rss_low=$(measure_idle "$IDLE_LOW")
rss_high=$(measure_idle "$IDLE_HIGH")
slope=$(awk -v a="$rss_low" -v b="$rss_high" -v n=$((IDLE_HIGH - IDLE_LOW)) 'BEGIN {printf "%.1f", (b - a) / n}')
echo "| idle clients | \`chat-bot load --clients $IDLE_LOW, then $IDLE_HIGH --rate 0\` | server RSS $rss_low KiB at $IDLE_LOW, $rss_high KiB at $IDLE_HIGH: $slope KiB per idle client | n/a |"
