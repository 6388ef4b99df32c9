#!/usr/bin/env bash
# Where chat-server's time goes per delivery under aioquic clients (which ACK every packet at
# once) and under chat-bot load, on one cell: scripts/bench-aioquic.sh's setup (a fresh release
# server on core 0, the driver on core 1), three passes per driver:
#   metrics   the server's own counters (--metrics) from "connected" to "drained": UDP
#             datagrams received and sent per delivery, and its CPU per delivery;
#   strace    `strace -c -f` attached over the same stretch: system calls per delivery;
#   callgrind the server under valgrind's callgrind (debug info stripped: valgrind 3.19 cannot
#             read Swift's) at RATE_CALLGRIND msgs/s: instructions per delivery, by object file
#             (kernel time is not in it), and the top functions.
# Prints markdown tables. A diagnosis aid for issue 12, not part of `make bench`.
#   CELL=50/1/40 RATE_CALLGRIND=10 DURATION=10 PASSES="metrics strace callgrind" scripts/profile-aioquic.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CELL=${CELL:-50/1/40}
RATE_CALLGRIND=${RATE_CALLGRIND:-10}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-3}
DRAIN=${DRAIN:-5}
SIZE=${SIZE:-200}
PASSES=${PASSES:-"metrics strace callgrind"}
DRIVERS=${DRIVERS:-"aioquic chat-bot"}
PORT=${BENCH_PORT:-4493}
METRICS_PORT=${METRICS_PORT:-9493}
source scripts/bench-lib.sh
prepare_aioquic
prepare_bench
IFS=/ read -r clients rooms rate <<< "$CELL"

# The driver against a fresh server (launch_chat_server with --metrics, under $SERVER_PREFIX) at
# RATE msgs/s; run_bot calls at_connected and at_drained. Sets deliveries.
drive() {
    local driver=$1 rate=$2
    launch_chat_server --metrics "127.0.0.1:$METRICS_PORT"
    local flags=(--clients "$clients" --rooms "$rooms" --rate "$rate" --duration "$DURATION" --warmup "$WARMUP" --drain "$DRAIN"
                 --connect-timeout 300)
    if [ "$driver" = aioquic ]; then
        BOT=$PYTHON run_bot "$DRIVER" "$PORT" "${flags[@]}"
    else
        # A server under valgrind handshakes slowly.
        run_bot load "$PORT" "${flags[@]}" --handshake-timeout 120
    fi
    stop_server
    [ "$(json "$report" ok)" = true ] || echo "warning: $driver run not ok: $(tail -2 "$work/bot.out")" >&2
    deliveries=$(json "$report" deliveries.received_all)
}
per() { awk -v a="$1" -v n="$2" 'BEGIN {if (n > 0) printf "%.3f", a / n; else print "n/a"}'; }
counters() { echo "$(server_metric "$METRICS_PORT" qchat_udp_datagrams_received_total) $(server_metric "$METRICS_PORT" qchat_udp_datagrams_sent_total) $(awk '{print $14, $15}' "/proc/$server_pid/stat")"; }

for pass in $PASSES; do
    case $pass in
    metrics)
        echo "| cell | driver | deliveries | server datagrams received per delivery | sent per delivery | server CPU µs per delivery | of it user | of it kernel |"
        echo "|---|---|---|---|---|---|---|---|"
        at_connected() { read -r rx0 tx0 user0 system0 <<< "$(counters)"; }
        at_drained() { read -r rx1 tx1 user1 system1 <<< "$(counters)"; }
        for driver in $DRIVERS; do
            drive "$driver" "$rate"
            echo "| $CELL | $driver | $deliveries | $(per $((rx1 - rx0)) "$deliveries") | $(per $((tx1 - tx0)) "$deliveries") | $(per_unit_us $((user1 - user0 + system1 - system0)) "$deliveries") | $(per_unit_us $((user1 - user0)) "$deliveries") | $(per_unit_us $((system1 - system0)) "$deliveries") |"
        done
        echo
        ;;
    strace)
        at_connected() { strace -c -f -p "$server_pid" -o "$work/strace.txt" 2>/dev/null & tracer=$!; }
        at_drained() { kill -INT "$tracer"; wait "$tracer" 2>/dev/null || true; }
        for driver in $DRIVERS; do
            drive "$driver" "$rate"
            echo "#### strace -c -f, $CELL, $driver: $deliveries deliveries"
            echo
            echo "| syscall | calls | per delivery |"
            echo "|---|---|---|"
            awk -v n="$deliveries" '$1 ~ /^[0-9.]+$/ && NF >= 5 {printf "| %s | %d | %.3f |\n", $NF, $4, $4 / n}' "$work/strace.txt" \
                | sort -t'|' -k3 -nr | head -12
            echo
        done
        ;;
    callgrind)
        objcopy --strip-debug "$SERVER" "$work/chat-server-stripped"
        at_connected() { callgrind_control -z "$server_pid" >/dev/null; }
        at_drained() { callgrind_control -d "$server_pid" >/dev/null; }
        for driver in $DRIVERS; do
            SERVER_PREFIX="valgrind --tool=callgrind --callgrind-out-file=$work/callgrind.%p --dump-instr=no"
            local_server=$SERVER; SERVER=$work/chat-server-stripped
            drive "$driver" "$RATE_CALLGRIND"
            SERVER=$local_server; SERVER_PREFIX=""
            # The dump callgrind_control -d wrote at "drained" (the one at exit holds the goodbyes).
            dump=$(ls "$work"/callgrind.*.1 2>/dev/null | head -1 || true)
            if [ -z "$dump" ]; then echo "callgrind, $driver: no dump (the run never connected: $(tail -2 "$work/bot.err"))"; echo; continue; fi
            callgrind_annotate --inclusive=no --threshold=100 "$dump" > "$work/annotated.txt" 2>/dev/null
            total=$(awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}' "$work/annotated.txt")
            echo "#### callgrind, $clients/$rooms/$RATE_CALLGRIND, $driver: $deliveries deliveries, $(per "$total" "$deliveries") instructions per delivery"
            echo
            echo "| object | instructions per delivery | share |"
            echo "|---|---|---|"
            # Function lines end in [object]; sum them per object file. The frames still active at
            # the dump (main and below) show the whole total as their own: left out.
            awk -v n="$deliveries" -v total="$total" '/\[.*\]$/ && $1 ~ /^[0-9,]+$/ {
                    ir = $1; gsub(",", "", ir); if (ir == total) next; object = $NF; gsub(/^\[|\]$/, "", object); sub(/.*\//, "", object); sum[object] += ir }
                END {for (o in sum) printf "| %s | %.0f | %.1f%% |\n", o, sum[o] / n, sum[o] * 100 / total}' "$work/annotated.txt" \
                | sort -t'|' -k3 -nr | head -10
            echo
            echo "Top functions (self instructions per delivery):"
            echo
            echo '```'
            awk -v n="$deliveries" -v total="$total" '$1 ~ /^[0-9,]+$/ && /\[.*\]$/ {
                    ir = $1; gsub(",", "", ir); if (ir == total) next; share = $2; $1 = ""; $2 = ""
                    printf "%8.0f %s %s\n", ir / n, share, $0}' "$work/annotated.txt" | head -25
            echo '```'
            echo
            rm -f "$work"/callgrind.*
        done
        ;;
    esac
    unset -f at_connected at_drained
done
