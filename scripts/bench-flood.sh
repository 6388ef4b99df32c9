#!/usr/bin/env bash
# A flooder against ten chatters (hostile-traffic scenario 8): ten clients chat in one room at
# 20 msgs/s while, in every other run, a client floods 1,000 messages a second into the same room
# and reconnects each time it is thrown out. The server runs with its default flood limits (burst
# 20, 5 a second, 10 strikes). Quiet and flooded runs alternate, RUNS times, so a burst of other
# work on the machine does not pass for the flood's doing; each run's p50/p99 is printed.
# The end-to-end test (HostileTrafficTests) checks that nothing is lost and that the flooder is
# rate-limited and closed; how much the flood costs the others' latency is this benchmark's.
# Release builds; server on core 0, bots on core 1.
#   scripts/bench-flood.sh                    # RUNS=3 DURATION=4
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
DURATION=${DURATION:-4}
PORT=${BENCH_PORT:-4493}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
source scripts/bench-lib.sh
swift build -c release --product chat-server >&2
swift build -c release --product chat-bot >&2
scripts/make-certs.sh "$work/certs" >/dev/null
taskset -c 0 .build/release/chat-server --port "$PORT" --cert "$work/certs/server.pem" --key "$work/certs/server.key" \
    --log-level warning > "$work/server.log" 2>&1 &
for _ in $(seq 200); do udp_port_bound "$PORT" && break; sleep 0.05; done

load() {  # load NAME: one measured run of the ten chatters, its JSON report in $work/NAME.json
    taskset -c 1 .build/release/chat-bot load --port "$PORT" --ca "$work/certs/ca.pem" --clients 10 --rooms 1 --rate 20 \
        --duration "$DURATION" --warmup 1 --json "$work/$1.json" > "$work/$1.txt" 2>&1
}
row() {  # row KIND NAME
    local f=$work/$2.json
    echo "| $1 | $(json "$f" deliveries.latency_ms.p50) | $(json "$f" deliveries.latency_ms.p99) | $(json "$f" deliveries.lost) | $(json "$f" messages.rate_limited) |"
}
echo "## Ten chatters with and without a flooder ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg))"
echo
echo "| run | p50 ms | p99 ms | lost | chatters rate-limited |"
echo "|---|---|---|---|---|"
for run in $(seq "$RUNS"); do
    load "quiet$run"
    row "quiet $run" "quiet$run"
    taskset -c 1 .build/release/chat-bot flood --port "$PORT" --ca "$work/certs/ca.pem" --rate 1000 \
        --duration $((DURATION + 3)) --reconnect --room load0 > "$work/flood$run.txt" 2>&1 &
    flooder=$!
    load "flooded$run"
    row "flooded $run" "flooded$run"
    wait "$flooder" || true
done
echo
echo "flooder of the last run: $(grep -E 'FLOODING|acknowledged|connections' "$work/flood$RUNS.txt" | tr '\n' ' ' | cut -c1-300)"
