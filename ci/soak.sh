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
# deadline, default 1000; less any stall of the whole process meanwhile, which a thread that
# only sleeps sees). The last line is `soak: N passed, M failed`
# (invariant checks); the exit status is 0 when none failed.
#
# Then the Kotlin part (bindings/kotlin/.../soak/Soak.kt): calls through the Kotlin binding
# under garbage-collector pressure, with a collection forced between writing an invocation
# block and the native call that reads it, for SOAK_KOTLIN_SECONDS (default half the run,
# at least 5; 0 skips it). It needs JDK 17 and Maven; without them it says so and is skipped.
# Then the .NET part (bindings/dotnet/tests/AppFunctions.Soak) for as long as the C run:
# the binding's own faults (results whose converter throws, exceptions whose Message throws,
# invalid result JSON after an await); its last line is `soak (.NET): N passed, M failed`.
# Without a dotnet SDK it says so and is skipped.
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
[[ $rc -eq 0 ]] || rc=1

# The bindings' own faults, each through its public API against the same library; a part
# that cannot run here says so and is skipped, the others still run.
kotlin_part() {
  KSECS="${SOAK_KOTLIN_SECONDS:-$(( SECS / 2 > 5 ? SECS / 2 : 5 ))}"
  [[ "$KSECS" == 0 ]] && return 0
  JAVA_BIN="$(command -v java || true)"
  if [[ -z "$JAVA_BIN" ]] || ! "$JAVA_BIN" -version 2>&1 | grep -q 'version "17'; then
    echo "!!! soak: the Kotlin GC-pressure part cannot run here: no JDK 17 on PATH (skipped)" >&2
    return 0
  fi
  command -v mvn >/dev/null || { echo "!!! soak: the Kotlin GC-pressure part cannot run here: no mvn (skipped)" >&2; return 0; }
  source "$REPO/ci/env.sh" >/dev/null
  mapfile -t MAVEN_OFFLINE < <(af_maven_args)
  cargo build -q --release || { echo "[soak] cargo build --release failed" >&2; return 1; }
  echo "[soak] the Kotlin part for ${KSECS} s (mvn -Psoak verify)"
  (cd bindings/kotlin && mvn -q -B -Dstyle.color=never "${MAVEN_OFFLINE[@]}" -Psoak verify \
    -Dsoak.args="$KSECS" -Dappfunctions.library.path="$REPO/target/release") || return 1
}

# .NET (bindings/dotnet/tests/AppFunctions.Soak): results whose converter throws, exceptions
# whose Message throws, invalid result JSON after an await; every call must end, none stay
# in flight. Last line `soak (.NET): N passed, M failed`.
dotnet_part() {
  if ! command -v dotnet >/dev/null 2>&1; then
    echo "!!! soak: the .NET part cannot run here: no dotnet SDK on PATH (skipped)" >&2
    return 0
  fi
  cargo build -q --release --lib || { echo "[soak] cargo build --release --lib failed" >&2; return 1; }
  echo "[soak] building the .NET part (bindings/dotnet/tests/AppFunctions.Soak)"
  export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
  local log; log=$(mktemp)
  if ! dotnet build "$REPO/bindings/dotnet/tests/AppFunctions.Soak" -c Release -v q -clp:NoSummary >"$log" 2>&1; then
    cat "$log" >&2; rm -f "$log"
    echo "[soak] the .NET part did not build" >&2
    return 1
  fi
  rm -f "$log"
  echo "[soak] the .NET part for ${SECS} s"
  dotnet "$REPO/bindings/dotnet/tests/AppFunctions.Soak/bin/Release/net10.0/AppFunctions.Soak.dll" "$SECS"
}

kotlin_part || rc=1
dotnet_part || rc=1
exit $rc
