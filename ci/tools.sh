#!/usr/bin/env bash
# Installs the pinned tools the lanes use into a per-user cache and prints their bin
# directory. Sourced by lanes: `source ci/tools.sh; need_cbindgen`.
# shellcheck source=ci/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
af_cargo_setup
CBINDGEN_VERSION=0.29.2

need_cbindgen() {
  af_prebuilt_tool cbindgen "$CBINDGEN_VERSION" || return 1
  CBINDGEN="$AF_TOOLS_ROOT/bin/cbindgen"
}

regen_header() { # $1: output path
  "$CBINDGEN" --quiet --config "$REPO/cbindgen.toml" --crate appfunctions --output "$1" "$REPO" 2> >(grep -v '^WARN: Skip' >&2)
  # cbindgen writes the C++ guards' comments as `//`: the header keeps to /* */ comments,
  # so hosts compiling as C89-ish C (or with -Wcomment pickiness) include it cleanly
  sed -i -E 's#^(\}|\#endif)( +)// (.*)$#\1\2/* \3 */#' "$1"
}
