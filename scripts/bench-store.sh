#!/usr/bin/env bash
# One server's store off the event loop (issue 27 item 1; docs/PERFORMANCE.md, "One server's
# store off the loop"), with the release builds and a fresh --db:
#   scripts/bench-store.sh syscalls      pwrite64/fsync/fdatasync per thread (strace -f) while chat-bot load runs;
#                                        the loop is the main thread (tid = pid)
#   scripts/bench-store.sh slow-disk N   delivery p99 with QCHAT_COMMIT_DELAY_MS=0 and 50, alternated, N runs each
#   scripts/bench-store.sh commits       commits and their mean time (the metrics page) with 0 and 50
# Sizes: CLIENTS (10), RATE (100 msg/s), DURATION (10 s), WARMUP (2 s); SKIP_BUILD=1 uses the release binaries there are.
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=${1:-syscalls}
RUNS=${2:-3}
CLIENTS=${CLIENTS:-10}; RATE=${RATE:-100}; DURATION=${DURATION:-10}; WARMUP=${WARMUP:-2}; SIZE=${SIZE:-100}
PORT=${BENCH_PORT:-4497}
METRICS_PORT=${METRICS_PORT:-9497}
source scripts/bench-lib.sh
# SKIP_BUILD=1: the release binaries already built.
if [ -n "${SKIP_BUILD:-}" ]; then SERVER=.build/release/chat-server; BOT=.build/release/chat-bot; else build_release_binaries; fi
bench_workspace
export HOME=$work/home XDG_CONFIG_HOME=$work/config
mkdir -p "$HOME" "$XDG_CONFIG_HOME"
load() { run_bot load "$PORT" --clients "$CLIENTS" --rooms 1 --rate "$RATE" --duration "$DURATION" --warmup "$WARMUP"; }
fresh_server() { rm -rf "$work/chat.db"*; QCHAT_COMMIT_DELAY_MS=$1 launch_chat_server --db "$work/chat.db" "${@:2}"; }
case $MODE in
syscalls)
    fresh_server 0
    strace -f -qq -ttt -e trace=pwrite64,fsync,fdatasync -o "$work/trace" -p "$server_pid" &
    tracer=$!
    sleep 1
    # The calls from the load's start on: opening the --db file (its schema) comes before serving.
    serving=$(date +%s.%N)
    load
    echo "server pid $server_pid; threads:"
    for task in /proc/"$server_pid"/task/*; do echo "  tid $(basename "$task") $(cat "$task/comm")"; done
    kill -INT "$tracer"; wait "$tracer" 2>/dev/null || true
    echo "deliveries $(json "$report" deliveries.received_all), ok $(json "$report" ok); calls per thread while serving:"
    awk -v from="$serving" '$2 < from' "$work/trace" | wc -l | awk '{print "  (" $1 " calls before the load started: opening the --db file)"}' 
    awk -v from="$serving" '$2 >= from {split($3, call, "("); print $1, call[1]}' "$work/trace" | grep -E 'pwrite64|fsync|fdatasync' | sort | uniq -c \
        | awk '{print "  tid " $2 " " $3 " " $1}'
    ;;
slow-disk)
    for run in $(seq "$RUNS"); do
        for delay in 0 50; do
            fresh_server "$delay"
            load
            echo "run $run, QCHAT_COMMIT_DELAY_MS=$delay: delivery p50 $(json "$report" deliveries.latency_ms.p50) p99 $(json "$report" deliveries.latency_ms.p99) max $(json "$report" deliveries.latency_ms.max) ms; lost $(json "$report" deliveries.lost); acknowledged $(json "$report" messages.acknowledged)/$(json "$report" messages.sent)"
            stop_server
        done
    done
    ;;
commits)
    for delay in 0 50; do
        fresh_server "$delay" --metrics "127.0.0.1:$METRICS_PORT"
        load
        page=$(curl -s "http://127.0.0.1:$METRICS_PORT/metrics")
        sum=$(awk '/^qchat_history_store_seconds_sum\{operation="append"\}/ {print $2}' <<< "$page")
        count=$(awk '/^qchat_history_store_seconds_count\{operation="append"\}/ {print $2}' <<< "$page")
        echo "QCHAT_COMMIT_DELAY_MS=$delay: $count commits, mean $(awk -v s="$sum" -v c="$count" 'BEGIN {printf "%.1f", s / c * 1000}') ms, for $(json "$report" messages.sent) messages"
        stop_server
    done
    ;;
*) echo "usage: scripts/bench-store.sh syscalls | slow-disk RUNS | commits" >&2; exit 2 ;;
esac
