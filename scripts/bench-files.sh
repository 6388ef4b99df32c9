#!/usr/bin/env bash
# Files on their own streams (issue 14): CLIENTS clients chat at RATE msgs/s with TYPING typing
# datagrams a second in one room while one more member of that room, a process of its own
# (`chat-bot script`), uploads FILE_SIZE files back to back; the same run with that member idle;
# both again with typing on the presence stream (--typing-on-stream); and the upload alone.
# Prints the bots' chat and typing latency, the server's own delivery latency (its
# qchat_delivery_latency_seconds histogram over the measured stretch), the upload's throughput
# and the server's RSS before and at its peak.
#
# Placement: the server on core 0; chat-bot load on core 1; the uploader on core 1 too, in
# SCHED_IDLE, so that on the core it shares with the measured receivers it only takes what they
# leave (it stands for another machine: its CPU must not delay the bots' clocks; a woken normal
# task preempts an idle-class one at once, where nice 19 can keep the core for a scheduler
# slice). The upload alone runs the uploader as a normal task. On a shared machine,
# `chrt -f 1 scripts/bench-files.sh` runs the server and the bots in SCHED_FIFO, so others'
# builds no longer take their cores; the uploader is then a normal task (the real-time bots
# preempt it at once) and competes with those builds for core 1's rest. `make bench` runs it;
# sizes can be overridden, e.g.
#   FILE_SIZE=100M DURATION=3 WARMUP=1 scripts/bench-files.sh
# SERVER (and BOT) run other binaries instead of building the release ones (an older build, to
# compare); ROWS picks rows by number (1-5, e.g. ROWS="2 4"); UPLOADER how the uploader runs
# beside the load; FILES the server's file folder (default in the temporary workspace;
# /dev/shm/... takes the disk out).
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
METRICS_PORT=${BENCH_METRICS_PORT:-4492}
ROWS=${ROWS:-1 2 3 4 5}
if chrt -p $$ | grep -q SCHED_FIFO; then default_uploader="chrt --other 0 taskset -c 1"; else default_uploader="chrt --idle 0 taskset -c 1"; fi
UPLOADER=${UPLOADER:-$default_uploader}
source scripts/bench-lib.sh
if [ -n "${SERVER:-}" ]; then BOT=${BOT:-.build/release/chat-bot}; else build_release_binaries; fi
bench_workspace

# The file every upload sends: random bytes, made once, before any server runs.
bytes_of() {
    case $1 in
        *G) echo $(( ${1%G} << 30 )) ;;
        *M) echo $(( ${1%M} << 20 )) ;;
        *k) echo $(( ${1%k} << 10 )) ;;
        *) echo "$1" ;;
    esac
}
file_bytes=$(bytes_of "$FILE_SIZE")
head -c "$file_bytes" /dev/urandom > "$work/upload.bin"

start_server() {
    stop_server
    files_dir=${FILES:-$work/files}
    rm -rf "$files_dir"
    # Quota and store far above what back-to-back uploads of one file add up to (the same
    # content is stored once; every upload is a record of its owner's).
    launch_chat_server --files "$files_dir" --max-file-size $((file_bytes + 1)) --file-quota 1125899906842624 \
        --files-max-bytes 1125899906842624 --metrics "127.0.0.1:$METRICS_PORT" --metrics-cache 0
}

# The server's RSS every 0.2 s while the bot runs, its peak into $work/peak.
sample_rss() {
    local peak_kb=0
    while [ ! -f "$work/stop-sampling" ]; do
        local now; now=$(rss_kb "$server_pid" 2>/dev/null || echo 0)
        [ "$now" -gt "$peak_kb" ] && peak_kb=$now
        echo "$peak_kb" > "$work/peak"
        sleep 0.2
    done
}

# The server's metrics page into a file, and beside it (.sched) the event-loop thread's
# schedstat: nanoseconds on its core, and waiting for it while runnable (others' load).
snapshot() {
    curl -s "http://127.0.0.1:$METRICS_PORT/metrics" > "$1"
    cat "/proc/$server_pid/task/$server_pid/schedstat" > "$1.sched"
}

# The loop thread's wait for its core over the measured stretch, in ms per second: what other
# processes on core 0 (or the kernel's work there) took from it.
loop_wait() {
    awk -v s="$DURATION" 'NR == FNR { before = $2; next } { printf "%.1f", ($2 - before) / 1e6 / s }' "$1.sched" "$2.sched"
}

# From a snapshot: the delivery latency histogram's cumulative buckets, one `BOUND COUNT` line each.
latency_buckets() {
    awk -F'[{}" ]+' '/^qchat_delivery_latency_seconds_bucket/ { for (i = 2; i < NF; i++) if ($i == "le=") print $(i + 1), $NF }' "$1"
}

# From a snapshot: upload body bytes the server has written to disk.
upload_bytes() { awk '/^qchat_file_bytes_total\{direction="upload"\}/ {print $2}' "$1"; }

# The server's delivery latency quantiles (ms) between two bucket snapshots, interpolated within
# the bucket as Prometheus's histogram_quantile does: `p50 X / p99 Y ms (N deliveries)`.
server_latency() {
    awk '
        NR == FNR { before[$1] = $2; next }
        { bound[++n] = $1; count[n] = $2 - before[$1] }
        END {
            total = count[n]
            if (total <= 0) { print "none"; exit }
            split("0.5 0.99", qs, " ")
            for (q = 1; q <= 2; q++) {
                rank = qs[q] * total; previous = 0; lower = 0
                for (i = 1; i <= n; i++) {
                    if (count[i] >= rank) {
                        if (bound[i] == "+Inf") { value[q] = lower * 1000; break }
                        value[q] = (lower + (bound[i] - lower) * (rank - previous) / (count[i] - previous)) * 1000; break
                    }
                    previous = count[i]; lower = bound[i]
                }
            }
            printf "p50 %.2f / p99 %.2f ms (%d)", value[1], value[2], total
        }' <(latency_buckets "$1") <(latency_buckets "$2")
}

# The uploader: a member of the load's room (load0) that uploads the file over and over, or,
# with `idle`, only stays in the room.
start_uploader() {
    local mode=$1 placement=$2
    if [ "$mode" = idle ]; then
        printf 'bot uploader load0 {\n    wait 600s\n}\n' > "$work/uploader.bot"
    else
        printf 'bot uploader load0 {\n    repeat forever {\n        upload %s\n    }\n}\n' "$work/upload.bin" > "$work/uploader.bot"
    fi
    rm -f "$work/uploader.err"
    # shellcheck disable=SC2086
    $placement "$BOT" script "$work/uploader.bot" --port "$PORT" --ca "$C/ca.pem" > "$work/uploader.out" 2> "$work/uploader.err" &
    uploader_pid=$!
}

stop_uploader() {
    kill -INT "$uploader_pid" 2>/dev/null || true
    wait "$uploader_pid" 2>/dev/null || true
}

# `N x 1.0 GiB done, R MiB/s`: the uploads that completed (their bytes over their summed times).
upload_figure() {
    awk '/uploaded/ { n++; bytes += $(NF - 6); seconds += $(NF - 3) }
         END { if (n == 0) print "none completed"; else printf "%d x %.1f GiB done, %.1f MiB/s", n, bytes / n / 1073741824, bytes / seconds / 1048576 }' \
        "$work/uploader.err"
}

# Upload bytes the server wrote over the measured stretch, in MiB/s.
measured_upload_rate() {
    awk -v a="$(upload_bytes "$1")" -v b="$(upload_bytes "$2")" -v s="$DURATION" 'BEGIN {printf "%.1f MiB/s while measured", (b - a) / s / 1048576}'
}

# When all load clients are in: the uploader starts (it joins in a few ms); the metrics are read
# at the start and the end of the measured stretch (after the warm-up, for DURATION seconds).
at_connected() {
    start_uploader "$uploader_mode" "$UPLOADER"
    (sleep "$WARMUP"; snapshot "$work/metrics.0"; sleep "$DURATION"; snapshot "$work/metrics.1") &
    scraper=$!
}

row() {
    local label=$1 mode=$2; shift 2
    uploader_mode=$mode
    start_server
    local before_kb; before_kb=$(rss_kb "$server_pid")
    rm -f "$work/stop-sampling" "$work/peak" "$work"/metrics.*
    sample_rss &
    local sampler=$!
    run_bot load "$PORT" --clients "$CLIENTS" --rooms 1 --rate "$RATE" --typing "$TYPING" --duration "$DURATION" --warmup "$WARMUP" \
        --drain 10 "$@"
    wait "$scraper" 2>/dev/null || true
    stop_uploader
    touch "$work/stop-sampling"; wait "$sampler" 2>/dev/null || true
    local peak; peak=$(cat "$work/peak" 2>/dev/null || echo 0)
    local files="none"
    [ "$mode" = upload ] && files="$(measured_upload_rate "$work/metrics.0" "$work/metrics.1"); $(upload_figure)"
    echo "| $label | \`$command\` + uploader $mode | chat $(latency deliveries.latency_ms) | typing p50 $(json "$report" typing.latency_ms.p50) / p99 $(json "$report" typing.latency_ms.p99) ms (ratio $(json "$report" typing.delivery_ratio)) | $(server_latency "$work/metrics.0" "$work/metrics.1"); loop waited $(loop_wait "$work/metrics.0" "$work/metrics.1") ms/s | $files | $((before_kb / 1024)) -> $((peak / 1024)) MiB | lost $(json "$report" deliveries.lost) |"
}
latency() { echo "p50 $(json "$report" "$1.p50") / p99 $(json "$report" "$1.p99") / max $(json "$report" "$1.max") ms"; }

# The upload alone: the uploader at normal priority on core 1, one file.
alone() {
    start_server
    local before_kb; before_kb=$(rss_kb "$server_pid")
    rm -f "$work/stop-sampling" "$work/peak"
    sample_rss &
    local sampler=$!
    local cpu0; cpu0=$(cpu_ticks "$server_pid")
    printf 'bot uploader load0 {\n    upload %s\n}\n' "$work/upload.bin" > "$work/uploader.bot"
    taskset -c 1 "$BOT" script "$work/uploader.bot" --port "$PORT" --ca "$C/ca.pem" > "$work/uploader.out" 2> "$work/uploader.err"
    local cpu1; cpu1=$(cpu_ticks "$server_pid")
    touch "$work/stop-sampling"; wait "$sampler" 2>/dev/null || true
    local peak; peak=$(cat "$work/peak" 2>/dev/null || echo 0)
    echo "| the upload alone, no chat | \`chat-bot script\` (one \`upload\`) | | | | $(upload_figure); server CPU $(awk -v t=$((cpu1 - cpu0)) -v hz="$HZ" -v b="$file_bytes" 'BEGIN {printf "%.2f s/GiB", t / hz / (b / 1073741824)}') | $((before_kb / 1024)) -> $((peak / 1024)) MiB | |"
}

echo "## Files next to chat ($(date -u +%Y-%m-%d), $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo); load average at start $(cut -d' ' -f1-3 /proc/loadavg); scheduling $(chrt -p $$ | awk -F': ' 'NR == 1 {print $2}'))"
echo
echo "chat-server (release) on core 0, chat-bot load on core 1, the uploader (\`chat-bot script\`, one more member of the room) run as \`$UPLOADER\`; $CLIENTS clients in one room, $RATE msgs/s of $SIZE B, $TYPING typing/s; $DURATION s measured after $WARMUP s warm-up. The uploader sends $FILE_SIZE of random bytes again and again from the start of the warm-up; idle, it is only a member."
echo
echo "| run | command | chat latency (bots) | typing latency (bots) | server delivery latency (deliveries); its loop's wait for core 0 | uploads | server RSS before -> peak | losses |"
echo "|---|---|---|---|---|---|---|---|"
for number in $ROWS; do
    case $number in
        1) row "chat and typing datagrams, no file" idle ;;
        2) row "the same with $FILE_SIZE uploads" upload ;;
        3) row "typing on the presence stream, no file" idle --typing-on-stream ;;
        4) row "typing on the presence stream, $FILE_SIZE uploads" upload --typing-on-stream ;;
        5) alone ;;
    esac
done
