#!/usr/bin/env bash
# Kotlin lane: build the native library, then run the Kotlin binding's tests on JDK 17.
#   exit 0  tests passed
#   exit 1  build or test failure
#   exit 3  the lane cannot run here (no JDK 17 or no Maven)
# Env: REPO (default: this script's repo root), MVN_ARGS (extra Maven args, e.g. -o).
set -euo pipefail

REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
BINDING="$REPO/bindings/kotlin"
source "$REPO/ci/env.sh"

say() { printf '[kotlin lane] %s\n' "$*"; }
cannot_run() {
  printf '\n[kotlin lane] !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n' >&2
  printf '[kotlin lane] !!! THE KOTLIN LANE CANNOT RUN: %s\n' "$*" >&2
  printf '[kotlin lane] !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\n' >&2
  exit 3
}

java_major() { # prints the major version of the java at $1 (a java binary)
  "$1" -version 2>&1 | awk -F'"' '/version/ { split($2, v, "."); print (v[1] == "1" ? v[2] : v[1]); exit }'
}

# --- JDK 17 ------------------------------------------------------------------
JAVA_BIN="${JAVA_HOME:+$JAVA_HOME/bin/java}"
[[ -n "$JAVA_BIN" && -x "$JAVA_BIN" ]] || JAVA_BIN="$(command -v java || true)"
if [[ -z "$JAVA_BIN" || "$(java_major "$JAVA_BIN")" != "17" ]]; then
  for cand in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/java-17-openjdk-arm64 /usr/lib/jvm/java-17-openjdk /usr/lib/jvm/temurin-17-jdk-amd64; do
    if [[ -x "$cand/bin/java" && "$(java_major "$cand/bin/java")" == "17" ]]; then
      export JAVA_HOME="$cand"
      JAVA_BIN="$cand/bin/java"
      break
    fi
  done
fi
[[ -n "$JAVA_BIN" && "$(java_major "$JAVA_BIN")" == "17" ]] || cannot_run "no JDK 17 found (java: ${JAVA_BIN:-none})"
JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$JAVA_BIN")")")"
export JAVA_HOME
export PATH="$JAVA_HOME/bin:$PATH"
say "java: $("$JAVA_BIN" -version 2>&1 | head -1) (JAVA_HOME=$JAVA_HOME)"

# --- Maven -------------------------------------------------------------------
if ! command -v mvn >/dev/null 2>&1; then
  say "mvn not found; trying apt-get install -y maven"
  if command -v apt-get >/dev/null 2>&1; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven; } || true
  fi
  command -v mvn >/dev/null 2>&1 || cannot_run "Maven (mvn) is not installed and could not be installed"
fi
# Maven picks its JDK from JAVA_HOME (exported above).
say "maven: $(mvn -v 2>/dev/null | head -1 | sed 's/\x1b\[[0-9;]*m//g')"

# Maven Central, or the shared offline copy (-o)
mapfile -t MAVEN_OFFLINE < <(af_maven_args)
MVN_ARGS="${MVN_ARGS:-} ${MAVEN_OFFLINE[*]}"

# --- native library ------------------------------------------------------------
af_cargo_setup || cannot_run "crates cannot be resolved here"
say "cargo build --release (in $REPO)"
if ! (cd "$REPO" && cargo build --release); then
  say "FAILED: cargo build --release"
  exit 1
fi
LIBDIR="$REPO/target/release"
[[ -f "$LIBDIR/libappfunctions.so" ]] || say "warning: $LIBDIR/libappfunctions.so not found after cargo build"

# --- the README's examples --------------------------------------------------------
# Each ```kotlin block after a `<!-- kotlin-lane: NAME.kt -->` marker in the binding's README must
# appear verbatim in the test file NAME.kt, which compiles and runs it (so the examples cannot rot).
if ! python3 - "$BINDING" <<'PY'
import pathlib, re, sys
root = pathlib.Path(sys.argv[1])
readme = (root / "README.md").read_text()
blocks = re.findall(r"<!-- kotlin-lane: (\S+) -->\n```kotlin\n(.*?)```", readme, re.S)
if not blocks:
    sys.exit("[kotlin lane] README.md has no <!-- kotlin-lane: FILE --> example")
for name, code in blocks:
    files = list((root / "src" / "test").rglob(name))
    if len(files) != 1:
        sys.exit(f"[kotlin lane] README.md names {name}, found {len(files)} such test files")
    if code not in files[0].read_text():
        sys.exit(f"[kotlin lane] a README.md example differs from {files[0].relative_to(root)}: keep them the same")
print(f"[kotlin lane] the README's {len(blocks)} examples are in their tests verbatim")
PY
then
  say "FAILED: the README's examples"
  exit 1
fi

# --- tests -----------------------------------------------------------------------
say "mvn -B clean test (in $BINDING, jna.library.path=$LIBDIR)"
# clean: Kotlin leaves the classes of deleted test files in target/, and surefire would run them.
# shellcheck disable=SC2086
if ! (cd "$BINDING" && mvn -B -Dstyle.color=never ${MVN_ARGS:-} clean test "-Djna.library.path=$LIBDIR"); then
  say "FAILED: mvn test"
  exit 1
fi
say "passed"
