#!/usr/bin/env bash
# Kotlin lane: build the native library, then run the Kotlin binding's tests on JDK 17: all of
# them through the binding's JNI library (the pom's jni profile compiles
# src/main/c/appfunctions_jni.c with gcc, warnings as errors; every downcall and callback crosses
# there, no JNA), the baseline profile against a fresh run (scripts/baseline-profile.sh --check),
# a subset again with that library built under AddressSanitizer and UBSan, and its
# CMakeLists.txt (what Android's NDK builds) once with cmake.
#   exit 0  tests passed
#   exit 1  build or test failure
#   exit 3  the lane cannot run here (no JDK 17, no Maven or no C compiler)
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

# --- the JNI shim's compiler ---------------------------------------------------------
if ! command -v gcc >/dev/null 2>&1; then
  say "gcc not found; trying apt-get install -y gcc"
  if command -v apt-get >/dev/null 2>&1; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc libc6-dev; } || true
  fi
  command -v gcc >/dev/null 2>&1 || cannot_run "no gcc for the JNI shim (src/main/c/appfunctions_jni.c)"
fi
[[ -f "$JAVA_HOME/include/jni.h" ]] || cannot_run "no jni.h under $JAVA_HOME/include (a JDK, not a JRE, is needed for the JNI shim)"

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
say "mvn -B clean test (in $BINDING, appfunctions.library.path=$LIBDIR; through the binding's JNI library)"
# clean: Kotlin leaves the classes of deleted test files in target/, and surefire would run them.
# shellcheck disable=SC2086
if ! (cd "$BINDING" && mvn -B -Dstyle.color=never ${MVN_ARGS:-} clean test "-Dappfunctions.library.path=$LIBDIR"); then
  say "FAILED: mvn test"
  exit 1
fi
SHIM="$BINDING/target/classes/linux-x86-64/libappfunctions_jni.so"
[[ -f "$SHIM" ]] || { say "FAILED: no $SHIM after the build (the pom's jni profile)"; exit 1; }

# The baseline profile Android installs compile ahead of time (src/main/baseline-prof.txt): every
# rule a fresh run of the startup workload makes under the JVMTI agent must be in the committed
# file (BaselineProfileTest, run above, checks that each of its rules names what exists).
say "the baseline profile: bindings/kotlin/scripts/baseline-profile.sh --check"
if ! APPFUNCTIONS_LIB_DIR="$LIBDIR" APPFUNCTIONS_PROFILE_PREBUILT=1 MVN_ARGS="${MVN_ARGS:-}" "$BINDING/scripts/baseline-profile.sh" --check; then
  say "FAILED: the baseline profile"
  exit 1
fi

# The shim under AddressSanitizer and UBSan once: built instrumented into target/asan, found first
# on java.library.path by the test JVM, which preloads the sanitizer runtime; a report aborts it.
ASAN_LIB="$(gcc -print-file-name=libasan.so)"
if [[ -f "$ASAN_LIB" ]]; then
  ASAN_DIR="$BINDING/target/asan"
  mkdir -p "$ASAN_DIR"
  if ! gcc -std=c11 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
      -Wall -Wextra -Werror -shared -fPIC -I"$JAVA_HOME/include" -I"$JAVA_HOME/include/linux" -I"$REPO/include" \
      "$BINDING/src/main/c/appfunctions_jni.c" -o "$ASAN_DIR/libappfunctions_jni.so" -lpthread -ldl; then
    say "FAILED: building the shim with -fsanitize=address,undefined"
    exit 1
  fi
  ASAN_TESTS="CallbackPathTest,HooksTest,LifecycleTest,OrdersScenarioTest,AgentScenarioTest,McpSessionTest,HttpServerTest,PublicationTest,EntitiesByIdTest,SuspendExecuteTest,ArgumentsTest,ShimMemoryTest,ScratchPathTest"
  say "the shim under AddressSanitizer and UBSan: $ASAN_TESTS"
  # the JVM handles its own SIGSEGVs (implicit null checks): the sanitizer must leave them to it
  # shellcheck disable=SC2086
  if ! (cd "$BINDING" && ASAN_OPTIONS=detect_leaks=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:allow_user_segv_handler=1:use_sigaltstack=0:abort_on_error=1 \
      mvn -B -Dstyle.color=never ${MVN_ARGS:-} surefire:test "-Dappfunctions.library.path=$LIBDIR" \
      "-Dtest.ld.preload=$ASAN_LIB" "-Dtest.jvm.args=-Djava.library.path=$ASAN_DIR" \
      -Dappfunctions.expectShimFrom=java.library.path "-Dtest=$ASAN_TESTS"); then
    say "FAILED: the tests with the shim under AddressSanitizer (a hs_err or sanitizer report is above)"
    exit 1
  fi
else
  say "warning: no libasan for gcc: the shim is not run under AddressSanitizer here"
fi

# Android's NDK compiles the JNI library with clang: one clang here compiles it with the same warnings.
CLANG="$(command -v clang || compgen -c clang- 2>/dev/null | grep -E '^clang-[0-9]+$' | sort -t- -k2 -n | tail -1 || true)"
if [[ -n "$CLANG" ]]; then
  if ! "$CLANG" -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$JAVA_HOME/include" -I"$JAVA_HOME/include/linux" \
      -I"$REPO/include" "$BINDING/src/main/c/appfunctions_jni.c"; then
    say "FAILED: $CLANG -Wall -Wextra -Werror -pedantic on src/main/c/appfunctions_jni.c"
    exit 1
  fi
  say "$CLANG compiles the JNI library without a warning"
else
  say "warning: no clang: the JNI library is not compiled with clang here"
fi

# The shim's CMakeLists.txt (Android's externalNativeBuild uses it): configure and build it here.
if command -v cmake >/dev/null 2>&1; then
  CM="$BINDING/target/jni-cmake"
  if ! { cmake -S "$BINDING/src/main/c" -B "$CM" -DCMAKE_BUILD_TYPE=Release >"$CM.log" 2>&1 && cmake --build "$CM" >>"$CM.log" 2>&1; }; then
    cat "$CM.log" >&2
    say "FAILED: cmake build of src/main/c/CMakeLists.txt"
    exit 1
  fi
  say "src/main/c/CMakeLists.txt builds the shim with cmake"
else
  say "warning: no cmake: src/main/c/CMakeLists.txt not built here"
fi
say "passed"
