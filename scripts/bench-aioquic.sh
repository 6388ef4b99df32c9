#!/usr/bin/env bash
# chat-server under independent QUIC clients that acknowledge every packet at once: aioquic
# (tools/bench/aioquic_chat_load.py, aioquic pinned by tools/interop/setup.sh, in
# .build/interop-venv) against chat-bot load (our own engine, which delays its ACKs), on the
# same cells with the same open-loop schedule, in one run. Each cell gets a fresh release
# chat-server on core 0 with scripts/bench-chat.sh's flags (flood limits raised, history in
# memory), the driver on core 1; server CPU from /proc/PID/stat from the moment every client
# has joined to the end of the drain (warm-up, measured window and drain), divided by every
# delivery received in that time, as scripts/bench-chat.sh and scripts/bench-irc.sh count it.
# Prints a markdown table, a row per cell, driver and repetition, then the medians.
# `make bench-aioquic` runs it (and `make bench`).
#
# AIOQUIC_FLAGS adds driver flags: AIOQUIC_FLAGS="--hold-sends 2" sends all clients' datagrams
# together every 2 ms (the ACKs reach the server in bursts, as chat-bot load's do: a diagnosis of
# what the spread-out ACKs cost). Sizes can be overridden for a quick smoke run, e.g.
#   CELLS="6/2/20" REPEATS=1 DURATION=1 WARMUP=0.5 scripts/bench-aioquic.sh
# (a cell is CLIENTS/ROOMS/MESSAGES_PER_SECOND). SERVER and BOT run other builds (both given: none is
# built), SERVER_FLAGS adds chat-server flags (e.g. "--coalesce-ms 0").
set -euo pipefail
cd "$(dirname "$0")/.."
CELLS=${CELLS:-"50/1/20 50/1/40"}
REPEATS=${REPEATS:-3}
DURATION=${DURATION:-10}                   # measured seconds of each cell
WARMUP=${WARMUP:-3}
DRAIN=${DRAIN:-5}                          # at most this long for outstanding deliveries after each cell
SIZE=${SIZE:-200}                          # message text bytes
PORT=${BENCH_PORT:-4492}
METRICS_PORT=${METRICS_PORT:-9492}         # the server's metrics page: its UDP datagram counters
AIOQUIC_FLAGS=${AIOQUIC_FLAGS:-}           # more flags for the driver, e.g. --hold-sends 2 (a diagnosis)
source scripts/bench-lib.sh
prepare_aioquic
# SERVER and BOT both given: those binaries as they are (an older build, say); else this tree's.
if [ -z "${SERVER:-}" ] || [ -z "${BOT:-}" ]; then build_release_binaries; fi
bench_workspace

# The server's UDP datagrams received and sent, at the two moments run_bot measures between.
datagrams() { echo "$(server_metric "$METRICS_PORT" qchat_udp_datagrams_received_total) $(server_metric "$METRICS_PORT" qchat_udp_datagrams_sent_total)"; }
at_connected() { read -r received0 sent0 <<< "$(datagrams)"; }
at_drained() { read -r received1 sent1 <<< "$(datagrams)"; }

# One cell with one driver on a fresh server: sets row (the table's figures) and cpu.
run_cell() {
    local driver=$1 clients=$2 rooms=$3 rate=$4
    local flags=(--clients "$clients" --rooms "$rooms" --rate "$rate" --duration "$DURATION" --warmup "$WARMUP" --drain "$DRAIN")
    stop_server
    launch_chat_server --metrics "127.0.0.1:$METRICS_PORT"
    if [ "$driver" = aioquic ]; then
        # run_bot starts "$BOT COMMAND --port ... --ca ... --size ... --json ..." on core 1.
        # shellcheck disable=SC2086 # AIOQUIC_FLAGS is a list of flags
        BOT=$PYTHON run_bot "$AIOQUIC_DRIVER" "$PORT" "${flags[@]}" $AIOQUIC_FLAGS
        lost=$(( $(json "$report" deliveries.lost) + $(json "$report" messages.unacknowledged) ))
        sent_per=$(json "$report" datagrams.sent_per_delivery)
    else
        run_bot load "$PORT" "${flags[@]}"
        lost=$(( $(json "$report" deliveries.lost) + $(json "$report" messages.unacknowledged_measured) ))
        sent_per=n/a
    fi
    stop_server
    local deliveries
    deliveries=$(json "$report" deliveries.received_all)
    cpu=$(per_unit_us "$load_ticks" "$deliveries")
    local server_datagrams
    server_datagrams=$(awk -v r=$((received1 - received0)) -v s=$((sent1 - sent0)) -v n="$deliveries" 'BEGIN {if (n > 0) printf "%.2f / %.2f", r / n, s / n; else print "n/a"}')
    row="$(json "$report" deliveries.per_second) | $cpu | $load_busy% | $(json "$report" deliveries.latency_ms.p50) / $(json "$report" deliveries.latency_ms.p99) | $lost | $server_datagrams | $sent_per | $(json "$report" bot_cpu_seconds)"
    [ "$(json "$report" ok)" = true ] || row+=" (FAILED: $(grep -o 'result.*\|protocol deviation.*' "$work/bot.out" "$work/bot.err" | head -2 | tr '\n' ' '))"
}

# The median and the spread of a list of figures: "median (min-max)".
median_spread() { tr ' ' '\n' <<< "$1" | grep -v '^$' | sort -g | awk '{v[NR] = $1} END {if (NR == 0) {print "n/a"; exit} m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f (%.1f-%.1f)", m, v[1], v[NR]}'; }

declare -A cpus
rows=()
for repeat in $(seq "$REPEATS"); do
    for cell in $CELLS; do
        IFS=/ read -r clients rooms rate <<< "$cell"
        for driver in aioquic chat-bot; do
            echo "run $repeat/$REPEATS: $driver, $clients clients in $rooms rooms, $rate msgs/s..." >&2
            run_cell "$driver" "$clients" "$rooms" "$rate"
            rows+=("| $clients/$rooms, $rate | $driver | $repeat | $row |")
            cpus[$cell/$driver]+="$cpu "
        done
    done
done

echo "## chat-server under independent aioquic clients ($(date -u +%Y-%m-%d), $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo))"
echo
echo "aioquic $("$PYTHON" -c 'from importlib.metadata import version; print(version("aioquic"))') ($AIOQUIC_DRIVER, ACK within 1 ms of every ack-eliciting packet) and chat-bot load"
echo "against chat-server (release), a fresh one per row on core 0, the driver on core 1; ${SIZE}-byte messages, open-loop"
echo "uniform schedule, ${DURATION} s measured after ${WARMUP} s warm-up. Server CPU (1/${HZ} s ticks of /proc/PID/stat) from the"
echo "moment every client has joined to the end of the drain, divided by every delivery received in that time;"
echo "the server's UDP datagrams (its metrics page) over the same stretch."
echo "Latency is from each message's intended send time to its receipt and includes the driver's own delays."
[ -z "$AIOQUIC_FLAGS" ] || echo "The aioquic driver ran with $AIOQUIC_FLAGS."
echo
echo "| cell (clients/rooms, msgs/s) | driver | run | deliveries/s | server CPU µs per delivery | server core busy | latency ms p50 / p99 | lost | server datagrams received / sent per delivery | aioquic datagrams sent per delivery | driver CPU s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "| cell (clients/rooms, msgs/s) | driver | server CPU µs per delivery, median (min-max) of $REPEATS |"
echo "|---|---|---|"
for cell in $CELLS; do
    IFS=/ read -r clients rooms rate <<< "$cell"
    for driver in aioquic chat-bot; do
        echo "| $clients/$rooms, $rate | $driver | $(median_spread "${cpus[$cell/$driver]}") |"
    done
done
