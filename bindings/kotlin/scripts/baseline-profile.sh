#!/usr/bin/env bash
# The Kotlin binding's baseline profile (src/main/baseline-prof.txt): the classes and methods of
# dev.appfunctions that a process started for one call runs, and the methods of kotlin and kotlinx
# that they run, which ART compiles ahead of time when an app that ships the profile is installed
# (the AAR carries it: docs/distribution.md).
#
#   bindings/kotlin/scripts/baseline-profile.sh            rewrite src/main/baseline-prof.txt
#   bindings/kotlin/scripts/baseline-profile.sh --check    fail when a fresh run has rules it lacks
#
# It builds the binding and its tests (`mvn -Pclasspath verify`), compiles the JVMTI agent
# src/test/c/touched_agent.c, runs src/test/kotlin/dev/appfunctions/profile/StartupWorkload.kt
# under it and keeps the classes and methods that ship: the main classes and the Android service's
# (src/android/kotlin), not the tests', and the dependencies' methods the agent found run for a
# class that ships. The kotlin lane runs it with --check, after its tests.
# Env: APPFUNCTIONS_LIB_DIR (the core's directory; default: target/release, built if missing),
# JAVA_HOME (a JDK: jvmti.h), MVN_ARGS (extra Maven arguments), APPFUNCTIONS_PROFILE_PREBUILT=1
# (the classes are built: only the class path is asked of Maven).
set -euo pipefail
BINDING="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPO="$(cd "$BINDING/../.." && pwd)"
source "$REPO/ci/env.sh"
MODE="${1:-write}"
case "$MODE" in write | --check) ;; *) echo "usage: $0 [--check]" >&2; exit 2 ;; esac
say() { printf '[baseline-profile] %s\n' "$*"; }

JAVA_BIN="${JAVA_HOME:+$JAVA_HOME/bin/java}"
[[ -n "$JAVA_BIN" && -x "$JAVA_BIN" ]] || JAVA_BIN="$(command -v java)"
JDK="$(dirname "$(dirname "$(readlink -f "$JAVA_BIN")")")"
[[ -f "$JDK/include/jvmti.h" ]] || { say "no jvmti.h under $JDK/include (a JDK is needed, not a JRE)"; exit 1; }

LIB_DIR="${APPFUNCTIONS_LIB_DIR:-$REPO/target/release}"
if [[ ! -f "$LIB_DIR/libappfunctions.so" ]]; then
  af_cargo_setup
  say "cargo build --release (no $LIB_DIR/libappfunctions.so)"
  (cd "$REPO" && cargo build --release -q)
fi

mapfile -t MAVEN_OFFLINE < <(af_maven_args)
if [[ "${APPFUNCTIONS_PROFILE_PREBUILT:-0}" == 1 ]]; then
  # the caller (the kotlin lane) has just built the main and test classes: the class path alone
  say "mvn -Pclasspath exec:exec@classpath (the test class path; the classes are built)"
  GOALS=(exec:exec@classpath)
else
  say "mvn -Pclasspath verify (the main and test classes, the test class path)"
  GOALS=(verify)
fi
# shellcheck disable=SC2086
(cd "$BINDING" && JAVA_HOME="$JDK" mvn -q -B -Dstyle.color=never ${MVN_ARGS:-} "${MAVEN_OFFLINE[@]}" -Pclasspath "${GOALS[@]}" \
  "-Dappfunctions.library.path=$LIB_DIR")
CP="$(cat "$BINDING/target/test.classpath")"

WORK="$BINDING/target/baseline-profile"
mkdir -p "$WORK"
gcc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -I"$JDK/include" -I"$JDK/include/linux" \
  -o "$WORK/libtouched_agent.so" "$BINDING/src/test/c/touched_agent.c"
# profile_of RUNS OUT: the rules of RUNS runs of the workload under the agent (their union) in OUT
profile_of() {
  local runs="$1" out="$2" run
  rm -f "$WORK"/touched.*.txt
  for run in $(seq "$runs"); do
    say "StartupWorkload under the agent (run $run of $runs)"
    "$JAVA_BIN" "-agentpath:$WORK/libtouched_agent.so=$WORK/touched.$run.txt,Ldev/appfunctions/,Lkotlin/|Lkotlinx/" \
      "-Dappfunctions.library.path=$LIB_DIR" -cp "$CP" dev.appfunctions.profile.StartupWorkloadKt
  done
  python3 - "$BINDING" "$out" "$WORK"/touched.*.txt <<'PY'
import pathlib, re, sys
binding, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
touched = [pathlib.Path(p) for p in sys.argv[3:]]
main_classes = binding / "target" / "classes"
# The Android service compiles with the tests here (the pom): its classes are those its sources declare.
android_src = binding / "src" / "android" / "kotlin"
android_names = set()
for kt in android_src.rglob("*.kt"):
    pkg = kt.parent.relative_to(android_src).as_posix()
    android_names.add(f"{pkg}/{kt.stem}Kt")
    for name in re.findall(r"^\s*(?:[a-z]+\s+)*(?:class|object|interface)\s+(\w+)", kt.read_text(), re.M):
        android_names.add(f"{pkg}/{name}")

def ships(descriptor):  # "Ldev/appfunctions/X$Y;"
    name = descriptor[1:-1]
    return (main_classes / f"{name}.class").is_file() or name.split("$")[0] in android_names

classes, methods = set(), set()
for line in (l for t in touched for l in t.read_text().splitlines()):
    kind, rest = line.split(" ", 1)
    if kind == "C":
        if ships(rest):
            classes.add(rest)
        continue
    # "M": the binding's method; "D": a dependency's (Kotlin's, kotlinx's) and the binding's class it ran for
    cls, name, sig, *caller = rest.split(" ")
    if ships(caller[0] if kind == "D" else cls):
        classes.add(cls)
        methods.add(f"HSP{cls}->{name}{sig}")
if not methods:
    sys.exit("[baseline-profile] the workload ran none of the binding's methods: is the agent working?")
# no comments: the rules alone, as ART's profile tools read them
out.write_text("\n".join(sorted(classes) + sorted(methods)) + "\n")
print(f"[baseline-profile] {len(classes)} classes, {len(methods)} methods")
PY
}

PROFILE="$BINDING/src/main/baseline-prof.txt"
# A call that races its outcome (a suspend handler resumed before or after its caller suspends)
# runs a method or two only now and then: writing takes the union of three runs, and a check
# fails only on the rules that two runs in turn make and the file lacks, never on one run's race.
if [[ "$MODE" == "--check" ]]; then
  # Every rule of a fresh run must be in the committed profile. The reverse is the unit test's
  # (profile/BaselineProfileTest: every committed rule names a class and method that exist): a rule
  # a run did not reach is harmless.
  profile_of 1 "$WORK/baseline-prof.txt"
  missing="$(comm -13 <(sort "$PROFILE") <(sort "$WORK/baseline-prof.txt"))"
  if [[ -n "$missing" ]]; then
    say "$(printf '%s\n' "$missing" | wc -l) rule(s) of this run are not in src/main/baseline-prof.txt: a second run says whether they are the binding's path or one run's race"
    profile_of 1 "$WORK/baseline-prof.2.txt"
    missing="$(comm -12 <(printf '%s\n' "$missing") <(comm -13 <(sort "$PROFILE") <(sort "$WORK/baseline-prof.2.txt")))"
  fi
  if [[ -n "$missing" ]]; then
    printf '%s\n' "$missing" | sed 's/^/  + /'
    say "FAILED: the binding's startup path runs the $(printf '%s\n' "$missing" | wc -l) rule(s) above, which src/main/baseline-prof.txt lacks."
    say "Run bindings/kotlin/scripts/baseline-profile.sh and commit the file."
    exit 1
  fi
  stale="$(comm -23 <(sort "$PROFILE") <(sort "$WORK/baseline-prof.txt") | wc -l)"
  say "src/main/baseline-prof.txt has every rule of a fresh run ($stale of its rules the run did not reach)"
else
  profile_of 3 "$WORK/baseline-prof.txt"
  cp "$WORK/baseline-prof.txt" "$PROFILE"
  say "wrote src/main/baseline-prof.txt"
fi
