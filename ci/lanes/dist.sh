#!/usr/bin/env bash
# Dist lane: ci/dist.sh builds the release artifacts into target/dist/, then host projects
# consume them the way users would, never touching the source tree's build outputs:
#   1. C through pkg-config (shared library, rpath from the .pc's libdir), run; and the
#      README's C program built and run with the README's pkg-config lines;
#   2. C and C++ through the CMake package config (shared and static imported targets), run;
#   3. Maven: the Kotlin jar + pom installed (install:install-file) into a throwaway local
#      repository, a project depending on it compiles the Kotlin README's first program
#      and runs it with no appfunctions.library.path (the library and the binding's JNI library
#      come out of the jar);
#   4. Swift: the dist package (its own copy of the header) passes the binding's tests
#      against the stripped library, and a package depending on it by path runs the Swift
#      README's first program (both through ci/lanes/swift.sh);
#   5. .NET: the .NET README's first program and the AppFunctions.AspNetCore README's web host run exactly as printed (steps, Program.cs,
#      dotnet run), then a console project referencing both nupkgs from a local feed (the source generator
#      and the native library come out of the package), built and run.
# Exit 0 passed, 1 failed, 3 cannot run here. A consumer that cannot run here (no cmake,
# no Swift toolchain, no .NET SDK) is reported loudly as skipped.
set -uo pipefail
REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
export REPO
cd "$REPO"
source "$REPO/ci/env.sh"

say() { printf '[dist lane] %s\n' "$*"; }
skipped=()
skip() { local n="$1"; shift; printf '\n[dist lane] !!! SKIPPED (%s): %s\n\n' "$n" "$*" >&2; skipped+=("$n"); }
failed=()
check_failed() { local n="$1"; shift; say "FAILED ($n): $*"; failed+=("$n"); }

# ---------------------------------------------------------------- build the artifacts
bash ci/dist.sh
rc=$?
if [[ $rc -eq 3 ]]; then echo "!!! dist lane cannot run: ci/dist.sh cannot run here (see above)" >&2; exit 3; fi
[[ $rc -eq 0 ]] || { say "FAILED: ci/dist.sh"; exit 1; }
(cd target/dist && sha256sum --quiet -c SHA256SUMS) || { say "FAILED: target/dist/SHA256SUMS does not verify"; exit 1; }
say "SHA256SUMS verifies"

VERSION=$(sed -n 's/^Version: //p' target/dist/appfunctions-*/lib/pkgconfig/appfunctions.pc)
PREFIX=$(echo "$REPO"/target/dist/appfunctions-"$VERSION"-*-linux-gnu)
[[ -d "$PREFIX" ]] || { say "FAILED: no C prefix in target/dist"; exit 1; }
W=$(mktemp -d /tmp/af-dist-lane.XXXXXX)
trap 'rm -rf "$W"' EXIT

# ---------------------------------------------------------------- 0. the build tools' command
# bin/appfunctions exports a bundle as a build step would: a tiny bundle in, an MCP tool out
if out=$(printf '%s' '{"functions":[{"id":"ping","description":"Answers","parameters":[]}]}' \
          | env -u LD_LIBRARY_PATH "$PREFIX/bin/appfunctions" export --bundle - --format mcp 2>&1) \
   && grep -q '"name":"ping"' <<<"$out"; then
  say "bin/appfunctions: exports a bundle from the prefix ($(env -u LD_LIBRARY_PATH "$PREFIX/bin/appfunctions" --version))"
else
  echo "$out"
  check_failed "cli" "bin/appfunctions export --bundle - --format mcp from the prefix"
fi

# ---------------------------------------------------------------- 1. C through pkg-config
CC="${CC:-cc}"
if command -v pkg-config >/dev/null && command -v "$CC" >/dev/null; then
  export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
  say "C through pkg-config: $CC hello.c \$(pkg-config --cflags --libs appfunctions), rpath \$(pkg-config --variable=libdir appfunctions)"
  if ! "$CC" -std=c99 -Wall -Wextra -Werror ci/dist/hello.c -DAF_EXPECTED_VERSION="\"$VERSION\"" \
       $(pkg-config --cflags --libs appfunctions) -Wl,-rpath,"$(pkg-config --variable=libdir appfunctions)" \
       -o "$W/hello-pc"; then
    check_failed "c-pkg-config" "compiling and linking ci/dist/hello.c through pkg-config"
  elif ! env -u LD_LIBRARY_PATH "$W/hello-pc"; then
    check_failed "c-pkg-config" "the C program built through pkg-config did not run as expected"
  elif ! readelf -dW "$W/hello-pc" | grep -q 'NEEDED.*\[libappfunctions\.so\.1\]'; then
    check_failed "c-pkg-config" "the program does not record NEEDED libappfunctions.so.1 (it has: $(readelf -dW "$W/hello-pc" | sed -n 's/.*NEEDED.*\[\(libappfunctions[^]]*\)\].*/\1/p'))"
  else
    say "C through pkg-config: passed (NEEDED libappfunctions.so.1)"
  fi
  unset PKG_CONFIG_PATH
  # the README's own lines: its C program (the ```c block with main) built and run with the
  # pkg-config block under <!-- dist-lane: c-pkg-config -->, in a folder holding the prefix
  # under the name the README uses
  R="$W/readme-c"; mkdir -p "$R"
  awk '/^```c[[:space:]]*$/ {n++; inb = 1; next} /^```/ {inb = 0} inb {print > (dir "/block" n ".c")}' dir="$R" README.md
  main=$(grep -l 'int main' "$R"/block*.c 2>/dev/null | head -1)
  awk '/<!-- dist-lane: c-pkg-config -->/ {on = 1; next} on && /^```sh/ {inb = 1; next} inb && /^```/ {exit} inb' README.md >"$R/build.sh"
  prefix_name=$(grep -oE 'appfunctions-[0-9.]+-[a-z0-9_]+-linux-gnu' "$R/build.sh" | head -1)
  if [[ -z "$main" || ! -s "$R/build.sh" || -z "$prefix_name" ]]; then
    check_failed "c-readme" "README.md has no C program with main(), or no pkg-config block naming the prefix after <!-- dist-lane: c-pkg-config -->"
  else
    cp "$main" "$R/example.c"
    ln -s "$PREFIX" "$R/$prefix_name"
    say "C: the README's program built and run with its pkg-config lines"
    if out=$(cd "$R" && env -u LD_LIBRARY_PATH -u PKG_CONFIG_PATH CC="$CC" bash -e build.sh 2>&1) \
       && grep -q '"status":"success"' <<<"$out"; then
      sed 's/^/[dist lane]   | /' <<<"$out"
      say "C: the README's pkg-config lines passed"
    else
      echo "$out"
      check_failed "c-readme" "the README's C program built with its pkg-config lines"
    fi
  fi
else
  skip "c-pkg-config" "no pkg-config or no C compiler ($CC)"
fi

# ---------------------------------------------------------------- 2. C and C++ through CMake
if command -v cmake >/dev/null && command -v "${CXX:-c++}" >/dev/null; then
  say "C/C++ through CMake: find_package(appfunctions 0.1 CONFIG), shared, static and C++"
  if cmake -S ci/dist/cmake -B "$W/cmake" -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_BUILD_TYPE=Release >"$W/cmake.log" 2>&1 \
     && cmake --build "$W/cmake" >>"$W/cmake.log" 2>&1; then
    grep -- '-- appfunctions' "$W/cmake.log" | sed 's/^/[dist lane]   /'
    ok=1
    for exe in hello_shared hello_static hello_cxx; do env -u LD_LIBRARY_PATH "$W/cmake/$exe" || ok=0; done
    if readelf -dW "$W/cmake/hello_static" | grep -q 'libappfunctions'; then
      say "hello_static depends on a libappfunctions shared library: the static target is not static"; ok=0
    fi
    if [[ $ok == 1 ]]; then say "C/C++ through CMake: passed"; else check_failed "cmake" "a program built through CMake"; fi
  else
    cat "$W/cmake.log"
    check_failed "cmake" "configuring or building the CMake project"
  fi
else
  skip "cmake" "no cmake or no C++ compiler"
fi

# ---------------------------------------------------------------- 3. Maven: the installed Kotlin artifact
JAR="target/dist/kotlin/appfunctions-kotlin-$VERSION.jar"
POM="target/dist/kotlin/appfunctions-kotlin-$VERSION.pom"
if command -v mvn >/dev/null; then
  M2="$W/m2"; mkdir -p "$M2"
  MVN=(mvn -B -q -Dstyle.color=never "-Dmaven.repo.local=$M2")
  if ! af_reachable maven_central https://repo.maven.apache.org/maven2/; then
    # seeded offline: the copy of what the Kotlin build needs, never the user's ~/.m2
    cp -r "$AF_SHARED/m2/." "$M2/" 2>/dev/null || { skip "maven" "Maven Central is unreachable and there is no copy at $AF_SHARED/m2"; M2=""; }
    MVN+=(-o)
  fi
  if [[ -n "$M2" ]]; then
    rm -rf "$M2/dev/appfunctions"
    say "Maven: install:install-file $JAR into a throwaway local repository"
    if "${MVN[@]}" org.apache.maven.plugins:maven-install-plugin:3.2.0:install-file "-Dfile=$JAR" "-DpomFile=$POM" >"$W/mvn.log" 2>&1; then
      # the consumer's pom.xml is the Kotlin README's, as printed (<!-- dist-lane: kotlin-pom -->)
      mkdir -p "$W/consumer/src/main/kotlin"
      awk '/<!-- dist-lane: kotlin-pom -->/ {on = 1; next} on && /^```xml/ {inb = 1; next} inb && /^```/ {exit} inb' \
        bindings/kotlin/README.md >"$W/consumer/pom.xml"
      grep -q "<version>$VERSION</version>" "$W/consumer/pom.xml" \
        || check_failed "maven" "the Kotlin README's pom.xml (after <!-- dist-lane: kotlin-pom -->) does not depend on version $VERSION"
      awk '/<!-- dist-lane: kotlin-example -->/ {on = 1; next} on && /^```kotlin/ {inb = 1; next} inb && /^```/ {exit} inb' \
        bindings/kotlin/README.md >"$W/consumer/src/main/kotlin/Main.kt"
      [[ -s "$W/consumer/src/main/kotlin/Main.kt" ]] || say "the Kotlin README has no example after '<!-- dist-lane: kotlin-example -->'"
      say "Maven: the Kotlin README's pom.xml and first program, compiled against dev.appfunctions:appfunctions-kotlin:$VERSION and run"
      if (cd "$W/consumer" && env -u LD_LIBRARY_PATH "${MVN[@]}" compile exec:exec@run) >"$W/consumer.log" 2>&1 \
         && sed 's/\x1b\[[0-9;]*m//g' "$W/consumer.log" | grep -qx 'Success: "Hello, Ada!" (Greeted Ada.)'; then
        sed 's/\x1b\[[0-9;]*m//g' "$W/consumer.log" | grep '^Success' | sed 's/^/[dist lane]   /'
        # the artifact brings no JNA to its consumers (the binding crosses JNI through its own library)
        ! grep -q 'net.java.dev.jna' "$POM" \
          || check_failed "maven" "$POM depends on JNA"
        say "Maven: passed (the native library and the binding's JNI library came out of the jar)"
      else
        sed 's/\x1b\[[0-9;]*m//g' "$W/consumer.log" | tail -40
        check_failed "maven" "the Maven project depending on the installed Kotlin artifact"
      fi
    else
      sed 's/\x1b\[[0-9;]*m//g' "$W/mvn.log" | tail -20
      check_failed "maven" "installing the Kotlin jar into the throwaway repository"
    fi
  fi
else
  skip "maven" "no mvn on PATH"
fi

# ---------------------------------------------------------------- 4. Swift: the dist package
run_swift() { # run_swift NAME PACKAGE_DIR [TEST ARGS]: swift test through ci/lanes/swift.sh against the release library
  local name="$1" pkg="$2" rc
  SWIFT_TEST_ARGS="${3:-}" SWIFT_LANE_BUILD_NATIVE=0 bash ci/lanes/swift.sh "$pkg" "$PREFIX/lib" >"$W/$name.log" 2>&1
  rc=$?
  case $rc in
    0) grep -E '^XCTest:' "$W/$name.log" | sed 's/^/[dist lane]   /' ;;
    3) grep -E 'cannot run' "$W/$name.log" | head -3 >&2 ;;
    *) tail -40 "$W/$name.log" ;;
  esac
  return $rc
}
# The package's scenario and MCP tests: they show the artifact works. The lifetime tests
# (timing windows on user-data release) and the benchmark run on the same sources in the
# swift lane.
say "Swift: the dist package's scenario and MCP tests against the stripped library (ci/lanes/swift.sh)"
run_swift swift-package target/dist/swift/AppFunctions "--filter ScenarioTests|MCPTests"
case $? in
  0) say "Swift: the package passed"
     CHECK="$REPO/target/dist-build/swift-check"        # a fixed path: the lane's build cache is per folder
     rm -rf "$CHECK/Sources" "$CHECK/Tests" && mkdir -p "$CHECK/Sources/ReadmeExample"
     cp -r ci/dist/swift/Package.swift ci/dist/swift/Tests "$CHECK/"
     awk '/<!-- dist-lane: swift-example -->/ {on = 1; next} on && /^```swift/ {inb = 1; next} inb && /^```/ {exit} inb' \
       bindings/swift/README.md >"$CHECK/Sources/ReadmeExample/main.swift"
     say "Swift: a package depending on it by path runs the Swift README's first program"
     if run_swift swift-readme "$CHECK"; then say "Swift: the README's program passed"
     else check_failed "swift" "the Swift README's first program, built against the dist package"; fi ;;
  3) skip "swift" "the Swift toolchain cannot run here (see the line above)" ;;
  *) check_failed "swift" "the dist Swift package's tests" ;;
esac

# ---------------------------------------------------------------- 5. .NET: the nupkg from a local feed
if compgen -G "target/dist/dotnet/AppFunctions.$VERSION.nupkg" >/dev/null; then
  say ".NET: the README's first program as printed, the AppFunctions.AspNetCore README's web host as printed, then a host referencing AppFunctions and AppFunctions.Extensions.AI $VERSION from a local feed (target/dist/dotnet)"
  bash ci/dist/dotnet/check.sh "$REPO/target/dist/dotnet" "$VERSION" "$W/dotnet" 2>&1 | sed 's/^/[dist lane]   | /'
  case ${PIPESTATUS[0]} in
    0) say ".NET: passed (the generator, the native library and the ASP.NET Core endpoints came from the nupkgs)" ;;
    3) skip "dotnet" "no dotnet SDK to build the .NET project" ;;
    *) check_failed "dotnet" "the .NET project referencing the nupkg" ;;
  esac
elif [[ ! -d bindings/dotnet ]]; then
  skip "dotnet" "the .NET check: bindings/dotnet does not exist, so there is no nupkg to reference from a local feed"
else
  skip "dotnet" "the .NET check: ci/dist.sh made no nupkg (no dotnet SDK on PATH; see its output)"
fi

echo
[[ ${#skipped[@]} -eq 0 ]] || say "!!! skipped: ${skipped[*]} (see the SKIPPED lines above)"
if [[ ${#failed[@]} -gt 0 ]]; then say "FAILED: ${failed[*]}"; exit 1; fi
say "passed: the artifacts in target/dist were built, checked and consumed"
