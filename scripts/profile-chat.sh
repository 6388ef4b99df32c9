#!/usr/bin/env bash
# Where chat-server's CPU goes under one fixed chat-bot load (the figures of docs/PERFORMANCE.md's
# "Where a delivery's CPU goes"). Release builds; server on core 0, chat-bot load on core 1, 200-byte
# messages, the same server flags as the chat benchmarks (scripts/bench-lib.sh).
#
#   scripts/profile-chat.sh callgrind CLIENTS ROOMS RATE   user-space instructions per delivery, split
#                                                          into ngtcp2 packet building, ngtcp2 reading
#                                                          (mostly ACKs), ngtcp2 timers, crypto, ours
#   scripts/profile-chat.sh syscalls CLIENTS ROOMS RATE    the server's system calls per delivery
#   scripts/profile-chat.sh perf CLIENTS ROOMS RATE        perf samples (cpu-clock) split into kernel
#                                                          send, kernel receive, waiting, ngtcp2,
#                                                          crypto and ours, in µs per delivery
#   scripts/profile-chat.sh storm CLIENTS ROOMS [FLAGS]    callgrind instructions per connect over a
#                                                          connect storm (FLAGS go to chat-bot, e.g.
#                                                          --no-resume)
#
# DRIVER=aioquic loads the server with tools/bench/aioquic_chat_load.py instead of chat-bot load
# (independent clients that ACK every packet within 1 ms; not for storm), in the pinned aioquic
# venv (scripts/bench-lib.sh's prepare_aioquic); DRIVER_FLAGS adds flags to the driver (e.g.
# DRIVER_FLAGS="--hold-sends 2").
# SERVER_FLAGS adds flags to the server (e.g. SERVER_FLAGS="--coalesce-ms 0").
# SERVER and BOT choose other binaries (e.g. an older build, to compare); DURATION the measured
# seconds (callgrind: 10; the others: 10 of a 20 s run). Instruction counts repeat within a few per
# cent: the batching of packets depends on timing. valgrind 3.19 cannot read Swift 6's debug
# information, so callgrind runs a copy of the server without it (objcopy --strip-debug).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?"usage: $0 callgrind|syscalls|perf|storm CLIENTS ROOMS [RATE|FLAGS]"}
CLIENTS=${2:?clients}; ROOMS=${3:?rooms}
shift 3
SIZE=200
PORT=${BENCH_PORT:-4496}
SERVER=${SERVER:-.build/release/chat-server}
BOT=${BOT:-.build/release/chat-bot}
DURATION=${DURATION:-10}
DRIVER=${DRIVER:-chat-bot}
if [ "$SERVER" = .build/release/chat-server ]; then swift build -c release -j 2 --product chat-server >&2; fi
if [ "$BOT" = .build/release/chat-bot ]; then swift build -c release -j 2 --product chat-bot >&2; fi

source scripts/bench-lib.sh
load=("$BOT" load)
if [ "$DRIVER" = aioquic ]; then
    prepare_aioquic
    load=("$PYTHON" "$AIOQUIC_DRIVER")
fi
bench_workspace

# Starts the load (chat-bot load, or the aioquic driver) on core 1 with the given flags and waits
# until its log shows PATTERN.
start_bot() {
    local pattern=$1; shift
    : > "$work/bot.err"
    taskset -c 1 "${load[@]}" --port "$PORT" --ca "$C/ca.pem" --size "$SIZE" --clients "$CLIENTS" --rooms "$ROOMS" \
        --json "$work/report.json" "$@" ${DRIVER_FLAGS:-} > "$work/bot.out" 2> "$work/bot.err" &
    bot_pid=$!
    wait_bot "$pattern"
}
wait_bot() { while kill -0 "$bot_pid" 2>/dev/null && ! grep -q "$1" "$work/bot.err"; do sleep 0.05; done; }
deliveries() { json "$work/report.json" deliveries.delivered; }

# chat-server under callgrind, counting only between `callgrind_control -i on` and `off`.
start_callgrind_server() {
    objcopy --strip-debug "$SERVER" "$work/chat-server"
    taskset -c 0 valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" --dump-instr=no --instr-atstart=no \
        "$work/chat-server" --port "$PORT" --cert "$C/server.pem" --key "$C/server.key" --log-level warning \
        --flood-burst 1000000 --flood-rate 1000000 --typing-rate 1000 --max-clients 50000 --sendq 67108864 ${SERVER_FLAGS:-} \
        > "$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 300); do udp_port_bound "$PORT" && return 0; sleep 0.1; done
    echo "chat-server did not start under valgrind: $(cat "$work/server.log")" >&2; exit 1
}
stop_callgrind_server() { kill -INT "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null || true; server_pid=""; }

case $mode in
callgrind)
    RATE=${1:?rate}
    start_callgrind_server
    start_bot measuring --rate "$RATE" --duration "$DURATION" --warmup 2 --drain 2 --connect-timeout 120
    callgrind_control -i on "$server_pid" > /dev/null
    wait_bot draining
    callgrind_control -i off "$server_pid" > /dev/null
    wait "$bot_pid" || true
    stop_callgrind_server
    echo "## chat-server under callgrind: $CLIENTS clients in $ROOMS rooms, $RATE msgs/s, $DURATION s measured"
    echo "deliveries $(deliveries), lost $(json "$work/report.json" deliveries.lost)"
    python3 tools/profile/callgrind_categories.py "$work/callgrind.out" "$(deliveries)"
    ;;
syscalls|perf)
    RATE=${1:?rate}
    launch_chat_server
    start_bot measuring --rate "$RATE" --duration $((DURATION + 10)) --warmup 3
    sleep 3
    if [ "$mode" = syscalls ]; then
        events=""
        for call in sendmmsg sendmsg recvmmsg epoll_pwait2 epoll_wait timerfd_settime getrandom read write; do
            events="$events${events:+,}syscalls:sys_enter_$call"
        done
        perf stat -x, -e "$events" -p "$server_pid" -o "$work/perf.stat" -- sleep "$DURATION"
    else
        before=$(cpu_ticks "$server_pid")
        perf record -e cpu-clock -F 2000 -g -p "$server_pid" -o "$work/perf.data" -- sleep "$DURATION" > /dev/null 2>&1
        ticks=$(( $(cpu_ticks "$server_pid") - before ))
    fi
    wait "$bot_pid" || true
    per_second=$(json "$work/report.json" deliveries.per_second)
    echo "## chat-server $mode: $CLIENTS clients in $ROOMS rooms, $RATE msgs/s ($per_second deliveries/s), $DURATION s sampled"
    if [ "$mode" = syscalls ]; then
        echo "| system call | calls per delivery |"
        echo "|---|---|"
        awk -F, -v d="$per_second" -v s="$DURATION" '/syscalls:/ {n = $3; sub(/.*sys_enter_/, "", n); if ($1 > 0) printf "| %s | %.3f |\n", n, $1 / (d * s)}' "$work/perf.stat"
    else
        us=$(awk -v t="$ticks" -v hz="$HZ" -v d="$per_second" -v s="$DURATION" 'BEGIN {printf "%.2f", t / hz * 1e6 / (d * s)}')
        perf report -i "$work/perf.data" --children --sort sym -g none 2>/dev/null > "$work/children.txt"
        perf report -i "$work/perf.data" --no-children --sort dso -g none 2>/dev/null > "$work/dso.txt"
        python3 tools/profile/perf_categories.py "$work/children.txt" "$work/dso.txt" "$us"
    fi
    ;;
storm)
    start_callgrind_server
    callgrind_control -i on "$server_pid" > /dev/null
    start_bot drained --rate 0 --duration 0.5 --warmup 0 --drain 0.5 --connect-parallel 50 --connect-timeout 300 "$@"
    callgrind_control -i off "$server_pid" > /dev/null
    wait "$bot_pid" || true
    stop_callgrind_server
    joined=$(json "$work/report.json" connect.joined)
    total=$(awk '/^totals:/ {print $2}' "$work/callgrind.out")
    echo "## connect storm under callgrind: $CLIENTS clients in $ROOMS rooms $*"
    awk -v j="$joined" -v t="$total" 'BEGIN {printf "joined %d; %.2f M instructions per connect\n", j, t / j / 1e6}'
    ;;
*) echo "unknown mode $mode" >&2; exit 2 ;;
esac
