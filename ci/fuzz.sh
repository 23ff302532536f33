#!/usr/bin/env bash
# Fuzzes the core with cargo-fuzz (libFuzzer + AddressSanitizer): each target runs for a
# given time, starting from seed corpora written from the tests' documents.
#
#   ci/fuzz.sh [seconds-per-target] [target...]     (default 20 s; targets: all)
#   ci/fuzz.sh 3600 mcp                              a long run of one target
#
# Targets (fuzz/fuzz_targets/): descriptors, binding, mcp, roundtrip; docs/robustness.md
# says what each checks. A crash leaves its input in fuzz/artifacts/<target>/ and the
# script prints the command that reproduces it; the script then exits 1. The corpus grows
# in fuzz/corpus/<target>/ (not committed), so later runs start where earlier ones ended.
#
# Toolchain: cargo-fuzz needs nightly-only rustc flags (-Zsanitizer=address, sancov). This
# machine's default toolchain is stable, so the script sets RUSTC_BOOTSTRAP=1, which lets
# stable rustc accept them (known to work here with rustc 1.95). Set AF_FUZZ_TOOLCHAIN=
# nightly to use a real nightly instead.
#
# Exit: 0 no crash, 1 a crash or a build failure, 3 cannot run here (no cargo-fuzz and it
# cannot be installed).
set -uo pipefail
REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
cd "$REPO"
SECONDS_PER_TARGET="${1:-20}"
shift || true
ALL_TARGETS=(descriptors binding mcp roundtrip)
if [[ $# -gt 0 ]]; then TARGETS=("$@"); else TARGETS=("${ALL_TARGETS[@]}"); fi

CARGO_FUZZ_VERSION=0.13.2
command -v cargo >/dev/null || { echo "!!! fuzz: cannot run: no cargo on PATH" >&2; exit 3; }
source "$REPO/ci/env.sh"
af_cargo_setup || { echo "!!! fuzz: cannot run: crates cannot be resolved here" >&2; exit 3; }
if ! af_prebuilt_tool cargo-fuzz "$CARGO_FUZZ_VERSION"; then
  echo "!!! fuzz: cannot run: cargo-fuzz $CARGO_FUZZ_VERSION could not be installed" >&2
  exit 3
fi
export PATH="$AF_TOOLS_ROOT/bin:$PATH"

TOOLCHAIN_ARGS=()
if [[ -n "${AF_FUZZ_TOOLCHAIN:-}" ]]; then
  TOOLCHAIN_ARGS=("+$AF_FUZZ_TOOLCHAIN")
else
  # stable rustc with nightly flags: see the header of this script
  export RUSTC_BOOTSTRAP=1
fi

echo "[fuzz] writing seed corpora from the tests' documents"
cargo run -q --example fuzz_seeds -- fuzz/corpus || { echo "[fuzz] seed writer failed" >&2; exit 1; }

echo "[fuzz] building the targets (cargo fuzz build, release + ASan)"
build_start=$(date +%s)
BUILD_ARGS=()
[[ ${#TARGETS[@]} -eq 1 ]] && BUILD_ARGS=("${TARGETS[0]}")
if ! cargo "${TOOLCHAIN_ARGS[@]}" fuzz build "${BUILD_ARGS[@]}" >/tmp/af-fuzz-build.log 2>&1; then
  tail -40 /tmp/af-fuzz-build.log >&2
  if grep -q "the option \`Z\` is only accepted on the nightly compiler\|unstable" /tmp/af-fuzz-build.log; then
    echo "!!! fuzz: cannot run: this rustc refuses the sanitizer flags even with RUSTC_BOOTSTRAP=1" >&2
    exit 3
  fi
  echo "[fuzz] build failed" >&2
  exit 1
fi
echo "[fuzz] built in $(( $(date +%s) - build_start )) s"

TRIPLE="$(rustc -vV | sed -n 's/^host: //p')"
BIN_DIR="$REPO/fuzz/target/$TRIPLE/release"
failed=()
summary=()
for t in "${TARGETS[@]}"; do
  mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
  log="/tmp/af-fuzz-$t.log"
  echo "[fuzz] $t for ${SECONDS_PER_TARGET} s"
  "$BIN_DIR/$t" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=4096 \
      -max_len=8192 -print_final_stats=1 -artifact_prefix="fuzz/artifacts/$t/" \
      "fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  corp=$(ls "fuzz/corpus/$t" | wc -l)
  line=$(printf '%-12s %9s runs in %4s s  coverage %6s  corpus %5s' "$t" "${runs:-?}" "$SECONDS_PER_TARGET" "${cov:-?}" "$corp")
  if [[ $rc -ne 0 ]]; then
    artifact=$(grep -o 'Test unit written to [^ ]*' "$log" | tail -1 | sed 's/Test unit written to //')
    grep -A12 -m1 "panicked at\|ERROR: AddressSanitizer\|ERROR: libFuzzer" "$log" >&2
    echo "!!! fuzz: $t found a crash: ${artifact:-see $log}" >&2
    echo "    reproduce: RUSTC_BOOTSTRAP=1 cargo fuzz run $t ${artifact:-}" >&2
    echo "    minimise:  RUSTC_BOOTSTRAP=1 cargo fuzz tmin $t ${artifact:-}" >&2
    failed+=("$t")
    line="$line  CRASH"
  fi
  summary+=("$line")
done

echo
echo "[fuzz] summary"
for l in "${summary[@]}"; do echo "  $l"; done
echo "fuzz: $(( ${#TARGETS[@]} - ${#failed[@]} )) passed, ${#failed[@]} failed"
[[ ${#failed[@]} -eq 0 ]]
