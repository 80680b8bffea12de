#!/usr/bin/env bash
# walkthrough.sh: hot reload and the compatibility gate of `mcpctl serve`,
# step by step, against a running server:
#
#   mcpctl serve --http 127.0.0.1:8931 --admin 127.0.0.1:8932 examples/hot-reload/mcpctl.serve.yaml
#
# It opens an MCP session with curl (initialize, then the standalone event
# stream where notifications arrive), then rewrites the config three times:
#
#   1. an additive change   -> published, the session is notified
#   2. a breaking change    -> refused and explained, nothing changes
#   3. the same change with a gate.allow entry -> published, notified
#
# and puts the original config back when it ends. Needs bash and curl;
# `mcpctl status` is shown too when mcpctl is on PATH (or $MCPCTL).
# MCP_URL and ADMIN override the addresses.
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
sse_pid=""
cleanup() {
  [ -n "$sse_pid" ] && kill "$sse_pid" 2>/dev/null || true
  if ! cmp -s "$work/original.yaml" "$config"; then
    # Going back is a breaking change too: pass through a stage that
    # allows it, then put the original file back (same tools).
    before=$(last_reload_at)
    install_config "$here/stages/4-restore.yaml" quiet
    wait_reload "$before" || true
    before=$(last_reload_at)
    install_config "$work/original.yaml" quiet
    wait_reload "$before" || true
    echo "restored the original config: $(status_field result), generation $(status_field version)"
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# Bold headings on a terminal only.
if [ -t 1 ]; then
  say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
  say() { printf '\n== %s\n' "$*"; }
fi

# install_config FILE: replace the config the way an editor does (write a
# temporary file, rename it over the old one: one atomic change).
install_config() {
  cp "$1" "$config.tmp.$$"
  mv "$config.tmp.$$" "$config"
  [ "${2:-}" = quiet ] || echo "installed $(basename "$1") as $(basename "$config")"
}

# status_field NAME: the first "NAME": value of /status (the last reload's
# fields come first after the live generation's).
status_field() {
  curl -fsS "http://$ADMIN/status" | grep "\"$1\":" | sed -n 1p | sed 's/^[^:]*: *//; s/,$//; s/"//g'
}

# wait_reload OLD_AT: wait until /status shows a reload newer than OLD_AT.
wait_reload() {
  for _ in $(seq 1 100); do
    at=$(curl -fsS "http://$ADMIN/status" | sed -n '/"lastReload"/,/}/p' | grep '"at":' | sed -n 1p | sed 's/^[^:]*: *//; s/,$//; s/"//g')
    if [ -n "$at" ] && [ "$at" != "$1" ]; then return 0; fi
    sleep 0.1
  done
  echo "no reload seen within 10s (is the server watching $config?)" >&2
  return 1
}

last_reload_at() {
  curl -fsS "http://$ADMIN/status" | sed -n '/"lastReload"/,/}/p' | grep '"at":' | sed -n 1p | sed 's/^[^:]*: *//; s/,$//; s/"//g' || true
}

# rpc BODY: one JSON-RPC request in the session; prints the JSON answer.
rpc() {
  curl -fsS -X POST "$MCP_URL" \
    -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    -H "Mcp-Session-Id: $sid" -H 'MCP-Protocol-Version: 2025-11-25' \
    -d "$1" | sed -n -e '/^{/p' -e 's/^data: //p'
}

notifications() { grep -c 'notifications/tools/list_changed' "$work/events" || true; }

show_status() {
  if command -v "$MCPCTL" >/dev/null 2>&1; then
    "$MCPCTL" status --admin "$ADMIN" | sed 's/^/  | /'
  else
    curl -fsS "http://$ADMIN/status" | sed -n '/"lastReload"/,/^  }/p' | sed 's/^/  | /'
  fi
}

tool_names() { grep -o '"name":"[^"]*"' | sed 's/"name":"//; s/"$//' | tr '\n' ' '; echo; }

say "0. connect"
curl -fsS "http://$ADMIN/readyz" >/dev/null || { echo "no server at $ADMIN; start it first (see the top of this script)" >&2; exit 1; }
curl -fsS -D "$work/headers" -o "$work/init" -X POST "$MCP_URL" \
  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"walkthrough","version":"1.0.0"}}}'
sid=$(grep -i '^mcp-session-id:' "$work/headers" | sed 's/^[^:]*: *//' | tr -d '\r')
echo "session $sid: $(sed -n 's/^data: //p' "$work/init" | grep -o '"capabilities":{[^}]*}}')"
curl -fsS -X POST "$MCP_URL" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
  -H "Mcp-Session-Id: $sid" -H 'MCP-Protocol-Version: 2025-11-25' \
  -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' >/dev/null
# The standalone event stream: where notifications/tools/list_changed lands.
curl -fsSN "$MCP_URL" -H 'Accept: text/event-stream' -H "Mcp-Session-Id: $sid" -H 'MCP-Protocol-Version: 2025-11-25' >"$work/events" 2>/dev/null &
sse_pid=$!
sleep 0.3
echo "tools: $(rpc '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' | tool_names)"
echo "call search_notes: $(rpc '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_notes","arguments":{"query":"gate"}}}' | grep -o '"text":"[^"]*"' | sed -n 1p)"

say "1. an additive change: a new tool, a new optional argument"
before=$(last_reload_at); n0=$(notifications)
install_config "$here/stages/1-additive.yaml"
wait_reload "$before"
echo "reload: $(status_field result); generation $(status_field version)"
sleep 0.2
echo "list_changed notifications received: $(( $(notifications) - n0 ))"
echo "tools: $(rpc '{"jsonrpc":"2.0","id":4,"method":"tools/list"}' | tool_names)"
echo "call count_notes: $(rpc '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"count_notes","arguments":{}}}' | grep -o '"text":"[^"]*"' | sed -n 1p)"

say "2. a breaking change: remove the echo tool"
before=$(last_reload_at); n1=$(notifications)
install_config "$here/stages/2-breaking.yaml"
wait_reload "$before"
echo "reload: $(status_field result)  (the live generation stays: $(status_field version))"
show_status
sleep 0.2
echo "list_changed notifications received: $(( $(notifications) - n1 ))"
echo "tools (unchanged): $(rpc '{"jsonrpc":"2.0","id":6,"method":"tools/list"}' | tool_names)"
echo "echo still answers: $(rpc '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"still here"}}}' | grep -o '"structuredContent":{[^}]*}')"

say "3. the same change, allowed by gate.allow"
grep -A2 '^gate:' "$here/stages/3-allowed.yaml" | sed 's/^/  | /'
before=$(last_reload_at); n2=$(notifications)
install_config "$here/stages/3-allowed.yaml"
wait_reload "$before"
echo "reload: $(status_field result); generation $(status_field version)"
sleep 0.2
echo "list_changed notifications received: $(( $(notifications) - n2 ))"
echo "tools: $(rpc '{"jsonrpc":"2.0","id":8,"method":"tools/list"}' | tool_names)"

say "done"
