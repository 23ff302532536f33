#!/usr/bin/env bash
# .NET lane: the native library (release), the demo and the `appfunctions` tool (the MAUI
# build step's exports), then the .NET binding in
# bindings/dotnet: restore, build (warnings are errors; the MAUI test app's build writes its
# platform files), `dotnet format` check, xunit tests,
# a NativeAOT publish of the sample (zero trimming/AOT warnings) and a run of it, the same with
# the core linked statically (tests/AppFunctions.StaticLink: its call, its dynamic section, the
# loader's route, the build error without an archive), and
# `dotnet pack` with the stripped linux-x64 library.
#   exit 0  passed
#   exit 1  a build, test, publish or pack step failed
#   exit 3  the lane cannot run here (no .NET 10 SDK, crates cannot be resolved)
# Env: REPO (default: this script's repo root). Output: target/dotnet/ (aot/, nupkg/, logs).
set -euo pipefail

REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
BINDING="$REPO/bindings/dotnet"
OUT="$REPO/target/dotnet"
source "$REPO/ci/env.sh"

say() { printf '[dotnet lane] %s\n' "$*"; }
cannot_run() {
  printf '\n[dotnet lane] !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n' >&2
  printf '[dotnet lane] !!! THE DOTNET LANE CANNOT RUN: %s\n' "$*" >&2
  printf '[dotnet lane] !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\n' >&2
  exit 3
}
fail() { say "FAILED: $*"; exit 1; }

# --- the .NET SDK ----------------------------------------------------------------
command -v dotnet >/dev/null 2>&1 || cannot_run "no .NET SDK: 'dotnet' is not on PATH (install the .NET 10 SDK)"
SDK="$(dotnet --version 2>/dev/null || true)"
[[ "${SDK%%.*}" =~ ^[0-9]+$ && "${SDK%%.*}" -ge 10 ]] || cannot_run "the .NET SDK is '${SDK:-unknown}', the binding needs 10 or newer"
say "dotnet SDK $SDK"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 DOTNET_CLI_WORKLOAD_UPDATE_NOTIFY_DISABLE=1

# --- native library and the demo (MCP test) --------------------------------------
af_cargo_setup || cannot_run "crates cannot be resolved here"
say "cargo build --release --lib --example demo --bin appfunctions (in $REPO)"
(cd "$REPO" && cargo build --release --lib --example demo --bin appfunctions) || fail "cargo build --release"
LIB="$REPO/target/release/libappfunctions.so"
[[ -f "$LIB" ]] || fail "$LIB was not built"
mkdir -p "$OUT/native"
cp "$LIB" "$OUT/native/libappfunctions.so"
strip --strip-unneeded "$OUT/native/libappfunctions.so" || fail "strip"
cp "$REPO/target/release/appfunctions" "$OUT/native/appfunctions"
strip --strip-unneeded "$OUT/native/appfunctions" || fail "strip appfunctions"
say "native library: $(du -h "$LIB" | cut -f1) built, $(du -h "$OUT/native/libappfunctions.so" | cut -f1) stripped for the package"

cd "$BINDING"
say "dotnet restore"
dotnet restore AppFunctions.sln || fail "dotnet restore (is the NuGet feed in nuget.config reachable?)"
say "dotnet build -c Release (warnings are errors)"
dotnet build AppFunctions.sln -c Release --no-restore -v q -clp:NoSummary 2>&1 | tee "$OUT/build.log" | grep -E "warning|error" || true
[[ ${PIPESTATUS[0]} == 0 ]] || fail "dotnet build"
say "dotnet format --verify-no-changes"
# format loads the projects in Debug, where the generator must exist for the tests to compile
dotnet build src/AppFunctions.Generators -c Debug --no-restore -v q -clp:NoSummary >/dev/null || fail "building the generator (Debug) for dotnet format"
dotnet format AppFunctions.sln --verify-no-changes --no-restore 2>&1 | grep -v "^Warnings were encountered" || true
dotnet format AppFunctions.sln --verify-no-changes --no-restore >/dev/null 2>&1 || fail "dotnet format: run 'dotnet format bindings/dotnet/AppFunctions.sln'"

say "dotnet test -c Release"
set +e
dotnet test AppFunctions.sln -c Release --no-build 2>&1 | tee "$OUT/test.log"
TEST_RC=${PIPESTATUS[0]}
set -e
PASSED=$(grep -oE 'Passed: +[0-9]+' "$OUT/test.log" | awk '{ n += $2 } END { print n + 0 }')
FAILED=$(grep -oE 'Failed: +[0-9]+' "$OUT/test.log" | awk '{ n += $2 } END { print n + 0 }')
echo "dotnet: ${PASSED:-0} passed, ${FAILED:-0} failed"
[[ $TEST_RC == 0 && "${PASSED:-0}" -gt 0 ]] || fail "dotnet test"

say "NativeAOT publish of the sample (linux-x64)"
rm -rf "$OUT/aot"
dotnet publish samples/AppFunctions.Sample -c Release -r linux-x64 -o "$OUT/aot" 2>&1 | tee "$OUT/publish.log"
[[ ${PIPESTATUS[0]} == 0 ]] || fail "dotnet publish (NativeAOT)"
WARNINGS=$(grep -cE ": warning (IL|CS|CA)[0-9]+" "$OUT/publish.log" || true)
[[ "$WARNINGS" == 0 ]] || fail "the NativeAOT publish printed $WARNINGS trimming/AOT warning(s)"
say "0 trimming/AOT warnings; running the published sample"
cp "$OUT/native/libappfunctions.so" "$OUT/aot/"
"$OUT/aot/AppFunctions.Sample" || fail "the NativeAOT sample"

# The core linked into the executable (AppFunctionsLinkStatic=true: buildTransitive/AppFunctions.targets
# adds DirectPInvoke, the archive, its system libraries and the loader's feature switch)
say "NativeAOT publish with the core linked statically (tests/AppFunctions.StaticLink, target/release/libappfunctions.a)"
rm -rf "$OUT/aot-static"
dotnet publish tests/AppFunctions.StaticLink -c Release -r linux-x64 -o "$OUT/aot-static" \
  "-p:AppFunctionsStaticLibrary=$REPO/target/release/libappfunctions.a" 2>&1 | tee "$OUT/publish-static.log"
[[ ${PIPESTATUS[0]} == 0 ]] || fail "dotnet publish (NativeAOT, AppFunctionsLinkStatic=true)"
WARNINGS=$(grep -cE ": warning (IL|CS|CA)[0-9]+" "$OUT/publish-static.log" || true)
[[ "$WARNINGS" == 0 ]] || fail "the statically linked NativeAOT publish printed $WARNINGS trimming/AOT warning(s)"
STATIC_EXE="$OUT/aot-static/AppFunctions.StaticLink"
readelf -d "$STATIC_EXE" | grep NEEDED
if readelf -d "$STATIC_EXE" | grep -q 'NEEDED.*appfunctions'; then
  fail "the statically linked executable still needs a dynamic libappfunctions (readelf -d above)"
fi
[[ -z "$(find "$OUT/aot-static" -name 'libappfunctions.so*')" ]] || fail "the statically linked publish put a libappfunctions.so beside the executable"
A=$((RANDOM % 1000)); B=$((RANDOM % 1000))
# from another directory, with no library path and a library variable naming nothing: a resolver
# or any probing would fail the call
LINE=$(cd / && env -u LD_LIBRARY_PATH APPFUNCTIONS_NATIVE_LIBRARY=/nonexistent/libappfunctions.so "$STATIC_EXE" "$A" "$B") \
  || fail "the statically linked NativeAOT program ($STATIC_EXE $A $B)"
echo "$LINE"
[[ "$LINE" == *"\"status\":\"success\",\"result\":$((A + B)),"* ]] || fail "the statically linked program's add($A, $B) is not $((A + B))"
[[ "$LINE" == *"resolver=none"* ]] || fail "the statically linked program's loader installed its resolver"
[[ "$LINE" == *"switch=True"* ]] || fail "the statically linked program runs without the AppFunctions.Interop.LinkedStatically switch"
say "linked statically: no NEEDED libappfunctions, add($A, $B) = $((A + B)), no resolver; a publish with no archive must stop with the path it looked for"
set +e
dotnet publish tests/AppFunctions.StaticLink -c Release -r linux-x64 -o "$OUT/aot-static-missing" -p:AppFunctionsStaticLibrary= >"$OUT/publish-static-missing.log" 2>&1
MISSING_RC=$?
set -e
[[ $MISSING_RC != 0 ]] || fail "a publish with AppFunctionsLinkStatic=true and no archive succeeded"
grep -q "carries no static library for linux-x64: '.*/runtimes/linux-x64/native/libappfunctions.a' does not exist" "$OUT/publish-static-missing.log" \
  || fail "a publish with no archive did not name the path it looked for (log: $OUT/publish-static-missing.log)"

say "dotnet pack"
rm -rf "$OUT/nupkg"
dotnet pack src/AppFunctions -c Release --no-build -o "$OUT/nupkg" -p:AppFunctionsPackNative="$OUT/native/libappfunctions.so" \
  -p:AppFunctionsPackTool="$OUT/native/appfunctions" || fail "dotnet pack"
PKG="$(ls "$OUT"/nupkg/AppFunctions.[0-9]*.nupkg | head -1)"
python3 -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$PKG" > "$OUT/nupkg/contents.txt"
for entry in runtimes/linux-x64/native/libappfunctions.so analyzers/dotnet/cs/AppFunctions.Generators.dll lib/net8.0/AppFunctions.dll lib/net10.0/AppFunctions.dll README.md \
    buildTransitive/AppFunctions.targets tasks/netstandard2.0/AppFunctions.Build.dll tools/linux-x64/appfunctions \
    android/AppFunctionsService.cs android/AppFunctionsGenericDocument.cs android/AppFunctionsActivityTracker.cs swift/AppFunctionsDotNet.swift; do
  grep -qx "$entry" "$OUT/nupkg/contents.txt" || fail "the package lacks $entry"
done
# the core package depends only on what seed 000's API needs (the AI integration is its own package)
python3 - "$PKG" <<'PY' || fail "the AppFunctions package's dependencies"
import re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
nuspec = z.read(next(n for n in z.namelist() if n.endswith(".nuspec"))).decode()
deps = sorted(set(re.findall(r'<dependency id="([^"]+)"', nuspec)))
allowed = {"Microsoft.Extensions.DependencyInjection.Abstractions", "Microsoft.Extensions.Logging.Abstractions"}
extra = [d for d in deps if d not in allowed]
print("[dotnet lane] AppFunctions depends on: " + ", ".join(deps))
if extra:
    sys.exit("[dotnet lane] the AppFunctions package depends on " + ", ".join(extra) + " (only the seed's API needs belong there)")
PY
say "package: $PKG ($(du -h "$PKG" | cut -f1))"
dotnet pack src/AppFunctions.Extensions.AI -c Release --no-build -o "$OUT/nupkg" || fail "dotnet pack src/AppFunctions.Extensions.AI"
AIPKG="$(ls "$OUT"/nupkg/AppFunctions.Extensions.AI.*.nupkg | head -1)"
python3 - "$AIPKG" <<'PY' || fail "the AppFunctions.Extensions.AI package"
import re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = set(z.namelist())
for entry in ("lib/net8.0/AppFunctions.Extensions.AI.dll", "lib/net10.0/AppFunctions.Extensions.AI.dll", "README.md"):
    if entry not in names:
        sys.exit(f"[dotnet lane] the AI package lacks {entry}")
nuspec = z.read(next(n for n in names if n.endswith(".nuspec"))).decode()
deps = set(re.findall(r'<dependency id="([^"]+)"', nuspec))
for need in ("AppFunctions", "Microsoft.Extensions.AI"):
    if need not in deps:
        sys.exit(f"[dotnet lane] the AI package does not depend on {need}")
PY
say "package: $AIPKG ($(du -h "$AIPKG" | cut -f1))"
dotnet pack src/AppFunctions.AspNetCore -c Release --no-build -o "$OUT/nupkg" || fail "dotnet pack src/AppFunctions.AspNetCore"
WEBPKG="$(ls "$OUT"/nupkg/AppFunctions.AspNetCore.*.nupkg | head -1)"
python3 - "$WEBPKG" <<'PY' || fail "the AppFunctions.AspNetCore package"
import re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = set(z.namelist())
for entry in ("lib/net10.0/AppFunctions.AspNetCore.dll", "lib/net10.0/AppFunctions.AspNetCore.xml", "README.md"):
    if entry not in names:
        sys.exit(f"[dotnet lane] the ASP.NET Core package lacks {entry}")
if b"MapAppFunctionsMcp" not in z.read("README.md"):
    sys.exit("[dotnet lane] the ASP.NET Core package carries a README that is not its own")
nuspec = z.read(next(n for n in names if n.endswith(".nuspec"))).decode()
deps = set(re.findall(r'<dependency id="([^"]+)"', nuspec))
if deps != {"AppFunctions"}:
    sys.exit(f"[dotnet lane] the ASP.NET Core package depends on {sorted(deps)}, expected AppFunctions only")
if 'frameworkReference name="Microsoft.AspNetCore.App"' not in nuspec:
    sys.exit("[dotnet lane] the ASP.NET Core package does not reference the Microsoft.AspNetCore.App framework")
PY
say "package: $WEBPKG ($(du -h "$WEBPKG" | cut -f1)); ci/dist/dotnet/check.sh (dist lane) runs a web host built from it"
say "passed"
