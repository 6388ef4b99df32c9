#!/usr/bin/env bash
# Builds and runs the whole suite under one sanitizer: address (with LeakSanitizer) or thread.
# Usage: scripts/test-sanitized.sh address|thread [FILTER]   (make test-asan / test-tsan / test-sanitize;
#        FILTER, a `swift test --filter` pattern, runs only those tests)
#
# Each sanitizer has its own scratch path, so the chat-server, chat-client, chat-bot, udp-impair
# and quic-echo that the tests start from next to the test bundle are sanitized too. Every
# process writes its sanitizer reports to a file of its own in .build/asan|tsan/reports, and the
# run fails when any is there: a child whose exit status no test looks at cannot hide one.
# See docs/SANITIZERS.md.
set -euo pipefail

die() { echo "test-sanitized.sh: $*" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: test-sanitized.sh address|thread [FILTER]"
sanitizer=$1
filter=${2:-}   # a `swift test --filter` pattern: only those tests
root=$(cd "$(dirname "$0")/.." && pwd)
case $sanitizer in
    address) short=asan ;;
    thread) short=tsan ;;
    *) die "unknown sanitizer '$sanitizer' (address or thread)" ;;
esac
swift=${SWIFT:-swift}
scratch=.build/$short
reports=$root/$scratch/reports
log=$root/$scratch/test.log

cd "$root"
started=$(date +%s)
# The flag goes to both commands: on Linux `swift test` only uses it to pick the build parameters,
# and they must match the build's should --skip-build ever be dropped.
"$swift" build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch"
built=$(date +%s)

rm -rf "$reports"
mkdir -p "$reports"
# The child processes inherit all of these. The harnesses' waits stretch by QCHAT_TEST_TIME_SCALE
# (Tests/TestSupport/TestTime.swift): sanitized binaries are slower.
export QCHAT_TEST_TIME_SCALE=${QCHAT_TEST_TIME_SCALE:-3}
# ThreadSanitizer's shadow memory is resident too: the bounds on RSS growth stretch by
# QCHAT_TEST_MEMORY_SCALE (Tests/TestSupport/TestMemory.swift). AddressSanitizer's small quarantine
# (below) keeps them at 1.
if [ "$sanitizer" = thread ]; then export QCHAT_TEST_MEMORY_SCALE=${QCHAT_TEST_MEMORY_SCALE:-4}; fi
# quarantine_size_mb=2 (default 256): freed memory waiting in quarantine is resident, and the
# hostile-traffic tests bound chat-server's RSS growth to 5 MB; 2 MB of recent frees still catches
# a use soon after the free, the usual case in an event loop.
export ASAN_OPTIONS="log_path=$reports/asan:detect_leaks=1:quarantine_size_mb=2:suppressions=$root/tools/sanitizers/asan.supp${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
# print_suppressions=0: a process whose leaks were all suppressed leaves no file behind.
export LSAN_OPTIONS="suppressions=$root/tools/sanitizers/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export TSAN_OPTIONS="log_path=$reports/tsan${TSAN_OPTIONS:+:$TSAN_OPTIONS}"

set +e
"$swift" test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" ${filter:+--filter "$filter"} 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
finished=$(date +%s)

found=$(find "$reports" -type f | sort)
if [ -n "$found" ]; then
    echo
    echo "== $sanitizer sanitizer reports ($(echo "$found" | wc -l) processes) =="
    for report in $found; do
        echo "-- $report"
        cat "$report"
    done
    [ "$status" -ne 0 ] || status=1
fi
echo "$short: build $((built - started)) s, tests $((finished - built)) s, total $((finished - started)) s; status $status"
exit "$status"
