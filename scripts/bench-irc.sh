#!/usr/bin/env bash
# chat-server against InspIRCd 3 (Debian's `inspircd`: C++, one thread, the IRC server big
# networks run), side by side in one run: the same cells, the same load schedule and statistics
# (chat-bot load for chat-server, chat-bot irc-load for InspIRCd: open loop, latency from each
# message's intended send time, the sender's ack or echo counted apart), TLS 1.3 with ECDSA P-256
# certificates from one CA on both, history in memory, flood limits out of reach, 200-byte
# messages. Each server runs on core 0 in turn, a fresh one per cell, the driver on core 1. Server
# CPU comes from /proc/PID/stat the same way for both: from the moment every client has joined
# to the end of the drain (warm-up, measured window and drain; not the connects, not the
# goodbyes), divided by every delivery received in that time. Prints a markdown table: per cell an InspIRCd row and a chat-server row with the
# ratio of CPU per delivery, then the memory each server takes per idle client.
# `make bench-irc` runs it (and `make bench`); it installs inspircd with apt when missing.
#
# Then the capacity of one server core (issue 25): for each shape of CAPACITY (CLIENTS/ROOMS), the
# rate is raised step by step (CAPACITY_START msgs/s, times CAPACITY_STEP each step, a fresh server
# per step, CAPACITY_DURATION s measured after 1 s of warm-up) until a step loses a message,
# delivers under 95% of its schedule or has a p99 over ten times CAPACITY_P99 ms (25); the highest
# rate with nothing lost and a p99 within CAPACITY_P99 is the server's capacity, with its p99 and
# how busy its core was.
#
# Sizes can be overridden for a quick smoke run, e.g.
#   CELLS="20/1/50 40/4/100" DURATION=1 WARMUP=0.5 IDLE=40 IDLE_ROOMS=4 CAPACITY=" " scripts/bench-irc.sh
# (a cell is CLIENTS/ROOMS/MESSAGES_PER_SECOND). SERVER and BOT run other chat-server and chat-bot
# binaries (an older build, for a before-and-after in one sitting; then nothing is built),
# SERVER_FLAGS adds chat-server flags (e.g. "--coalesce-ms 0"), BOT_FLAGS chat-bot load flags (e.g.
# "--ack-hold-ms 0": the clients acknowledge on ngtcp2's schedule), SERVERS="chat" or "irc" runs one
# side only.
set -euo pipefail
cd "$(dirname "$0")/.."
CELLS=${CELLS:-"50/1/20 50/1/200 50/1/1000 200/10/1000 500/10/200 1000/50/1000"}
DURATION=${DURATION:-10}                   # measured seconds of each cell
WARMUP=${WARMUP:-3}
DRAIN=${DRAIN:-5}                          # at most this long for outstanding deliveries after each cell
SIZE=${SIZE:-200}                          # message text bytes
IDLE=${IDLE:-1000}                         # idle clients for the memory row...
IDLE_ROOMS=${IDLE_ROOMS:-10}               # ...in this many rooms
IRC_PORT=${IRC_PORT:-6697}                 # InspIRCd's TLS port (the next free one from here)
PORT=${BENCH_PORT:-4491}                   # chat-server's UDP port
CAPACITY=${CAPACITY-"50/1 1000/50"}        # shapes of the capacity search (" ": none)
CAPACITY_START=${CAPACITY_START:-"50/1:500 1000/50:500"}  # first rate per shape (default 500)
CAPACITY_STEP=${CAPACITY_STEP:-1.4}
CAPACITY_DURATION=${CAPACITY_DURATION:-4}
CAPACITY_P99=${CAPACITY_P99:-25}
CAPACITY_STEPS=${CAPACITY_STEPS:-14}       # at most this many steps per shape
SERVERS=${SERVERS:-"irc chat"}

# --- InspIRCd from Debian, installed once (it is root here, as on CI and the development machines).
if ! dpkg-query -W -f='${Status}' inspircd 2>/dev/null | grep -q "install ok installed"; then
    echo "installing inspircd..." >&2
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends inspircd >/dev/null
fi
INSPIRCD=/usr/sbin/inspircd
# InspIRCd refuses to run as root unless told it may.
ROOT_FLAG=()
[ "$(id -u)" -ne 0 ] || ROOT_FLAG=(--runasroot)

source scripts/bench-lib.sh
# Both given: those binaries as they are; else this tree's, built first.
if [ -z "${SERVER:-}" ] || [ -z "${BOT:-}" ]; then build_release_binaries; fi
bench_workspace
# stop_server (scripts/bench-lib.sh) does not check the server's status: InspIRCd with GnuTLS
# loaded may crash on SIGTERM (status 139) once its clients are gone, and nothing is measured
# then. No core files from that crash in the working tree.
ulimit -c 0

while tcp_port_listening "$IRC_PORT"; do IRC_PORT=$((IRC_PORT + 1)); done

# A fresh InspIRCd, not daemonised, on core 0, with its config, pid file and log in its own folder.
start_inspircd() {
    stop_server
    local dir="$work/inspircd"
    rm -rf "$dir"
    scripts/inspircd-config.sh "$dir" "$IRC_PORT" "$C/server.pem" "$C/server.key"
    taskset -c 0 "$INSPIRCD" --nofork "${ROOT_FLAG[@]}" --config="$dir/inspircd.conf" > "$dir/out.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 200); do tcp_port_listening "$IRC_PORT" && return 0; sleep 0.05; done
    echo "inspircd did not start: $(tail -5 "$dir/out.log")" >&2
    exit 1
}

# A fresh chat-server on core 0 with scripts/bench-chat.sh's flags (launch_chat_server in
# scripts/bench-lib.sh).
start_chat_server() {
    stop_server
    launch_chat_server
}

# One cell against one server: sets the row's figures (rate, CPU per delivery, the share of its
# core the server used, latency, lost, driver CPU) and whether the driver's run passed.
run_cell() {
    local kind=$1 clients=$2 rooms=$3 rate=$4
    local flags=(--clients "$clients" --rooms "$rooms" --rate "$rate" --duration "${CELL_DURATION:-$DURATION}"
                 --warmup "${CELL_WARMUP:-$WARMUP}" --drain "$DRAIN")
    if [ "$kind" = irc ]; then
        start_inspircd
        # InspIRCd welcomes new clients on a once-a-second tick: all register at once, before
        # anything is measured.
        run_bot irc-load "$IRC_PORT" "${flags[@]}" --connect-parallel "$clients" --connect-timeout 120
        tls=$(grep -o "TLS (.*" "$work/bot.err" | head -1 | cut -c5- || true)
    else
        start_chat_server
        run_bot load "$PORT" "${flags[@]}"
    fi
    stop_server
    cpu=$(per_unit_us "$load_ticks" "$(json "$report" deliveries.received_all)")
    figures="$(json "$report" deliveries.per_second) | $cpu | $load_busy% | $(json "$report" deliveries.latency_ms.p50) / $(json "$report" deliveries.latency_ms.p99) / $(json "$report" deliveries.latency_ms.p99_9) | $(json "$report" deliveries.lost) | $(json "$report" bot_cpu_seconds)"
    passed=$(json "$report" ok)
}

declare -A irc_row irc_cpu chat_row chat_cpu
tls=""
runs() { [[ " $SERVERS " == *" $1 "* ]]; }
runs irc || CELLS_IRC=" "
for cell in ${CELLS_IRC:-$CELLS}; do
    IFS=/ read -r clients rooms rate <<< "$cell"
    echo "InspIRCd: $clients clients in $rooms rooms, $rate msgs/s..." >&2
    run_cell irc "$clients" "$rooms" "$rate"
    irc_row[$cell]="$figures"; irc_cpu[$cell]=$cpu
    [ "$passed" = true ] || irc_row[$cell]+=" (FAILED: $(grep -o 'result.*' "$work/bot.out" || true))"
done
runs chat || CELLS_CHAT=" "
for cell in ${CELLS_CHAT:-$CELLS}; do
    IFS=/ read -r clients rooms rate <<< "$cell"
    echo "chat-server: $clients clients in $rooms rooms, $rate msgs/s..." >&2
    run_cell qchat "$clients" "$rooms" "$rate"
    chat_row[$cell]="$figures"; chat_cpu[$cell]=$cpu
    [ "$passed" = true ] || chat_row[$cell]+=" (FAILED)"
done

# Capacity: the highest rate of each shape that one server core carries with nothing lost, p99
# within CAPACITY_P99 ms and at least 95% of the schedule delivered, raised step by step.
declare -A capacity_row
capacity_search() {
    local kind=$1 shape=$2 clients rooms rate rate_then best="" why="" steps=0 start
    IFS=/ read -r clients rooms <<< "$shape"
    start=$(tr ' ' '\n' <<< "$CAPACITY_START" | awk -F: -v s="$shape" '$1 == s {print $2}')
    rate=${start:-500}
    while [ "$steps" -lt "$CAPACITY_STEPS" ]; do
        steps=$((steps + 1))
        echo "capacity, $kind: $clients clients in $rooms rooms, $rate msgs/s..." >&2
        CELL_DURATION=$CAPACITY_DURATION CELL_WARMUP=1 run_cell "$kind" "$clients" "$rooms" "$rate"
        local p99 lost per_second expected
        p99=$(json "$report" deliveries.latency_ms.p99)
        lost=$(json "$report" deliveries.lost)
        per_second=$(json "$report" deliveries.per_second)
        expected=$(awk -v r="$rate" -v c="$clients" -v n="$rooms" 'BEGIN {printf "%.0f", r * (c / n - 1)}')
        if [ "$passed" != true ] || [ "$lost" != 0 ]; then why="$rate msgs/s: lost $lost"; break; fi
        if awk -v d="$per_second" -v e="$expected" 'BEGIN {exit !(d < 0.95 * e)}'; then why="$rate msgs/s: $per_second of $expected deliveries/s"; break; fi
        rate_then=$rate
        rate=$(awk -v r="$rate" -v s="$CAPACITY_STEP" 'BEGIN {printf "%.0f", r * s}')
        if awk -v p="$p99" -v l="$CAPACITY_P99" 'BEGIN {exit !(p > l)}'; then
            # A tail can come and go with the rate (Nagle's algorithm holds InspIRCd's lines
            # until an ACK, at low rates more than at high ones): the search goes on until the
            # tail is ten times the bound, a queue that only grows.
            why="$rate_then msgs/s: p99 $p99 ms"
            awk -v p="$p99" -v l="$CAPACITY_P99" 'BEGIN {exit !(p > 10 * l)}' && break
            continue
        fi
        best="$rate_then | $per_second | $p99 | $load_busy% | $(json "$report" bot_cpu_seconds)"
    done
    capacity_row[$kind,$shape]="${best:-none passed | | | | } | ${why:-every step passed}"
}
for shape in $CAPACITY; do
    runs irc && capacity_search irc "$shape"
    runs chat && capacity_search qchat "$shape"
done

# Memory: RSS per idle client, from a fresh server's RSS to its RSS with IDLE clients connected.
echo "idle clients..." >&2
irc_base=0 irc_idle=0 chat_base=0 chat_idle=0
if runs irc; then
    start_inspircd
    irc_base=$(rss_kb "$server_pid")
    irc_idle=$(measure_idle_rss irc-load "$IRC_PORT" "$IDLE" "$IDLE_ROOMS" --connect-parallel "$IDLE" --connect-timeout 120)
fi
if runs chat; then
    start_chat_server
    chat_base=$(rss_kb "$server_pid")
    chat_idle=$(measure_idle_rss load "$PORT" "$IDLE" "$IDLE_ROOMS")
fi
stop_server
per_idle() { awk -v a="$1" -v b="$2" -v n="$IDLE" 'BEGIN {printf "%.1f KiB (%.1f KB)", (b - a) / n, (b - a) * 1.024 / n}'; }

ratio() { awk -v q="$1" -v i="$2" 'BEGIN {if (i > 0 && q > 0) printf "%.2f", q / i; else print "n/a"}'; }
echo "## chat-server against InspIRCd ($(date -u +%Y-%m-%d), $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo))"
echo
echo "$(dpkg-query -W -f='InspIRCd ${Version}' inspircd) (ssl_gnutls, scripts/inspircd-config.sh) driven by chat-bot irc-load; chat-server (release) by"
echo "chat-bot load. Each server alone on core 0, a fresh one per cell, the driver on core 1; ${SIZE}-byte messages,"
echo "open-loop uniform schedule, ${DURATION} s measured after ${WARMUP} s warm-up. InspIRCd's TLS: ${tls:-unknown}; chat-server:"
echo "QUIC with TLS 1.3, AES-128-GCM, the same ECDSA P-256 certificate. Server CPU (1/${HZ} s ticks of /proc/PID/stat) from"
echo "the moment every client has joined to the end of the drain, divided by every delivery received in that time."
echo
echo "| cell (clients/rooms, msgs/s) | server | deliveries/s | server CPU µs per delivery | server core busy | latency ms p50 / p99 / p99.9 | lost | driver CPU s | CPU per delivery, chat-server / InspIRCd |"
echo "|---|---|---|---|---|---|---|---|---|"
for cell in $CELLS; do
    IFS=/ read -r clients rooms rate <<< "$cell"
    runs irc && echo "| $clients/$rooms, $rate | InspIRCd | ${irc_row[$cell]} | |"
    runs chat && echo "| $clients/$rooms, $rate | chat-server | ${chat_row[$cell]} | $(ratio "${chat_cpu[$cell]:-0}" "${irc_cpu[$cell]:-0}") |"
done
echo
if [ -n "${CAPACITY// /}" ]; then
    echo "Capacity of one server core: the rate raised from the first step by ${CAPACITY_STEP}x until a step lost a message,"
    echo "delivered under 95% of its schedule or had a p99 over ten times ${CAPACITY_P99} ms; the highest step with nothing lost"
    echo "and a p99 within ${CAPACITY_P99} ms (${CAPACITY_DURATION} s measured per step, a fresh server each)."
    echo
    echo "| shape (clients/rooms) | server | highest msgs/s that passed | its deliveries/s | its p99 ms | server core busy | driver CPU s | the last step that failed |"
    echo "|---|---|---|---|---|---|---|---|"
    for shape in $CAPACITY; do
        runs irc && echo "| $shape | InspIRCd | ${capacity_row[irc,$shape]} |"
        runs chat && echo "| $shape | chat-server | ${capacity_row[qchat,$shape]} |"
    done
    echo
fi
echo "| idle memory ($IDLE idle clients in $IDLE_ROOMS rooms) | RSS fresh | RSS with the clients | per idle client |"
echo "|---|---|---|---|"
runs irc && echo "| InspIRCd (TLS over TCP) | $irc_base KiB | $irc_idle KiB | $(per_idle "$irc_base" "$irc_idle") |"
runs chat && echo "| chat-server (QUIC) | $chat_base KiB | $chat_idle KiB | $(per_idle "$chat_base" "$chat_idle") |"
