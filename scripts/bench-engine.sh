#!/usr/bin/env bash
# Engine benchmarks (issue: QUIC engine): bulk transfer against ngtcp2's own gtlsserver/gtlsclient,
# full handshakes on one server core, and server memory per idle connection.
# Server pinned to core 0, client to core 1. Prints a markdown report; `make bench` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
BYTES=${BYTES:-200000000}
ECHO=.build/release/quic-echo
work=$(mktemp -d)
trap 'pkill -P $$ 2>/dev/null || true; rm -rf "$work"' EXIT
scripts/make-certs.sh "$work/certs" >/dev/null
C="$work/certs"

wait_ready() { for _ in $(seq 100); do grep -q READY "$1" 2>/dev/null && return 0; sleep 0.05; done; return 1; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }

echo "## Engine benchmarks ($(date -u +%Y-%m-%d), $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo))"
echo

# --- Bulk transfer: the same bytes, ours and ngtcp2's examples, alternating, wall time per process.
taskset -c 0 "$ECHO" server --cert "$C/server.pem" --key "$C/server.key" --port 0 > "$work/ours.out" 2>&1 &
wait_ready "$work/ours.out"
port=$(awk '/READY/ {print $2}' "$work/ours.out")
mkdir -p "$work/htdocs"
head -c "$BYTES" /dev/zero > "$work/htdocs/blob"
taskset -c 0 gtlsserver -q --no-quic-dump --no-http-dump -d "$work/htdocs" 127.0.0.1 4499 "$C/server.key" "$C/server.pem" > "$work/gtls.out" 2>&1 &
sleep 0.3
: > "$work/ours.times"; : > "$work/gtls.times"
for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "%e" -o "$work/t" taskset -c 1 "$ECHO" client --port "$port" --ca "$C/ca.pem" --server-name localhost \
        --download "$BYTES" --timeout 120 > "$work/last.json"
    grep -q '"ok": true' "$work/last.json" || { echo "our transfer failed: $(cat "$work/last.json")" >&2; exit 1; }
    cat "$work/t" >> "$work/ours.times"
    /usr/bin/time -f "%e" -o "$work/t" taskset -c 1 gtlsclient -q --no-quic-dump --no-http-dump --exit-on-all-streams-close \
        127.0.0.1 4499 "https://127.0.0.1:4499/blob" > /dev/null 2>&1
    cat "$work/t" >> "$work/gtls.times"
done
ours=$(median < "$work/ours.times")
gtls=$(median < "$work/gtls.times")
echo "| bulk transfer of $BYTES bytes, loopback | median of $RUNS, wall s | MB/s |"
echo "|---|---|---|"
echo "| qchat engine (quic-echo download) | $ours | $(awk -v b="$BYTES" -v s="$ours" 'BEGIN {printf "%.0f", b/s/1e6}') |"
echo "| ngtcp2 gtlsserver/gtlsclient (HTTP/3) | $gtls | $(awk -v b="$BYTES" -v s="$gtls" 'BEGIN {printf "%.0f", b/s/1e6}') |"
echo "| ratio (ours / theirs throughput) | $(awk -v o="$ours" -v g="$gtls" 'BEGIN {printf "%.0f%%", 100*g/o}') | |"
echo
echo "runs, ours: $(tr '\n' ' ' < "$work/ours.times")  ngtcp2: $(tr '\n' ' ' < "$work/gtls.times")"
echo
pkill gtlsserver || true

# --- Handshakes: the server's CPU per full handshake gives its rate on one core.
server_pid=$(pgrep -f "quic-echo server --cert $C/server.pem")
HANDSHAKES=${HANDSHAKES:-5000}
for verify in verified insecure; do
    flags=(--ca "$C/ca.pem" --server-name localhost)
    [ "$verify" = insecure ] && flags=(--insecure)
    before=$(cpu_ticks "$server_pid")
    taskset -c 1 "$ECHO" client --port "$port" "${flags[@]}" --handshakes "$HANDSHAKES" --concurrency 64 --timeout 120 > "$work/hs.json"
    after=$(cpu_ticks "$server_pid")
    rate=$(sed 's/.*"handshakes_per_second": \([0-9]*\).*/\1/' "$work/hs.json")
    cpu_us=$(awk -v t=$((after - before)) -v n="$HANDSHAKES" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.0f", t/hz*1e6/n}')
    echo "- handshakes ($verify client, ECDSA P-256, 64 in flight): $rate/s achieved (client core saturated); server CPU $cpu_us us per handshake = $(awk -v c="$cpu_us" 'BEGIN {printf "%.0f", 1e6/c}') handshakes/s on one server core"
done
echo

# --- Idle connections: the slope of server RSS between 1,000 and 5,000.
measure_idle() {
    local count=$1
    taskset -c 1 "$ECHO" client --port "$port" --insecure --idle "$count" --hold 600 --timeout 900 > "$work/idle.out" 2>&1 &
    local client=$!
    for _ in $(seq 600); do grep -q HOLDING "$work/idle.out" && break; sleep 0.1; done
    sleep 1
    rss_kb "$server_pid"
    kill "$client"; wait "$client" 2>/dev/null || true
    sleep 4  # closing periods end
}
rss1=$(measure_idle 1000)
rss5=$(measure_idle 5000)
echo "- idle connections: server RSS $rss1 KiB at 1,000 and $rss5 KiB at 5,000: $(awk -v a="$rss1" -v b="$rss5" 'BEGIN {printf "%.1f", (b-a)/4000}') KiB per connection"
