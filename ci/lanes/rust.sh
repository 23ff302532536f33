#!/usr/bin/env bash
# Rust lane: formatting, clippy and rustdoc with warnings as errors, every cargo test.
set -euo pipefail
REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
cd "$REPO"
source "$REPO/ci/env.sh"; af_cargo_setup || { echo "!!! rust lane cannot run: crates cannot be resolved here" >&2; exit 3; }
command -v cargo >/dev/null || { echo "!!! rust lane cannot run: no cargo on PATH" >&2; exit 3; }
echo "[rust] cargo fmt --check"
cargo fmt --all -- --check || { echo "[rust] run 'cargo fmt'" >&2; exit 1; }
echo "[rust] cargo clippy --workspace --all-targets -- -D warnings (the crate and benches/)"
cargo clippy --workspace --all-targets -q -- -D warnings || exit 1
echo "[rust] cargo doc --no-deps (a warning fails the lane: a broken link, a doc naming what is not there)"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -q || { echo "[rust] cargo doc warned (above)" >&2; exit 1; }
echo "[rust] cargo test"
cargo test -q 2>&1 | tee /tmp/af-rust-test.log
rc=${PIPESTATUS[0]}
[[ $rc -eq 0 ]] || exit 1
# the size-optional builds (Cargo.toml [features], docs/distribution.md): the library with
# no optional part and each phone build, its code and its unit tests linted, and its unit
# tests run (among them src/ffi/left_out.rs: every export of a part left out answers an
# error naming its feature, through the C ABI)
for features in "" phone-android phone-ios; do
  args=(--lib --no-default-features ${features:+--features "$features"})
  echo "[rust] cargo clippy ${args[*]} (and --profile test) -- -D warnings; cargo test ${args[*]}"
  cargo clippy "${args[@]}" -q -- -D warnings || exit 1
  cargo clippy "${args[@]}" --profile test -q -- -D warnings || exit 1
  cargo test "${args[@]}" -q 2>&1 | tail -3
  [[ ${PIPESTATUS[0]} -eq 0 ]] || exit 1
done
