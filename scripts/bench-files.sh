#!/usr/bin/env bash
# Files on their own streams (issue 14): one client uploads FILE_SIZE (default 1 GiB) while it
# and the other CLIENTS-1 chat at RATE msgs/s in its room with TYPING typing datagrams a second;
# the same run without the upload; and both again with typing on the presence stream instead of
# datagrams (--typing-on-stream). Prints chat and typing latency, the upload's throughput and the
# server's RSS before and at its peak during each run. Server on core 0, bots on core 1.
# `make bench` runs it; every size can be overridden, e.g.
#   FILE_SIZE=100M DURATION=3 WARMUP=1 scripts/bench-files.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CLIENTS=${CLIENTS:-50}
RATE=${RATE:-200}
TYPING=${TYPING:-50}
FILE_SIZE=${FILE_SIZE:-1G}
DURATION=${DURATION:-12}
WARMUP=${WARMUP:-2}
SIZE=${SIZE:-100}
PORT=${BENCH_PORT:-4491}
source scripts/bench-lib.sh
build_release_binaries
bench_workspace

start_server() {
    [ -n "$server_pid" ] && { kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; }
    rm -rf "$work/files"
    launch_chat_server --files "$work/files" --max-file-size 4294967296 --file-quota 8589934592 --files-max-bytes 17179869184
}

# The server's RSS every 0.2 s while the bot runs, its peak into $peak_kb.
sample_rss() {
    peak_kb=0
    while [ ! -f "$work/stop-sampling" ]; do
        local now; now=$(rss_kb "$server_pid" 2>/dev/null || echo 0)
        [ "$now" -gt "$peak_kb" ] && peak_kb=$now
        echo "$peak_kb" > "$work/peak"
        sleep 0.2
    done
}

row() {
    local label=$1; shift
    start_server
    local before_kb; before_kb=$(rss_kb "$server_pid")
    rm -f "$work/stop-sampling" "$work/peak"
    sample_rss &
    local sampler=$!
    run_bot load "$PORT" --clients "$CLIENTS" --rooms 1 --rate "$RATE" --typing "$TYPING" --duration "$DURATION" --warmup "$WARMUP" \
        --drain 120 "$@"
    touch "$work/stop-sampling"; wait "$sampler" 2>/dev/null || true
    local peak; peak=$(cat "$work/peak" 2>/dev/null || echo 0)
    local files="none"
    if [ "$(json "$report" files.started)" != 0 ]; then
        files="$(json "$report" files.completed)/$(json "$report" files.started) done, $(json "$report" files.throughput_mib_s) MiB/s"
    fi
    echo "| $label | \`$command\` | chat $(latency deliveries.latency_ms) | typing p50 $(json "$report" typing.latency_ms.p50) / p99 $(json "$report" typing.latency_ms.p99) ms (ratio $(json "$report" typing.delivery_ratio)) | $files | $((before_kb / 1024)) -> $((peak / 1024)) MiB | lost $(json "$report" deliveries.lost) |"
}
latency() { echo "p50 $(json "$report" "$1.p50") / p99 $(json "$report" "$1.p99") / max $(json "$report" "$1.max") ms"; }

echo "## Files next to chat ($(date -u +%Y-%m-%d), $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo); a shared machine: wall-clock figures move with the others' load)"
echo
echo "chat-server (release) on core 0, chat-bot on core 1; $CLIENTS clients in one room, $RATE msgs/s of $SIZE B, $TYPING typing/s; $DURATION s measured after $WARMUP s warm-up. The upload ($FILE_SIZE of random bytes, one client) starts with the warm-up."
echo
echo "| run | command | chat latency | typing latency | upload | server RSS before -> peak | losses |"
echo "|---|---|---|---|---|---|---|"
row "chat and typing datagrams, no file"
row "the same with one $FILE_SIZE upload" --file-size "$FILE_SIZE" --file-rate 0.001
row "typing on the presence stream, no file" --typing-on-stream
row "typing on the presence stream, one $FILE_SIZE upload" --typing-on-stream --file-size "$FILE_SIZE" --file-rate 0.001
