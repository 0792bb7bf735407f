#!/bin/sh
# The speed of `llmlat report` on a large trace: 100,000 requests and
# 20,000,000 events (JSON Lines, ~350 MB in a temporary directory), exact
# mode (default and vLLM conventions) and bounded mode, JSON output.
# Prints the wall and CPU times, MB/s of the trace over each, and the peak
# memory (GNU time). With REF set to another `llmlat` binary (say a build
# of main), each run is followed by the same run of REF on the same trace,
# and the CPU ratio: on a shared machine compare those, not the seconds.
# Not a test: timings depend on the machine and its load. Build with the
# default buildtype (debugoptimized) or release.
#
#   [REF=other/llmlat] bench/report-bench.sh [BUILD_DIR] [REQUESTS] [EVENTS_PER_REQUEST]
set -eu
build=${1:-build}
requests=${2:-100000}
events=${3:-200}
llmlat="$build/tools/llmlat"
ref=${REF:-}
[ -x "$llmlat" ] || { echo "report-bench: no $llmlat (build first)" >&2; exit 2; }
[ -z "$ref" ] || [ -x "$ref" ] || { echo "report-bench: REF=$ref is not a program" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "report-bench: needs GNU time (/usr/bin/time)" >&2; exit 2; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cc -O2 -o "$dir/report_gen" "$(dirname "$0")/report_gen.c"
"$dir/report_gen" "$requests" "$events" > "$dir/trace.jsonl"
bytes=$(wc -c < "$dir/trace.jsonl")
echo "trace: $requests requests x $events events, $((bytes / 1000000)) MB"

# run NAME PROGRAM ARGS...: one timed report; sets cpu to its user + sys
run() {
    name=$1
    shift
    /usr/bin/time -f "%e %U %S %M" -o "$dir/time" "$@" "$dir/trace.jsonl" > "$dir/out.json"
    read -r seconds user sys kib < "$dir/time"
    cpu=$(awk "BEGIN { print $user + $sys }")
    echo "$name: ${seconds} s wall (${user} s user, ${sys} s sys)," \
         "$(awk "BEGIN { printf \"%.0f\", $bytes / $seconds / 1e6 }") MB/s wall," \
         "$(awk "BEGIN { printf \"%.0f\", $bytes / $cpu / 1e6 }") MB/s CPU," \
         "peak RSS $((kib / 1024)) MB"
}

for config in "exact default" "exact vllm" "bounded default"; do
    set -- $config
    args="report --mode $1 --convention $2 --format json"
    # shellcheck disable=SC2086 # $args is several words
    run "llmlat $args" "$llmlat" $args
    if [ -n "$ref" ]; then
        ours=$cpu
        # shellcheck disable=SC2086
        run "  REF" "$ref" $args
        echo "  CPU ratio (this build / REF): $(awk "BEGIN { printf \"%.2f\", $ours / $cpu }")"
    fi
done
