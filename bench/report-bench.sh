#!/bin/sh
# The speed of `llmlat report` on a large trace: 100,000 requests and
# 20,000,000 events (JSON Lines, ~350 MB in a temporary directory), exact
# mode, JSON output. Prints the wall and CPU times and the peak memory
# (GNU time). Not a test: timings depend on the machine and its load
# (compare the CPU times on a shared machine). Build with the default
# buildtype (debugoptimized) or release.
#
#   bench/report-bench.sh [BUILD_DIR] [REQUESTS] [EVENTS_PER_REQUEST]
set -eu
build=${1:-build}
requests=${2:-100000}
events=${3:-200}
llmlat="$build/tools/llmlat"
[ -x "$llmlat" ] || { echo "report-bench: no $llmlat (build first)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "report-bench: needs GNU time (/usr/bin/time)" >&2; exit 2; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cc -O2 -o "$dir/report_gen" "$(dirname "$0")/report_gen.c"
"$dir/report_gen" "$requests" "$events" > "$dir/trace.jsonl"
size=$(du -m "$dir/trace.jsonl" | cut -f1)
echo "trace: $requests requests x $events events, ${size} MB"

for convention in default vllm; do
    /usr/bin/time -f "%e %U %S %M" -o "$dir/time" \
        "$llmlat" report --convention "$convention" --format json "$dir/trace.jsonl" > "$dir/out.json"
    read -r seconds user sys kib < "$dir/time"
    echo "llmlat report --convention $convention --format json: ${seconds} s wall" \
         "(${user} s user, ${sys} s sys), peak RSS $((kib / 1024)) MB"
done
