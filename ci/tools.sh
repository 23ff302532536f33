#!/usr/bin/env bash
# Installs the pinned tools the lanes use into a per-user cache and prints their bin
# directory. Sourced by lanes: `source ci/tools.sh; need_cbindgen`.
TOOLS_ROOT="${AF_TOOLS_ROOT:-$HOME/.cache/appfunctions-tools}"
CBINDGEN_VERSION=0.29.2

need_cbindgen() {
  local bin="$TOOLS_ROOT/bin/cbindgen"
  if [[ -x "$bin" ]] && "$bin" --version 2>/dev/null | grep -q "$CBINDGEN_VERSION"; then
    CBINDGEN="$bin"; return 0
  fi
  echo "[tools] installing cbindgen $CBINDGEN_VERSION into $TOOLS_ROOT" >&2
  cargo install cbindgen --version "$CBINDGEN_VERSION" --locked --root "$TOOLS_ROOT" >&2 || return 1
  CBINDGEN="$bin"
}

regen_header() { # $1: output path
  "$CBINDGEN" --quiet --config "$REPO/cbindgen.toml" --crate appfunctions --output "$1" "$REPO" 2> >(grep -v '^WARN: Skip' >&2)
}
