#!/usr/bin/env bash
# Step 1 of action.yml: install the mcpctl release MCPCTL_VERSION (vX.Y.Z)
# for this runner from the GitHub release's archive, check it against the
# release's checksums.txt, and put it on the PATH of the next steps
# (GITHUB_PATH). MCPCTL_RELEASE_URL replaces
# https://github.com/mcpctl/mcpctl/releases/download (a mirror; tests).
# MCPCTL_ACTION_BINARY, when set, is a local mcpctl used instead of any
# download (tests; no network).
set -euo pipefail

bin="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/mcpctl-bin"
mkdir -p "$bin"

if [ -n "${MCPCTL_ACTION_BINARY:-}" ]; then
  ln -sf "$MCPCTL_ACTION_BINARY" "$bin/mcpctl"
else
  : "${MCPCTL_VERSION:?set the action input version, e.g. v0.1.0}"
  case "${RUNNER_OS:-$(uname -s)}" in
    Linux) os=linux ;;
    macOS | Darwin) os=darwin ;;
    Windows | MINGW* | MSYS*) os=windows ;;
    *) echo "mcpctl action: unsupported runner OS ${RUNNER_OS:-$(uname -s)}" >&2; exit 1 ;;
  esac
  case "${RUNNER_ARCH:-$(uname -m)}" in
    X64 | x86_64 | amd64) arch=amd64 ;;
    ARM64 | aarch64 | arm64) arch=arm64 ;;
    *) echo "mcpctl action: unsupported runner architecture ${RUNNER_ARCH:-$(uname -m)}" >&2; exit 1 ;;
  esac
  version="${MCPCTL_VERSION#v}"
  ext=tar.gz
  [ "$os" = windows ] && ext=zip
  archive="mcpctl_${version}_${os}_${arch}.${ext}"
  url="${MCPCTL_RELEASE_URL:-https://github.com/mcpctl/mcpctl/releases/download}/v${version}"
  work="$(mktemp -d)"
  curl -fsSL --retry 3 -o "$work/$archive" "$url/$archive"
  curl -fsSL --retry 3 -o "$work/checksums.txt" "$url/checksums.txt"
  (cd "$work" && grep " ${archive}\$" checksums.txt >want.txt && {
    if command -v sha256sum >/dev/null; then sha256sum -c want.txt; else shasum -a 256 -c want.txt; fi
  })
  if [ "$ext" = zip ]; then
    unzip -q -o "$work/$archive" -d "$work/x"
  else
    mkdir -p "$work/x" && tar -xzf "$work/$archive" -C "$work/x"
  fi
  cp "$work/x/mcpctl"* "$bin/"
fi

echo "$bin" >>"${GITHUB_PATH:-/dev/null}"
"$bin/mcpctl" version
