#!/usr/bin/env bash
# libFuzzer targets (docs/FUZZING.md), built with the toolchain alone into .build/fuzz.
#   scripts/fuzz.sh build               build every target (skipped when it is up to date)
#   scripts/fuzz.sh run [TARGET...]     fuzz each for FUZZ_SECONDS (default 60), growing .build/fuzz/corpus
#   scripts/fuzz.sh smoke               build, replay every seed and regression once, then fuzz each
#                                       for FUZZ_SMOKE_SECONDS (default 10): what `make test` runs
# A crash stops the script with libFuzzer's report; the input is kept in .build/fuzz/artifacts.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFTC=${SWIFTC:-swiftc}
OUT=.build/fuzz
TARGETS=(stream-decoder message text-neutralizer)
# The Swift runtime's own backtracer would symbolicate every crash for minutes; libFuzzer and
# AddressSanitizer already print the stack.
export SWIFT_BACKTRACE=enable=no

# stream-decoder -> StreamDecoder: the target's folder under Fuzz/ and its module name.
camel_case() {
    sed -E 's/(^|-)([a-z])/\U\2/g' <<< "$1"
}

# A target is its folder, the shared support, and the sources of the module it tests: those
# modules have no dependencies, so one swiftc invocation builds the lot. The support borrows the
# bots' seeded generator, a file of its own with no dependencies either.
sources() {
    local shared="Fuzz/Support/*.swift Sources/SplitMix/SplitMix64.swift" folder
    folder=Fuzz/$(camel_case "$1")
    case $1 in
        stream-decoder | message)
            echo Sources/ChatProtocol/*.swift $shared Fuzz/ProtocolSupport/*.swift "$folder"/*.swift ;;
        text-neutralizer)
            echo Sources/ChatTUI/*.swift $shared "$folder"/*.swift ;;
    esac
}

dictionary_option() {
    case $1 in
        stream-decoder | message) echo -dict=Fuzz/json.dict ;;
    esac
}

build() {
    local target=$1 binary=$OUT/$1
    # shellcheck disable=SC2046 # the source lists are globs without spaces
    if [[ -x $binary && -z $(find $(sources "$target") "$0" -newer "$binary") ]]; then
        return
    fi
    mkdir -p "$OUT"
    echo "building $binary" >&2
    local module
    module=Fuzz$(camel_case "$target")
    # Without an explicit module path, whole-module builds with -g leave module files in the
    # current folder.
    # shellcheck disable=SC2046
    "$SWIFTC" -emit-executable -O -wmo -g -sanitize=fuzzer,address -use-ld=lld -parse-as-library -module-name "$module" \
        -emit-module-path "$OUT/modules/$module.swiftmodule" $(sources "$target") -o "$binary"
}

# Each build is one single-threaded compiler process (whole-module), so they run side by side.
build_all() {
    local pids=() failed=0
    for target in "$@"; do
        build "$target" &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do
        wait "$pid" || failed=1
    done
    return $failed
}

# The committed inputs of a target: seeds, and the crashes found so far.
committed_inputs() {
    find "Fuzz/corpus/$1" "Fuzz/regressions/$1" -type f 2>/dev/null | sort
}

replay() {
    local target=$1 inputs
    mapfile -t inputs < <(committed_inputs "$target")
    echo "$target: replaying ${#inputs[@]} committed inputs" >&2
    "$OUT/$target" "${inputs[@]}" > "$OUT/$target.replay.log" 2>&1 || {
        cat "$OUT/$target.replay.log" >&2
        exit 1
    }
}

# Fuzzes a target, starting from its growing corpus plus the committed inputs; new inputs go to
# the growing corpus, which is the first folder given.
fuzz() {
    local target=$1 seconds=$2 folders=()
    mkdir -p "$OUT/corpus/$target" "$OUT/artifacts/$target"
    for folder in "Fuzz/corpus/$target" "Fuzz/regressions/$target"; do
        [[ -d $folder ]] && folders+=("$folder")
    done
    echo "$target: fuzzing for $seconds s" >&2
    # shellcheck disable=SC2046
    "$OUT/$target" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 $(dictionary_option "$target") \
        -artifact_prefix="$OUT/artifacts/$target/" "$OUT/corpus/$target" "${folders[@]}" > "$OUT/$target.log" 2>&1 || {
        tail -n 60 "$OUT/$target.log" >&2
        echo "$target: crashed; the input is in $OUT/artifacts/$target/ (full log $OUT/$target.log)" >&2
        exit 1
    }
    summarize "$target"
}

# One line per target from libFuzzer's final statistics: executions, speed, coverage, corpus.
summarize() {
    local log=$OUT/$1.log
    awk -v target="$1" '
        /DONE/ { for (i = 1; i < NF; i++) { if ($i == "cov:") cov = $(i + 1); if ($i == "corp:") corpus = $(i + 1) } }
        /^stat::number_of_executed_units:/ { runs = $2 }
        /^stat::average_exec_per_sec:/ { speed = $2 }
        /^stat::peak_rss_mb:/ { rss = $2 }
        END { printf "%s: %d executions, %d/s, coverage %s edges, corpus %s, peak RSS %s MB\n", target, runs, speed, cov, corpus, rss }
    ' "$log"
}

command=${1:-}
shift || true
case $command in
    build)
        build_all "${TARGETS[@]}" ;;
    run)
        selected=("$@")
        [[ ${#selected[@]} -gt 0 ]] || selected=("${TARGETS[@]}")
        for target in "${selected[@]}"; do
            [[ " ${TARGETS[*]} " == *" $target "* ]] || { echo "unknown fuzz target: $target (known: ${TARGETS[*]})" >&2; exit 2; }
        done
        build_all "${selected[@]}"
        for target in "${selected[@]}"; do fuzz "$target" "${FUZZ_SECONDS:-60}"; done ;;
    smoke)
        build_all "${TARGETS[@]}"
        for target in "${TARGETS[@]}"; do replay "$target"; done
        for target in "${TARGETS[@]}"; do fuzz "$target" "${FUZZ_SMOKE_SECONDS:-10}"; done ;;
    *)
        sed -n '2,7p' "$0" >&2
        exit 2 ;;
esac
