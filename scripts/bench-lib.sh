# Helpers the benchmark scripts share (sourced by scripts/bench-chat.sh, scripts/bench-irc.sh,
# scripts/bench-aioquic.sh and others): a process's CPU and memory from /proc, bound ports, and
# values from chat-bot's JSON report.
HZ=$(getconf CLK_TCK)

# Stops the server $server_pid, if one runs, and waits for it.
stop_server() {
    [ -n "$server_pid" ] || return 0
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
}

# The pinned aioquic (tools/interop/setup.sh, into $VENV or .build/interop-venv, idempotent): sets
# PYTHON to the venv's python and AIOQUIC_DRIVER to the load driver it runs.
prepare_aioquic() {
    local venv=${VENV:-.build/interop-venv}
    tools/interop/setup.sh "$venv"
    PYTHON=$venv/bin/python
    AIOQUIC_DRIVER=tools/bench/aioquic_chat_load.py
}

# User + system CPU of a process in 1/HZ s ticks.
cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
udp_port_bound() { awk -v p="$(printf ':%04X' "$1")" '$2 ~ p"$" {found=1} END {exit !found}' /proc/net/udp /proc/net/udp6; }
# A TCP port someone listens on (state 0A).
tcp_port_listening() { awk -v p="$(printf ':%04X' "$1")" '$2 ~ p"$" && $4 == "0A" {found=1} END {exit !found}' /proc/net/tcp /proc/net/tcp6; }
# A counter of chat-server's metrics page (--metrics 127.0.0.1:PORT): server_metric PORT NAME
server_metric() { curl -s "http://127.0.0.1:$1/metrics" | awk -v name="$2" '$1 == name {print $2}'; }
# Microseconds of server CPU per unit of work: cpu_us TICKS COUNT
per_unit_us() { awk -v t="$1" -v n="$2" -v hz="$HZ" 'BEGIN {if (n > 0) printf "%.1f", t/hz*1e6/n; else print "n/a"}'; }
# A value from chat-bot's JSON report by its dotted path, e.g. deliveries.latency_ms.p99
json() {
    awk -v want="$2" '
        /": \{$/ { match($0, /"[^"]+"/); path = path (path == "" ? "" : ".") substr($0, RSTART + 1, RLENGTH - 2); next }
        /^ *\},?$/ { sub(/\.?[^.]*$/, "", path); next }
        match($0, /"[^"]+": /) {
            key = substr($0, RSTART + 1, RLENGTH - 4)
            if ((path == "" ? key : path "." key) == want) { value = substr($0, RSTART + RLENGTH); sub(/,$/, "", value); gsub(/"/, "", value); print value; exit }
        }' "$1"
}

# Runs `chat-bot COMMAND --port PORT` (load or irc-load) with the given flags on core 1, against
# the server $server_pid, with $BOT, the CA in $C, --size $SIZE and files in $work; the functions
# at_connected and at_drained, where the caller defines them, run at those two moments. Sets:
# connect_ticks (server CPU while the clients connected), load_ticks (server CPU from then to
# the end of the drain: warm-up, run and drain, not the goodbyes), load_busy (that CPU as a
# percentage of the stretch's wall time), report (the JSON file), command (what was run).
# $BOT_FLAGS adds flags to `chat-bot load` (not irc-load), e.g. "--ack-hold-ms 0".
run_bot() {
    local bot_command=$1 port=$2
    shift 2
    if [ "$bot_command" = load ]; then set -- "$@" ${BOT_FLAGS:-}; fi
    command="chat-bot $bot_command $*"
    report="$work/report.json"
    # The last run's output goes first: its "connected" and "drained" would otherwise be read
    # before the new driver's redirection truncates the files, and the stretch measure nothing.
    rm -f "$report" "$work/bot.out" "$work/bot.err"
    local before middle after middle_time="" after_time=""
    before=$(cpu_ticks "$server_pid")
    taskset -c 1 "$BOT" "$bot_command" --port "$port" --ca "$C/ca.pem" --size "$SIZE" --json "$report" "$@" \
        > "$work/bot.out" 2> "$work/bot.err" &
    local bot=$!
    middle=""
    after=""
    while kill -0 "$bot" 2>/dev/null; do
        if [ -z "$middle" ] && grep -q "connected" "$work/bot.err" 2>/dev/null; then
            middle=$(cpu_ticks "$server_pid"); middle_time=$(date +%s.%N)
            if declare -F at_connected >/dev/null; then at_connected; fi
        fi
        if [ -z "$after" ] && grep -q "drained" "$work/bot.err" 2>/dev/null; then
            after=$(cpu_ticks "$server_pid"); after_time=$(date +%s.%N)
            if declare -F at_drained >/dev/null; then at_drained; fi
        fi
        sleep 0.05
    done
    wait "$bot" || true
    [ -n "$after" ] || { after=$(cpu_ticks "$server_pid"); after_time=$(date +%s.%N); }
    [ -n "$middle" ] || { middle=$after; middle_time=$after_time; }
    # The share of its core the server used over that stretch (100 = saturated).
    load_busy=$(awk -v t=$((after - middle)) -v hz="$HZ" -v a="$middle_time" -v b="$after_time" 'BEGIN {if (b > a) printf "%.0f", t / hz / (b - a) * 100; else print "n/a"}')
    connect_ticks=$((middle - before))
    load_ticks=$((after - middle))
    if [ ! -s "$report" ]; then echo "chat-bot $bot_command failed: $(tail -3 "$work/bot.err")" >&2; exit 1; fi
}

# Prints the RSS (KiB) of the server $server_pid once COUNT idle clients of `chat-bot COMMAND`
# (load or irc-load; on core 1) have connected to PORT in ROOMS rooms and been idle IDLE_SETTLE
# seconds (default 5: chat-server sets an idle client's QUIC state aside after 2 to 4 s,
# --idle-memory-after), then lets them go. Extra flags follow.
measure_idle_rss() {
    local bot_command=$1 port=$2 count=$3 rooms=$4
    shift 4
    taskset -c 1 "$BOT" "$bot_command" --port "$port" --ca "$C/ca.pem" --clients "$count" --rooms "$rooms" --rate 0 \
        --duration 600 --warmup 0 "$@" > "$work/idle.out" 2> "$work/idle.err" &
    local bot=$!
    while kill -0 "$bot" 2>/dev/null && ! grep -q "connected" "$work/idle.err"; do sleep 0.1; done
    sleep "${IDLE_SETTLE:-5}"
    rss_kb "$server_pid"
    kill -INT "$bot"; wait "$bot" 2>/dev/null || true
    sleep 4  # closing periods end
}

# Starts chat-server on core 0 as the chat benchmarks run it: flood and typing limits raised, a
# 64 MiB send queue, history in memory (loopback is exempt from --max-per-address); extra flags
# follow, then $SERVER_FLAGS (e.g. "--coalesce-ms 0"). $SERVER_PREFIX (valgrind, say) runs it. Uses $SERVER, $PORT, the certificates in $C and
# $work; sets server_pid once the UDP port is bound.
launch_chat_server() {
    taskset -c 0 ${SERVER_PREFIX:-} "$SERVER" --port "$PORT" --cert "$C/server.pem" --key "$C/server.key" --log-level warning \
        --flood-burst 1000000 --flood-rate 1000000 --typing-rate 1000 --max-clients 50000 --sendq 67108864 "$@" ${SERVER_FLAGS:-} \
        > "$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 600); do udp_port_bound "$PORT" && return 0; sleep 0.05; done
    echo "chat-server did not start: $(cat "$work/server.log")" >&2
    exit 1
}

# A temporary folder ($work) with the benchmark's certificates ($C), removed at exit with the
# server $server_pid stopped; refuses to run when UDP port $PORT is taken.
bench_workspace() {
    work=$(mktemp -d)
    server_pid=""
    trap 'stop_server; rm -rf "$work"' EXIT
    scripts/make-certs.sh "$work/certs" >/dev/null
    C="$work/certs"
    if udp_port_bound "$PORT"; then echo "UDP port $PORT is in use; set BENCH_PORT" >&2; exit 1; fi
}

# The release chat-server and chat-bot the benchmarks run ($SERVER, $BOT), built first.
build_release_binaries() {
    SERVER=.build/release/chat-server
    BOT=.build/release/chat-bot
    echo "building (release)..." >&2
    swift build -c release -j 2 --product chat-server >&2
    swift build -c release -j 2 --product chat-bot >&2
}
