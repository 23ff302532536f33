#!/usr/bin/env bash
# Regenerates the committed generated files: the C header and the descriptor schema.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
source "$REPO/ci/tools.sh"
need_cbindgen
regen_header include/appfunctions.h
AF_BLESS=1 cargo test -q --test generated_files >/dev/null
echo "regenerated include/appfunctions.h and include/appfunctions.descriptor.schema.json"
