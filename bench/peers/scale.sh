#!/usr/bin/env bash
# Compare the cost of one change in very wide and very deep schemas:
# mcpctl diff against oasdiff on the same schema, given to oasdiff as the
# request body of one OpenAPI 3.0 operation. The shapes are those of
# BenchmarkScale in diff/bench_test.go: an object with 1k, 5k and 20k string
# properties whose first maxLength is lowered, and a string at the bottom of
# 50 and 200 levels of object properties, or of 990 levels of array items
# (the parser's 1,000-level nesting limit, less the envelope).
#
# Not run by CI: it needs go, python3 and the network (to install oasdiff
# into a temporary folder; it never enters go.mod). Usage, from anywhere:
#
#   bench/peers/scale.sh                 # table on stdout
#   RUNS=5 OASDIFF_VERSION=v1.11.7 bench/peers/scale.sh
#   OASDIFF=/path/to/oasdiff bench/peers/scale.sh   # an installed binary
#
# RESULTS.md ("Scale") has a reading of the figures.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=${RUNS:-3}
version=${OASDIFF_VERSION:-latest}

for tool in go python3; do
	command -v "$tool" >/dev/null || { echo "scale.sh: $tool is required" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -n "${OASDIFF:-}" ]; then
	mkdir -p "$work/bin" && ln -s "$OASDIFF" "$work/bin/oasdiff"
else
	echo "installing oasdiff@$version into $work/bin" >&2
	(cd "$work" && GOBIN="$work/bin" GOFLAGS=-mod=mod go install "github.com/oasdiff/oasdiff@$version" >&2)
fi
echo "building mcpctl" >&2
(cd "$root" && go build -o "$work/mcpctl" ./cmd/mcpctl)

python3 - "$work" <<'PY'
import sys
work = sys.argv[1]
def wide(n, m):
    props = ",".join('"p%d":{"type":"string","maxLength":%d}' % (i, m if i == 0 else 10) for i in range(n))
    return '{"type":"object","properties":{%s}}' % props
def deep(d, items, m):
    s = '{"type":"string","maxLength":%d}' % m
    o, c = ('{"type":"array","items":', '}') if items else ('{"type":"object","properties":{"a":', '}}')
    s = o * d + s + c * d
    return '{"type":"object","properties":{"a":%s}}' % s if items else s
cases = {
    "properties-1k": lambda m: wide(1000, m), "properties-5k": lambda m: wide(5000, m),
    "properties-20k": lambda m: wide(20000, m), "depth-50": lambda m: deep(50, False, m),
    "depth-200": lambda m: deep(200, False, m), "depth-1000": lambda m: deep(990, True, m),
}
for name, make in cases.items():
    for side, m in (("old", 10), ("new", 5)):
        s = make(m)
        open(f"{work}/{name}-{side}.json", "w").write(
            '{"tools":[{"name":"t","description":"d","inputSchema":%s}]}' % s)
        open(f"{work}/{name}-{side}.oas.json", "w").write(
            '{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{"/t":{"post":{"operationId":"t",'
            '"requestBody":{"content":{"application/json":{"schema":%s}}},"responses":{"200":{"description":"ok"}}}}}}' % s)
print(" ".join(cases), file=open(f"{work}/cases", "w"))
PY

# median of $runs whole-process times, in ms
median_ms() {
	local times=()
	for _ in $(seq "$runs"); do
		local t0 t1
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		t1=$(date +%s%N)
		times+=($(((t1 - t0) / 1000000)))
	done
	printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

echo "| input | mcpctl diff ms | mcpctl findings | oasdiff breaking ms | oasdiff/mcpctl |"
echo "|---|---:|---|---:|---:|"
for c in $(cat "$work/cases"); do
	m=$(median_ms "$work/mcpctl" diff "$work/$c-old.json" "$work/$c-new.json" --format json --fail-on never)
	f=$("$work/mcpctl" diff "$work/$c-old.json" "$work/$c-new.json" --format json --fail-on never |
		python3 -c 'import json,sys; r=json.load(sys.stdin); print("; ".join(c["rule"] + (" (undecided)" if c.get("undecided") else "") for c in r["changes"]))')
	o=$(median_ms "$work/bin/oasdiff" breaking "$work/$c-old.oas.json" "$work/$c-new.oas.json")
	echo "| $c | $m | $f | $o | $(awk -v a="$o" -v b="$m" 'BEGIN {printf "%.2f", a / b}') |"
done
echo
oasdiff_version=$("$work/bin/oasdiff" --version 2>/dev/null || true)
echo "runs per input: $runs (median), oasdiff ${oasdiff_version%%$'\n'*}"
