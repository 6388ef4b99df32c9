#!/usr/bin/env bash
# Accounts benchmarks (issue 13), release builds: what a login at hello costs chat-server's CPU by
# path (guest for the baseline, client certificate, password: argon2id on a worker thread), and the
# latency other clients see while 100 clients log in with a password at once. Server pinned to core
# 0, bots to core 1; CPU from /proc/PID/stat (all threads: the password worker included). Prints a
# markdown report (docs/PERFORMANCE.md, "Accounts").
#
#   CLIENTS=100 ROUNDS=3 OTHERS=20 RATE=200 DURATION=8 REPEATS=3 scripts/bench-accounts.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CLIENTS=${CLIENTS:-100}      # accounts logging in at once
ROUNDS=${ROUNDS:-3}          # bursts per path
OTHERS=${OTHERS:-20}         # clients chatting in one room meanwhile
RATE=${RATE:-200}            # their messages a second, in all
DURATION=${DURATION:-8}      # measured seconds of their load run
WARMUP=${WARMUP:-1}
REPEATS=${REPEATS:-3}        # runs of each latency row
SIZE=${SIZE:-100}
PORT=${BENCH_PORT:-4491}
source scripts/bench-lib.sh
build_release_binaries
bench_workspace

# chat-server on core 0 (its password worker thread too: the worst case, sharing the loop's core),
# flood limits raised for the load, history in memory; extra flags follow.
start_server() {
    [ -n "$server_pid" ] && { kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""; }
    while udp_port_bound "$PORT"; do sleep 0.1; done
    taskset -c 0 "$SERVER" --port "$PORT" --cert "$C/server.pem" --key "$C/server.key" --log-level warning \
        --flood-burst 1000000 --flood-rate 1000000 --password-queue 128 "$@" > "$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 100); do udp_port_bound "$PORT" && return 0; sleep 0.05; done
    echo "chat-server did not start: $(cat "$work/server.log")" >&2
    exit 1
}
start_server

echo "## Accounts ($(date -u +%Y-%m-%d), $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo))"
echo
echo "### Login at hello: server CPU per connection, $CLIENTS clients at once, median of $ROUNDS bursts"
echo
echo "Full TLS handshakes (\`--no-resume\`; the certificate path includes verifying the client's signature):"
echo
echo '```'
taskset -c 1 "$BOT" logins --port "$PORT" --ca "$C/ca.pem" --clients "$CLIENTS" --rounds "$ROUNDS" --server-pid "$server_pid" \
    --prefix full --password bench-password-1 --no-resume 2> "$work/logins.err"
echo '```'
echo
echo "Resumed TLS sessions (each identity resumes its own session; the server sees the certificate of the session):"
echo
echo '```'
taskset -c 1 "$BOT" logins --port "$PORT" --ca "$C/ca.pem" --clients "$CLIENTS" --rounds "$ROUNDS" --server-pid "$server_pid" \
    --prefix bench --password bench-password-1 2> "$work/logins.err"
echo '```'

others() {
    run_bot load "$PORT" --clients "$OTHERS" --rooms 1 --rate "$RATE" --duration "$DURATION" --warmup "$WARMUP" --drain 5
}

echo
echo "### Others' latency while $CLIENTS clients log in with a password at once"
echo
echo "chat-bot load: $OTHERS clients in one room, $RATE msgs/s in all, ${DURATION} s measured; the burst starts"
echo "$((WARMUP + 2)) s into the run (${CLIENTS} hellos at once). Server and its password worker share core 0: the worst case."
echo
echo "Each run $REPEATS times, one after the other (the machine is shared: the spread shows how much that"
echo "moves the tail); the median of each column, and the p99 of every run."
echo
echo "| run | p50 | p99 | p99.9 | max (ms) | p99 of each run | burst: last welcome (median) |"
echo "|---|---|---|---|---|---|---|"
median() { sort -g | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]; else print "n/a"}'; }
# Runs the others' load REPEATS times (with a burst of PATH hellos, or none) and prints the row LABEL.
measure_row() {
    local label=$1 path=$2
    : > "$work/p50"; : > "$work/p99"; : > "$work/p999"; : > "$work/max"; : > "$work/last"
    for _ in $(seq "$REPEATS"); do
        if [ "$path" = none ]; then others; else with_burst "$path"; echo "$last" >> "$work/last"; fi
        json "$report" deliveries.latency_ms.p50 >> "$work/p50"
        json "$report" deliveries.latency_ms.p99 >> "$work/p99"
        json "$report" deliveries.latency_ms.p99_9 >> "$work/p999"
        json "$report" deliveries.latency_ms.max >> "$work/max"
    done
    local lasts=""
    [ "$path" = none ] || lasts="$(median < "$work/last") ms"
    echo "| $label | $(median < "$work/p50") | $(median < "$work/p99") | $(median < "$work/p999") | $(median < "$work/max") | $(paste -sd' ' "$work/p99") | $lasts |"
}
# The others' load with a burst of hellos (PATH: guest or password) WARMUP + 2 s into it.
with_burst() {
    ( sleep $((WARMUP + 2)); taskset -c 1 "$BOT" logins --port "$PORT" --ca "$C/ca.pem" --clients "$CLIENTS" --rounds 1 \
        --prefix bench --password bench-password-1 --existing --paths "$1" > "$work/burst.out" 2> "$work/burst.err" ) &
    local burst=$!
    others
    wait "$burst"
    last=$(awk -v path="$1" '$1 == path {print $3}' "$work/burst.out")
}
measure_row "no logins" none
measure_row "$CLIENTS guests at once (handshakes and hellos, no password)" guest
measure_row "$CLIENTS password logins at once (1 worker thread, SCHED_BATCH nice 19)" password
# The same with the hashes on the event loop itself (--password-workers 0: what the workers avoid).
start_server --password-workers 0
taskset -c 1 "$BOT" logins --port "$PORT" --ca "$C/ca.pem" --clients "$CLIENTS" --rounds 1 --paths password \
    --prefix bench --password bench-password-1 > /dev/null 2> "$work/register.err"
measure_row "the same, hashing on the event loop (\`--password-workers 0\`)" password
