#!/usr/bin/env bash
# Step 2 of action.yml: diff LOCKFILE as it is on BASE_REF (origin) with
# the checked-out LOCKFILE. The markdown report goes to the job summary
# (GITHUB_STEP_SUMMARY); the github format's ::error/::warning lines annotate
# the pull request; the exit code is diff's with --fail-on FAIL_ON (1 when
# findings reach it, 2 for bad input).
set -euo pipefail

: "${LOCKFILE:?set the action input lockfile}"
: "${BASE_REF:?set the action input base-ref, or run on pull_request}"
fail_on="${FAIL_ON:-breaking}"
summary="${GITHUB_STEP_SUMMARY:-/dev/null}"

if ! git rev-parse --verify --quiet "refs/remotes/origin/$BASE_REF" >/dev/null; then
  git fetch --no-tags --depth=1 origin "+refs/heads/$BASE_REF:refs/remotes/origin/$BASE_REF"
fi
if ! git cat-file -e "origin/$BASE_REF:./$LOCKFILE" 2>/dev/null; then
  printf '## MCP tool contract\n\n`%s` is new on this branch (not on `%s`): nothing to compare.\n' "$LOCKFILE" "$BASE_REF" >>"$summary"
  exit 0
fi

args=(diff --fail-on "$fail_on")
[ -n "${MCPCTL_CONFIG:-}" ] && args+=(--config "$MCPCTL_CONFIG")
[ -n "${MCPCTL_FACADES:-}" ] && args+=(--facades "$MCPCTL_FACADES")
# The sources after "--": a lockfile named like a flag stays a source.
sources=(-- "git:origin/$BASE_REF:$LOCKFILE" "$LOCKFILE")

set +e
mcpctl "${args[@]}" --format markdown "${sources[@]}" >>"$summary"
report=$?
mcpctl "${args[@]}" --format github "${sources[@]}"
gate=$?
set -e
if [ "$report" -gt 1 ]; then # 1 is findings, which the gate run reports
  exit "$report"
fi
exit "$gate"
