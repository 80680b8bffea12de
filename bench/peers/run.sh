#!/usr/bin/env bash
# Compare mcpctl diff with Atlassian's json-schema-diff (npm) on the schema
# pairs of the diff cases in testdata/cases/cases.json: verdicts side by
# side, and whole-process time (median of 5 runs per pair) with the ratio.
#
# Not run by CI: it needs node, npm and the network (to install
# json-schema-diff into a temporary folder). Usage, from anywhere:
#
#   bench/peers/run.sh            # table on stdout
#   RUNS=9 bench/peers/run.sh     # more runs per pair
#
# See RESULTS.md for a reading of the disagreements.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=${RUNS:-5}
version=${JSD_VERSION:-1.0.0}

for tool in go node npm; do
	command -v "$tool" >/dev/null || { echo "run.sh: $tool is required" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "checking npm for json-schema-diff@$version" >&2
npm view "json-schema-diff@$version" name version >&2
(cd "$work" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund "json-schema-diff@$version" >&2)

echo "building mcpctl" >&2
(cd "$root" && go build -o "$work/mcpctl" ./cmd/mcpctl)

node "$here/peers.mjs" \
	--cases "$root/testdata/cases/cases.json" \
	--work "$work" \
	--mcpctl "$work/mcpctl" \
	--jsd "$work/node_modules/.bin/json-schema-diff" \
	--jsd-api "$work/node_modules/json-schema-diff" \
	--runs "$runs"
