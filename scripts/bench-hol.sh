#!/usr/bin/env bash
# Head-of-line benchmark: through 5% loss (udp-impair, both directions), a room chats while its
# members type. Typing latency on DATAGRAMs against chat latency in the same run, then the same
# run with typing sent on the presence stream. Server on core 0, proxy and bots on core 1.
set -euo pipefail
cd "$(dirname "$0")/.."
LOSS=${LOSS:-5%}
CLIENTS=${CLIENTS:-20}
RATE=${RATE:-200}
TYPING=${TYPING:-20}
DURATION=${DURATION:-10}
PORT=${BENCH_PORT:-4491}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
swift build -c release --product chat-server >&2
swift build -c release --product chat-bot >&2
swift build -c release --product udp-impair >&2
scripts/make-certs.sh "$work/certs" >/dev/null
taskset -c 0 .build/release/chat-server --port "$PORT" --cert "$work/certs/server.pem" --key "$work/certs/server.key" \
    --log-level warning --flood-burst 1000000 --flood-rate 1000000 --typing-rate 1000 > "$work/server.log" 2>&1 &
sleep 0.5
taskset -c 1 .build/release/udp-impair --server "127.0.0.1:$PORT" --loss "$LOSS" --seed 7 --exit-on-stdin-close \
    < <(sleep 100000) > "$work/proxy.out" 2>&1 &
for _ in $(seq 100); do grep -q READY "$work/proxy.out" && break; sleep 0.05; done
proxy=$(awk '/READY/ {print $2}' "$work/proxy.out")
echo "## Head-of-line under $LOSS loss ($(date -u +%Y-%m-%d)): $CLIENTS clients in one room, $RATE msgs/s of 200 bytes, $TYPING typing indicators/s"
echo
for mode in datagram stream; do
    flags=()
    [ "$mode" = stream ] && flags=(--typing-on-stream)
    taskset -c 1 .build/release/chat-bot load --port "$proxy" --ca "$work/certs/ca.pem" --clients "$CLIENTS" --rooms 1 \
        --rate "$RATE" --size 200 --typing "$TYPING" --duration "$DURATION" --warmup 2 "${flags[@]}" \
        --json "$work/$mode.json" > "$work/$mode.txt" 2>/dev/null || true
    echo "### typing on $mode"
    echo
    echo '```'
    grep -Ei "latency|typing|lost|deliver" "$work/$mode.txt" | head -12
    echo '```'
    echo
done
