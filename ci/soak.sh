#!/usr/bin/env bash
# Soak and fault injection: examples/soak.rs drives normal traffic through the C ABI
# mixed with injected faults for the given time, checking its invariants as it goes
# (docs/robustness.md).
#
#   ci/soak.sh [seconds]          default 20 (the CI run); e.g. ci/soak.sh 3600
#
# Environment: SOAK_THREADS (traffic threads, default 2), SOAK_RSS_NOISE_KIB (allowed RSS
# growth after warm-up, default 4096), SOAK_SLOW_MS (how long each injected slow host
# callback blocks, default 25), SOAK_LATENESS_MS (the most a timeout may fire after its
# deadline, default 1000). The last line is `soak: N passed, M failed`
# (invariant checks); the exit status is 0 when none failed.
#
# Then the Kotlin part (bindings/kotlin/.../soak/Soak.kt): calls through the Kotlin binding
# under garbage-collector pressure, with a collection forced between writing an invocation
# block and the native call that reads it, for SOAK_KOTLIN_SECONDS (default half the run,
# at least 5; 0 skips it). It needs JDK 17 and Maven; without them it says so and is skipped.
set -uo pipefail
REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
cd "$REPO"
SECS="${1:-20}"
command -v cargo >/dev/null || { echo "!!! soak: cannot run: no cargo on PATH" >&2; exit 3; }
echo "[soak] building examples/soak.rs (release)"
cargo build -q --release --example soak || { echo "[soak] build failed" >&2; exit 1; }
echo "[soak] running for ${SECS} s"
"$REPO/target/release/examples/soak" "$SECS"
rc=$?
[[ $rc -eq 0 ]] || exit 1

KSECS="${SOAK_KOTLIN_SECONDS:-$(( SECS / 2 > 5 ? SECS / 2 : 5 ))}"
[[ "$KSECS" == 0 ]] && exit 0
JAVA_BIN="$(command -v java || true)"
if [[ -z "$JAVA_BIN" ]] || ! "$JAVA_BIN" -version 2>&1 | grep -q 'version "17'; then
  echo "!!! soak: the Kotlin GC-pressure part cannot run here: no JDK 17 on PATH (skipped)" >&2
  exit 0
fi
command -v mvn >/dev/null || { echo "!!! soak: the Kotlin GC-pressure part cannot run here: no mvn (skipped)" >&2; exit 0; }
source "$REPO/ci/env.sh" >/dev/null
mapfile -t MAVEN_OFFLINE < <(af_maven_args)
cargo build -q --release || { echo "[soak] cargo build --release failed" >&2; exit 1; }
echo "[soak] the Kotlin part for ${KSECS} s (mvn -Psoak verify)"
(cd bindings/kotlin && mvn -q -B -Dstyle.color=never "${MAVEN_OFFLINE[@]}" -Psoak verify \
  -Dsoak.args="$KSECS" -Djna.library.path="$REPO/target/release") || exit 1
