#!/usr/bin/env bash
# Miri lane: the core's unit tests and the C-ABI tests (tests/ffi.rs, which call the
# exported af_* functions from Rust as a host would) under miri, which checks every
# unsafe path for undefined behaviour: use after free, double free, out-of-bounds and
# uninitialised reads, data races, leaks, aliasing violations.
#
# Needs a nightly toolchain with the miri and rust-src components and a miri sysroot
# (`cargo +nightly miri setup`, which builds std from rust-src; offline it works only if
# the components are installed already). When they are missing and cannot be had, the
# lane says so loudly and exits 3.
#
# Flags (MIRIFLAGS, override with AF_MIRIFLAGS):
#   (aliasing model)             miri's default, Stacked Borrows; AF_MIRI_TREE=1 runs
#                                Tree Borrows instead.
#   -Zmiri-permissive-provenance call and gate handles are integers the C layer passes as
#                                opaque pointers (never dereferenced); this silences the
#                                integer-to-pointer cast warnings.
# Skipped (slow under miri, no unsafe code of their own; they run in the rust lane):
#   see MIRI_SKIPS below.
# Exit: 0 passed, 1 failed, 3 cannot run here.
set -uo pipefail
REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
cd "$REPO"
source "$REPO/ci/env.sh"; af_cargo_setup || { echo "!!! miri lane cannot run: crates cannot be resolved here" >&2; exit 3; }
TC="${AF_MIRI_TOOLCHAIN:-nightly}"

cannot() { echo "!!! miri lane COULD NOT RUN: $*" >&2; exit 3; }

command -v cargo >/dev/null || cannot "no cargo on PATH"
if ! cargo "+$TC" miri --version >/dev/null 2>&1; then
  echo "[miri] no miri for toolchain $TC; trying rustup component add miri rust-src" >&2
  if ! command -v rustup >/dev/null || ! timeout 300 rustup component add miri rust-src --toolchain "$TC" >&2; then
    cannot "toolchain '$TC' has no miri component and it cannot be installed here (offline?)"
  fi
fi
if ! timeout 600 cargo "+$TC" miri setup >/tmp/af-miri-setup.log 2>&1; then
  tail -5 /tmp/af-miri-setup.log >&2
  if ! rustup component list --toolchain "$TC" --installed 2>/dev/null | grep -q rust-src; then
    timeout 300 rustup component add rust-src --toolchain "$TC" >&2 || cannot "no rust-src for $TC to build miri's sysroot"
    timeout 600 cargo "+$TC" miri setup >/tmp/af-miri-setup.log 2>&1 || cannot "cargo miri setup failed (see /tmp/af-miri-setup.log)"
  else
    cannot "cargo miri setup failed (see /tmp/af-miri-setup.log)"
  fi
fi
echo "[miri] $(cargo "+$TC" miri --version)"

FLAGS="-Zmiri-permissive-provenance"
[[ "${AF_MIRI_TREE:-0}" == "1" ]] && FLAGS="$FLAGS -Zmiri-tree-borrows"
export MIRIFLAGS="${AF_MIRIFLAGS:-$FLAGS}"
export CARGO_TARGET_DIR="$REPO/target/miri"
echo "[miri] MIRIFLAGS=$MIRIFLAGS"

# Unit tests skipped under miri, with the reason:
#   export::  the tool-list and Android XML exporters' tests: safe string building with
#              no unsafe code, 10-60 s each under miri (over 10 minutes together). They
#              run natively in the rust lane, and through the C ABI in tests/ffi.rs.
MIRI_SKIPS=(
  export::
)
SKIP_ARGS=()
for s in "${MIRI_SKIPS[@]}"; do SKIP_ARGS+=(--skip "$s"); done

start=$(date +%s)
echo "[miri] cargo miri test --lib (the core's unit tests)"
timeout 900 cargo "+$TC" miri test -q --lib -- "${SKIP_ARGS[@]}" 2>&1 | tee /tmp/af-miri-lib.log | grep -v "^warning\|^ *Compiling" | tail -15
rc_lib=${PIPESTATUS[0]}
echo "[miri] cargo miri test --test ffi (the C ABI called from Rust)"
timeout 900 cargo "+$TC" miri test -q --test ffi 2>&1 | tee /tmp/af-miri-ffi.log | grep -v "^warning\|^ *Compiling" | tail -15
rc_ffi=${PIPESTATUS[0]}
# tests/pipeline.rs (the Rust API's asynchronous completion, cancellation, timeouts) starts
# the process's timer and completion threads, which exit only after a second without
# work: miri would report one still waiting as a thread left running, so this one binary
# runs without the leak check.
echo "[miri] cargo miri test --test pipeline (with -Zmiri-ignore-leaks: the timer and completion threads)"
MIRIFLAGS="$MIRIFLAGS -Zmiri-ignore-leaks" timeout 900 cargo "+$TC" miri test -q --test pipeline 2>&1 | tee /tmp/af-miri-pipeline.log | grep -v "^warning\|^ *Compiling" | tail -15
rc_pipe=${PIPESTATUS[0]}
echo "[miri] took $(( $(date +%s) - start )) s"
if [[ $rc_lib -eq 0 && $rc_ffi -eq 0 && $rc_pipe -eq 0 ]]; then exit 0; fi
grep -m3 -A8 "Undefined Behavior\|error: memory leaked\|panicked" /tmp/af-miri-lib.log /tmp/af-miri-ffi.log /tmp/af-miri-pipeline.log >&2
exit 1
