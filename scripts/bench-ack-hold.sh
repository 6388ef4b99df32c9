#!/usr/bin/env bash
# What our clients' ACK hold (QuicConfiguration.acknowledgementHold, `chat-bot --ack-hold-ms`)
# saves chat-server (issue 25): the same release binaries, chat-bot load with the hold off
# (`--ack-hold-ms 0`, ngtcp2's own schedule) and on (the default, 10 ms), alternating on a fresh
# server per run, REPEATS times per cell. Per run: server CPU per delivery, the server's UDP
# datagrams received and sent per delivery (its metrics page), latency p50 / p99, lost; then the
# medians. Server on core 0, chat-bot on core 1, as scripts/bench-irc.sh runs them.
#
#   scripts/bench-ack-hold.sh                 (CELLS, REPEATS, DURATION, WARMUP may be set)
#   CELLS="50/1/200" REPEATS=2 DURATION=4 scripts/bench-ack-hold.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CELLS=${CELLS:-"50/1/200 50/1/1000 200/10/1000 500/10/200"}
REPEATS=${REPEATS:-3}
DURATION=${DURATION:-6}
WARMUP=${WARMUP:-2}
DRAIN=${DRAIN:-5}
SIZE=${SIZE:-200}
HOLDS=${HOLDS:-"0 10"}                     # --ack-hold-ms values compared
PORT=${BENCH_PORT:-4493}
METRICS_PORT=${METRICS_PORT:-9493}
source scripts/bench-lib.sh
if [ -z "${SERVER:-}" ] || [ -z "${BOT:-}" ]; then build_release_binaries; fi
bench_workspace

datagrams() { echo "$(server_metric "$METRICS_PORT" qchat_udp_datagrams_received_total) $(server_metric "$METRICS_PORT" qchat_udp_datagrams_sent_total)"; }
at_connected() { read -r received0 sent0 <<< "$(datagrams)"; }
at_drained() { read -r received1 sent1 <<< "$(datagrams)"; }
median() { tr ' ' '\n' <<< "$1" | grep -v '^$' | sort -g | awk '{v[NR] = $1} END {if (NR == 0) {print "n/a"; exit} m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f", m}'; }

declare -A cpus received sent
rows=()
for repeat in $(seq "$REPEATS"); do
    for cell in $CELLS; do
        IFS=/ read -r clients rooms rate <<< "$cell"
        for hold in $HOLDS; do
            echo "run $repeat/$REPEATS: --ack-hold-ms $hold, $clients clients in $rooms rooms, $rate msgs/s..." >&2
            stop_server
            launch_chat_server --metrics "127.0.0.1:$METRICS_PORT"
            run_bot load "$PORT" --clients "$clients" --rooms "$rooms" --rate "$rate" --duration "$DURATION" \
                --warmup "$WARMUP" --drain "$DRAIN" --ack-hold-ms "$hold"
            stop_server
            deliveries=$(json "$report" deliveries.received_all)
            lost=$(( $(json "$report" deliveries.lost) + $(json "$report" messages.unacknowledged_measured) ))
            cpu=$(per_unit_us "$load_ticks" "$deliveries")
            r=$(awk -v r=$((received1 - received0)) -v n="$deliveries" 'BEGIN {if (n > 0) printf "%.3f", r / n; else print "n/a"}')
            s=$(awk -v s=$((sent1 - sent0)) -v n="$deliveries" 'BEGIN {if (n > 0) printf "%.3f", s / n; else print "n/a"}')
            cpus[$cell/$hold]+="$cpu "; received[$cell/$hold]+="$r "; sent[$cell/$hold]+="$s "
            rows+=("| $clients/$rooms, $rate | $hold | $repeat | $(json "$report" deliveries.per_second) | $cpu | $r / $s | $(json "$report" deliveries.latency_ms.p50) / $(json "$report" deliveries.latency_ms.p99) | $lost |")
        done
    done
done

echo "## Our clients' ACK hold, off and on ($(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "chat-bot load against chat-server (release), a fresh server per run on core 0, chat-bot on core 1; ${SIZE}-byte"
echo "messages, ${DURATION} s measured after ${WARMUP} s warm-up; server CPU from every client joined to the end of the drain."
echo
echo "| cell (clients/rooms, msgs/s) | --ack-hold-ms | run | deliveries/s | server CPU µs per delivery | server datagrams received / sent per delivery | latency ms p50 / p99 | lost |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "| cell | --ack-hold-ms | server CPU µs per delivery (median of $REPEATS) | datagrams received per delivery | sent per delivery |"
echo "|---|---|---|---|---|"
for cell in $CELLS; do
    for hold in $HOLDS; do
        echo "| $cell | $hold | $(median "${cpus[$cell/$hold]}") | $(median "${received[$cell/$hold]}") | $(median "${sent[$cell/$hold]}") |"
    done
done
