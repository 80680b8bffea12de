#!/usr/bin/env bash
# walkthrough.sh: the gateway of `mcpctl serve` in front of the real
# @modelcontextprotocol/server-filesystem, step by step, against a running
# server (from the repository root, after `npm ci` in e2e/):
#
#   mcpctl serve --http 127.0.0.1:8931 --admin 127.0.0.1:8932 examples/gateway/mcpctl.serve.yaml
#
# It opens an MCP session with curl (initialize, then the standalone event
# stream where notifications arrive) and deploys upstream releases the way
# an operator does (write ./release, stop the running server; the gateway
# restarts it and reads its tools/list):
#
#   1. 2025.7.29 -> 2025.8.18, a safe upstream change -> published, notified
#   2. -> 2025.11.25, the real break (read_multiple_files paths minItems: 1)
#      -> quarantined: the accepted list stays, old calls are checked against
#      the new schema and forwarded, the one the break refuses gets the
#      self-healing error, nobody is notified
#   3. approved -> published, notified (mcpctl approve when the server runs
#      with --state; without, the same approval as a gate.allow entry)
#   4. archive rolled out blue/green: this session stays on 2025.8.18
#      (blue), a new session gets 2025.11.25 (green)
#   5. blue retired: this session moves to green, notified once
#
# and puts ./release and the config back when it ends (restart the server
# before running it again). Needs bash and curl; MCP_URL and ADMIN override
# the addresses, MCPCTL the mcpctl used for `status` and `approve`.
set -euo pipefail
# No reader that stops early (grep -q, grep -m, head) at the end of a
# pipeline: under pipefail the writer it leaves dies of SIGPIPE and fails
# the pipeline. `sed -n 1p` reads to the end; grep -q reads a here-string.

here=$(cd "$(dirname "$0")" && pwd)
MCP_URL=${MCP_URL:-http://127.0.0.1:8931/mcp}
ADMIN=${ADMIN:-127.0.0.1:8932}
MCPCTL=${MCPCTL:-mcpctl}
config="$here/mcpctl.serve.yaml"

work=$(mktemp -d)
cp "$config" "$work/original.yaml"
cp "$here/release" "$work/original.release"
sse_pids=()
cleanup() {
  for p in "${sse_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  cp "$work/original.release" "$here/release"
  if ! cmp -s "$work/original.yaml" "$config"; then
    cp "$work/original.yaml" "$config.tmp.$$" && mv "$config.tmp.$$" "$config"
  fi
  echo "restored ./release and the config (restart the server before running this again)"
  rm -rf "$work"
}
trap cleanup EXIT

if [ -t 1 ]; then
  say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
  say() { printf '\n== %s\n' "$*"; }
fi

status() { curl -fsS "http://$ADMIN/status"; }

# last_reload_at: when the latest reload ran ("" before any).
last_reload_at() { status | sed -n '/"lastReload"/,/}/p' | grep '"at":' | sed -n 1p | sed 's/^[^:]*: *//; s/,$//; s/"//g' || true; }

# reload_field NAME: a field of the latest reload.
reload_field() { status | sed -n '/"lastReload"/,/^  }/p' | grep "\"$1\":" | sed -n 1p | sed 's/^[^:]*: *//; s/,$//; s/"//g'; }

# wait_reload OLD_AT: wait until a reload newer than OLD_AT has run.
wait_reload() {
  for _ in $(seq 1 300); do
    at=$(last_reload_at)
    if [ -n "$at" ] && [ "$at" != "$1" ]; then return 0; fi
    sleep 0.1
  done
  echo "no reload within 30s" >&2
  return 1
}

# upstream_state NAME: connected, restarting, quarantined or closed.
upstream_state() { status | sed -n "/\"name\": \"$1\"/,/}/p" | grep '"state":' | sed -n 1p | sed 's/^[^:]*: *//; s/,$//; s/"//g'; }

# install_config FILE: replace the config the way an editor does.
install_config() {
  cp "$1" "$config.tmp.$$"
  mv "$config.tmp.$$" "$config"
  echo "installed $(basename "$1") as $(basename "$config")"
}

# deploy RELEASE: write ./release and stop the running files server; the
# gateway restarts it (bin/files starts the release ./release names).
deploy() {
  echo "$1" >"$here/release"
  kill "$(cat "$here/run/files.pid")"
  echo "deployed $1 (stopped the running server; the gateway restarts it)"
}

# open_session NAME: initialize a session, keep its event stream in
# $work/NAME.events; prints the session id.
open_session() {
  curl -fsS -D "$work/$1.headers" -o /dev/null -X POST "$MCP_URL" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"walkthrough","version":"1.0.0"}}}'
  local sid
  sid=$(grep -i '^mcp-session-id:' "$work/$1.headers" | sed 's/^[^:]*: *//' | tr -d '\r')
  curl -fsS -X POST "$MCP_URL" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H "Mcp-Session-Id: $sid" -H 'MCP-Protocol-Version: 2025-11-25' \
    -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' >/dev/null
  curl -fsSN "$MCP_URL" -H 'Accept: text/event-stream' -H "Mcp-Session-Id: $sid" \
    -H 'MCP-Protocol-Version: 2025-11-25' >"$work/$1.events" 2>/dev/null &
  sse_pids+=($!)
  echo "$sid"
}

# rpc SID BODY: one JSON-RPC request in session SID; prints the answer,
# which a streamable HTTP server may send as an event stream (data: lines)
# or as one application/json body (the gateway's fast path does).
rpc() {
  curl -fsS -X POST "$MCP_URL" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H "Mcp-Session-Id: $1" -H 'MCP-Protocol-Version: 2025-11-25' -d "$2" | sed -n -e '/^{/p' -e 's/^data: //p'
}

notifications() { grep -c 'notifications/tools/list_changed' "$work/$1.events" || true; }

tool_names() { grep -o '"name":"[^"]*"' | sed 's/"name":"//; s/"$//' | tr '\n' ' '; echo; }

# paths_schema SID TOOL: TOOL's paths property as listed.
paths_schema() {
  rpc "$1" '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' |
    grep -o "\"name\":\"$2\"[^}]*\"paths\":{[^}]*}" | grep -o '"paths":{[^}]*}' | sed -n 1p
}

# read_many SID TOOL PATHS: call TOOL with {"paths": PATHS}; prints isError
# and its first text (newlines as " | "), or "(empty text)".
read_many() {
  local out text
  out=$(rpc "$1" "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"$2\",\"arguments\":{\"paths\":$3}}}")
  if grep -q '"isError":true' <<<"$out"; then printf 'isError: '; else printf 'ok: '; fi
  text=$(echo "$out" | grep -o '"text":"\([^"\\]\|\\.\)*"' | sed -n 1p |
    sed 's/^"text":"//; s/"$//; s/\\n/ | /g; s/\\"/"/g' | cut -c1-400)
  echo "${text:-(empty text)}"
}

# show_status: what `mcpctl status` says of the reload, the breaking
# findings and the upstreams (everything else left out).
show_status() {
  if command -v "$MCPCTL" >/dev/null 2>&1; then
    "$MCPCTL" status --admin "$ADMIN" | grep -E -A1 'last reload|breaking|pending|quarantined|upstream' | grep -v '^--$' | sed 's/^/  | /'
  else
    status | sed -n '/"lastReload"/,/^  }/p' | awk -F'"' '
      /"result":/ { print "  | last reload: " $4 }
      /"rule":/ { rule = $4 }
      /"level":/ { level = $4 }
      /"tool":/ && level == "breaking" { print "  |     - breaking " rule " tool \"" $4 "\""; level = "" }'
    status | sed -n '/"upstreams"/,/^  \]/p' | awk -F'"' '/"name":/ { n = $4 } /"state":/ { print "  | upstream " n ": " $4 }'
  fi
}

hello="$here/data/hello.txt"

say "0. connect"
curl -fsS "http://$ADMIN/readyz" >/dev/null || { echo "no server at $ADMIN; start it first (see the top of this script)" >&2; exit 1; }
a=$(open_session a)
sleep 0.3
echo "session A: tools: $(rpc "$a" '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' | tool_names)"
echo "read_multiple_files [hello.txt]: $(read_many "$a" read_multiple_files "[\"$hello\"]")"

say "1. a safe upstream change: 2025.7.29 -> 2025.8.18 (one description)"
before=$(last_reload_at); n=$(notifications a)
deploy old
wait_reload "$before"
echo "reload: $(reload_field result) (trigger $(reload_field trigger)); generation $(reload_field version)"
sleep 0.3
echo "list_changed notifications received: $(( $(notifications a) - n ))"

say "2. a breaking upstream change: 2025.8.18 -> 2025.11.25"
before=$(last_reload_at); n=$(notifications a)
deploy new
wait_reload "$before"
echo "reload: $(reload_field result); upstream files: $(upstream_state files)"
show_status
sleep 0.3
echo "list_changed notifications received: $(( $(notifications a) - n ))"
echo "paths as advertised (the accepted 2025.8.18 schema): $(paths_schema "$a" read_multiple_files)"
echo "old call, [hello.txt], checked against 2025.11.25 and forwarded: $(read_many "$a" read_multiple_files "[\"$hello\"]")"
echo "old call, [], which 2025.11.25 refuses: $(read_many "$a" read_multiple_files '[]')"

say "3. approve the change"
before=$(last_reload_at); n=$(notifications a)
pending=$(status | sed -n '/"pending"/,$p' | grep '"fingerprint":' | sed -n 1p | sed 's/^[^:]*: *//; s/,$//; s/"//g' || true)
if [ -n "$pending" ]; then
  echo "pending candidate $pending (the server runs with --state): approving it"
  if command -v "$MCPCTL" >/dev/null 2>&1; then
    "$MCPCTL" approve --admin "$ADMIN" "$pending" --reason "server-filesystem 2025.11.25 reviewed" | sed 's/^/  | /'
  else
    curl -fsS -X POST "http://$ADMIN/approve" -H 'Content-Type: application/json' \
      -d "{\"fingerprint\":\"$pending\",\"reason\":\"server-filesystem 2025.11.25 reviewed\"}" >/dev/null
  fi
else
  echo "no --state, so the approval is a gate.allow entry:"
  grep -A2 '^  allow:' "$here/stages/3-approved.yaml" | sed 's/^/  | /'
  install_config "$here/stages/3-approved.yaml"
fi
wait_reload "$before"
echo "reload: $(reload_field result); generation $(reload_field version); upstream files: $(upstream_state files)"
sleep 0.3
echo "list_changed notifications received: $(( $(notifications a) - n ))"
echo "paths as advertised now: $(paths_schema "$a" read_multiple_files)"

say "4. blue/green: archive from 2025.8.18 (blue) to 2025.11.25 (green)"
before=$(last_reload_at); n=$(notifications a)
install_config "$here/stages/4-bluegreen.yaml"
wait_reload "$before"
echo "reload: $(reload_field result); generation $(reload_field version)"
b=$(open_session b)
sleep 0.3
echo "session A (connected before): archive_read_multiple_files paths $(paths_schema "$a" archive_read_multiple_files)"
echo "session B (new):              archive_read_multiple_files paths $(paths_schema "$b" archive_read_multiple_files)"
echo "session A, [] (blue, 2025.8.18, takes it): $(read_many "$a" archive_read_multiple_files '[]')"
echo "session B, [] (green, 2025.11.25, refuses it): $(read_many "$b" archive_read_multiple_files '[]')"
echo "list_changed notifications received by A: $(( $(notifications a) - n ))"
status | sed -n '/"rollout"/,/^  }/p' | sed 's/^/  | /'

say "5. retire blue: archive on 2025.11.25 alone"
before=$(last_reload_at); n=$(notifications a)
install_config "$here/stages/5-retired.yaml"
wait_reload "$before"
echo "reload: $(reload_field result); generation $(reload_field version)"
sleep 0.3
echo "list_changed notifications received by A: $(( $(notifications a) - n ))"
echo "session A: archive_read_multiple_files paths $(paths_schema "$a" archive_read_multiple_files)"

say "done"
