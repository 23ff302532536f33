#!/usr/bin/env bash
# The main job on a fresh machine: builds and runs the demo host (the seeds' orders and
# notes apps). Arguments go to the demo: `ci/demo.sh mcp`, `ci/demo.sh export openai`,
# `ci/demo.sh agent`, `ci/demo.sh --help`.
# It is `cargo run --example demo`, with crates taken from the vendored copy when
# crates.io cannot be reached (ci/env.sh); build output goes to stderr.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export REPO
cd "$REPO"
source "$REPO/ci/env.sh"
af_cargo_setup
exec cargo run -q --release --example demo -- "$@"
