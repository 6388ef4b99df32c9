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

# A counter from the server's metrics page.
metric() { curl -s "http://127.0.0.1:$METRICS_PORT/metrics" | awk -v name="$1" '$1 == name {print $2}'; }

start() {  # start [PREFIX...]: chat-server with launch_chat_server's flags, under PREFIX
    taskset -c 0 "$@" "$SERVER" --port "$PORT" --cert "$C/server.pem" --key "$C/server.key" --log-level warning \
        --flood-burst 1000000 --flood-rate 1000000 --typing-rate 1000 --max-clients 50000 --sendq 67108864 \
        --metrics "127.0.0.1:$METRICS_PORT" > "$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 600); do udp_port_bound "$PORT" && return 0; sleep 0.1; done
    echo "chat-server did not start: $(cat "$work/server.log")" >&2; exit 1
}

# The driver against the server, with a hook run at "connected" and one at "drained".
drive() {
    local driver=$1 rate=$2 at_connected=$3 at_drained=$4
    local flags=(--port "$PORT" --ca "$C/ca.pem" --size "$SIZE" --json "$work/report.json" --clients "$clients" --rooms "$rooms"
                 --rate "$rate" --duration "$DURATION" --warmup "$WARMUP" --drain "$DRAIN" --connect-timeout 300)
    rm -f "$work/report.json" "$work/bot.err"
    if [ "$driver" = aioquic ]; then
        taskset -c 1 "$PYTHON" "$DRIVER" "${flags[@]}" > "$work/bot.out" 2> "$work/bot.err" &
    else
        taskset -c 1 "$BOT" load "${flags[@]}" > "$work/bot.out" 2> "$work/bot.err" &
    fi
    local bot=$! connected="" drained=""
    while kill -0 "$bot" 2>/dev/null; do
        if [ -z "$connected" ] && grep -q connected "$work/bot.err"; then connected=1; $at_connected; fi
        if [ -z "$drained" ] && grep -q drained "$work/bot.err"; then drained=1; $at_drained; fi
        sleep 0.05
    done
    wait "$bot" || true
    [ "$(json "$work/report.json" ok)" = true ] || echo "warning: $driver run not ok: $(tail -2 "$work/bot.out")" >&2
    deliveries=$(json "$work/report.json" deliveries.received_all)
}
per() { awk -v a="$1" -v n="$2" 'BEGIN {if (n > 0) printf "%.3f", a / n; else print "n/a"}'; }

for pass in $PASSES; do
    if [ "$pass" = metrics ]; then
        echo "| cell | driver | deliveries | server datagrams received per delivery | sent per delivery | server CPU µs per delivery |"
        echo "|---|---|---|---|---|---|"
    fi
    for driver in $DRIVERS; do
        case $pass in
        metrics)
            mark() { rx0=$(metric qchat_udp_datagrams_received_total); tx0=$(metric qchat_udp_datagrams_sent_total); cpu0=$(cpu_ticks "$server_pid"); }
            done_() { rx1=$(metric qchat_udp_datagrams_received_total); tx1=$(metric qchat_udp_datagrams_sent_total); cpu1=$(cpu_ticks "$server_pid"); }
            start; drive "$driver" "$rate" mark done_; stop_server
            echo "| $CELL | $driver | $deliveries | $(per $((rx1 - rx0)) "$deliveries") | $(per $((tx1 - tx0)) "$deliveries") | $(per_unit_us $((cpu1 - cpu0)) "$deliveries") |"
            ;;
        strace)
            attach() { strace -c -f -p "$server_pid" -o "$work/strace.txt" 2>/dev/null & tracer=$!; }
            detach() { kill -INT "$tracer"; wait "$tracer" 2>/dev/null || true; }
            start; drive "$driver" "$rate" attach detach; stop_server
            echo "#### strace -c -f, $CELL, $driver: $deliveries deliveries"
            echo
            echo "| syscall | calls | per delivery |"
            echo "|---|---|---|"
            awk -v n="$deliveries" '$1 ~ /^[0-9.]+$/ && NF >= 5 {name = $NF; calls = $4; printf "| %s | %d | %.3f |\n", name, calls, calls / n}' "$work/strace.txt" \
                | sort -t'|' -k3 -nr | head -12
            echo
            ;;
        callgrind)
            objcopy --strip-debug "$SERVER" "$work/chat-server-stripped"
            cg_on() { callgrind_control -z "$server_pid" >/dev/null; }
            cg_off() { callgrind_control -d "$server_pid" >/dev/null; }
            SERVER_SAVED=$SERVER; SERVER=$work/chat-server-stripped
            start valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.%p" --dump-instr=no
            SERVER=$SERVER_SAVED
            drive "$driver" "$RATE_CALLGRIND" cg_on cg_off; stop_server
            # The dump callgrind_control -d wrote at "drained" (the one at exit holds the goodbyes).
            dump=$(ls "$work"/callgrind.*.1 | head -1)
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
            ;;
        esac
    done
done
