#!/usr/bin/env bash
# Header lane: the committed C header and descriptor schema match the code, the crate
# and every binding carry one version (ci/versions.sh), and the header keeps the ABI
# promise (ci/abi.sh: no incompatible difference from abi/v<N>.txt, only AF_/af_ names,
# /* */ comments), and the .NET and Kotlin interop declare exactly that ABI, every function of
# which every binding (Swift too) calls or lists as not wrapped with the reason (ci/interop_abi.py).
set -euo pipefail
REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
cd "$REPO"
bash ci/versions.sh || exit 1
source "$REPO/ci/tools.sh"
need_cbindgen || { echo "!!! header lane cannot run: cbindgen could not be installed" >&2; exit 3; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
regen_header "$tmp/appfunctions.h"
if ! diff -u include/appfunctions.h "$tmp/appfunctions.h"; then
  echo "[header] include/appfunctions.h is out of date: run ci/regen.sh and commit it" >&2
  exit 1
fi
echo "[header] include/appfunctions.h is in sync"
# the ABI promise (docs/abi.md): the header against the committed baseline abi/v<N>.txt
bash ci/abi.sh --self-test || exit 1
bash ci/abi.sh || exit 1
# the bindings' hand-written interop (.NET Native*.cs, Kotlin AfNative.kt) against the same baseline
python3 ci/interop_abi.py --self-test || exit 1
python3 ci/interop_abi.py || exit 1
cargo test -q --test generated_files 2>&1 | tail -3
[[ ${PIPESTATUS[0]} -eq 0 ]] || exit 1
echo "[header] include/appfunctions.descriptor.schema.json is in sync"
