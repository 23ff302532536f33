#!/usr/bin/env bash
# The .NET cold start (issue 30), called by ci/bench.sh's coldstart_bench with REPO, OUT,
# SAMPLES, DEMO and LIB set: bindings/dotnet/benchmarks/AppFunctions.ColdStart (the demo's app
# of 50 functions with AddAppFunctions(): library load and ABI check, registration, the first
# call) beside AppFunctions.ColdStart.Floor (the same app and program without appfunctions),
# each built for the JIT (dotnet build, the apphost), for ReadyToRun (dotnet publish
# -p:PublishReadyToRun=true, framework-dependent: CoreCLR's form of the
# precompiled startup Android's release builds ship) and for
# NativeAOT (dotnet publish), the full program with LIB (the dist library) beside it; and the full
# program published with NativeAOT and AppFunctionsLinkStatic=true, the dist build's static archive
# (LIB's libappfunctions.a) linked into the executable with direct calls, as on iOS, beside the same
# NativeAOT floor, in the same samples as the other NativeAOT program (coldstart.py --also);
# and the dynamic NativeAOT program again with --detail (its load in three steps: the
# assembly object NativeAOT's P/Invoke binding asks for, the dlopen, the rest), in the same samples.
# Writes $OUT/coldstart_dotnet_jit.json, $OUT/coldstart_dotnet_r2r.json and
# $OUT/coldstart_dotnet_aot.json (both NativeAOT programs) (ci/bench/coldstart.py --binding);
# says loudly what it cannot run.
set -euo pipefail
: "${REPO:?}" "${OUT:?}" "${SAMPLES:?}" "${DEMO:?}" "${LIB:?}"
loud() {
  printf '\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n' >&2
  printf '!!! the .NET cold start is NOT measured: %s\n' "$*" >&2
  printf '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\n' >&2
}
if ! command -v dotnet >/dev/null 2>&1; then
  loud "no .NET SDK ('dotnet' is not on PATH)"
  exit 0
fi
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
BENCH="$REPO/bindings/dotnet/benchmarks"
W="$OUT/dotnet-coldstart"
rm -rf "$W"
build() { # project, output dir, publish with NativeAOT (1), the same with the core linked statically
  # (static), build for the JIT (0) or publish ReadyToRun (r2r)
  local log="$W/$(basename "$2").log"
  mkdir -p "$W"
  # LIB (the dist library, for this script) is also csc's reference search path: not passed on
  if [[ $3 == 1 ]]; then
    env -u LIB dotnet publish "$BENCH/$1" -c Release -r linux-x64 -o "$2" >"$log" 2>&1
  elif [[ $3 == static ]]; then
    env -u LIB dotnet publish "$BENCH/$1" -c Release -r linux-x64 -p:AppFunctionsLinkStatic=true \
      "-p:AppFunctionsStaticLibrary=$STATIC" -o "$2" >"$log" 2>&1
  elif [[ $3 == r2r ]]; then
    # crossgen2 (Microsoft.NETCore.App.Crossgen2.linux-x64, restored from NuGet) compiles the
    # program, appfunctions and the packages it uses; the shared framework is ReadyToRun already
    env -u LIB dotnet publish "$BENCH/$1" -c Release -r linux-x64 --self-contained false -p:PublishAot=false \
      -p:PublishReadyToRun=true -o "$2" >"$log" 2>&1
  else
    env -u LIB dotnet build "$BENCH/$1" -c Release -o "$2" >"$log" 2>&1
  fi || { tail -20 "$log" >&2; return 1; }
}
WHAT_JIT="The demo's app in C# (bindings/dotnet/benchmarks/AppFunctions.ColdStart: its metadata schema, toolkit, types, the order entity and its functions, and numbered copies up to 50 functions, C# methods with the generator's attributes) started by its apphost, the JIT compiling as it goes (no ReadyToRun): \`load\` is the library loaded and its ABI checked (the first use of appfunctions), \`container\` the services with \`AddAppFunctions()\` and the container built, \`register\` the dispatcher resolved from it and made (every registration; the registration part is \`container\` and \`register\`), \`call\` the first outcome (\`await Execute\` of create_order, its handler answering an \`Order\`). The floor (AppFunctions.ColdStart.Floor) is the same app and program without appfunctions: its services in a host, the function's class resolved from a scope and create_order called directly; its \`container\` step is the same services without \`AddAppFunctions()\` and the container built, which an app pays with or without appfunctions."
WHAT_R2R="The same two programs published ReadyToRun (\`dotnet publish -p:PublishReadyToRun=true\`, linux-x64, framework-dependent: crossgen2 compiles the program, appfunctions and the DI package ahead of time, the shared framework is ReadyToRun already: CoreCLR's form of what Android's release builds ship, whose startup is precompiled by profiled AOT; iOS is fully AOT, as NativeAOT below), the JIT compiling only what ReadyToRun cannot hold (generic instantiations over other assemblies' value types, dynamic methods), the full one with the dist library beside it."
WHAT_AOT="The same two programs compiled with NativeAOT (\`dotnet publish\`, linux-x64), the full one with the dist library beside it."
WHAT_AOT_DETAIL="In the same samples as the NativeAOT program above, beside the same floor: the same program with \`--detail\`, its load in three steps: \`assembly\` the binding's assembly object (\`typeof(AppFunctionDispatcher).Assembly\`: NativeAOT's binding of the first P/Invoke into any native library asks for the calling assembly's, \`InteropHelpers.FixupModuleCell\`, the reflection runtime's first use in this program), \`dlopen\` the library file loaded by its path (\`NativeLibrary.Load\`: the C program's \`dlopen\`), \`load\` then the binding's resolver, the P/Invoke binding and the ABI check."
WHAT_AOT_STATIC="In the same samples as the NativeAOT program above, beside the same floor: the full program published with NativeAOT and \`AppFunctionsLinkStatic=true\` (the package's targets: the dist build's \`libappfunctions.a\` linked into the executable, \`DirectPInvoke\` of the binding's calls, the loader's feature switch on: no resolver, no probing; how an iOS app links the core): \`load\` is the ABI check alone, the library being part of the executable."
measure() { # label, full exe, floor exe, what [--also LABEL=EXE --also-what LABEL=TEXT ...]
  "$2" --check || { loud "$2 --check failed"; return 1; }
  python3 "$REPO/ci/bench/coldstart.py" --demo "$DEMO" --binding "$1" --full "$2" --floor "$3" \
    --out "$OUT/coldstart_$1.json" --samples "$SAMPLES" --lib "$LIB" --what "$4" "${@:5}" | grep -E "first_outcome_ms|floor_ms|_part_ms|vs_floor" || true
}
echo "-- .NET (JIT): dotnet build"
if build AppFunctions.ColdStart "$W/jit" 0 && build AppFunctions.ColdStart.Floor "$W/jit-floor" 0; then
  cp "$LIB" "$W/jit/libappfunctions.so"
  measure dotnet_jit "$W/jit/AppFunctions.ColdStart" "$W/jit-floor/AppFunctions.ColdStart.Floor" "$WHAT_JIT"
else
  loud "the JIT programs did not build (logs in $W)"
fi
echo "-- .NET (ReadyToRun): dotnet publish -p:PublishReadyToRun=true"
if build AppFunctions.ColdStart "$W/r2r" r2r && build AppFunctions.ColdStart.Floor "$W/r2r-floor" r2r; then
  cp "$LIB" "$W/r2r/libappfunctions.so"
  measure dotnet_r2r "$W/r2r/AppFunctions.ColdStart" "$W/r2r-floor/AppFunctions.ColdStart.Floor" "$WHAT_R2R"
else
  loud "the ReadyToRun programs did not publish (the Crossgen2 pack from NuGet? logs in $W)"
fi
echo "-- .NET (NativeAOT): dotnet publish, and with the core linked statically (-p:AppFunctionsLinkStatic=true)"
# The two NativeAOT programs run in the same samples beside one floor (coldstart.py --also), so
# that their ratios to it compare one moment's machine.
STATIC="${LIB%.so}.a"
if build AppFunctions.ColdStart "$W/aot" 1 && build AppFunctions.ColdStart.Floor "$W/aot-floor" 1; then
  cp "$LIB" "$W/aot/libappfunctions.so"
  also=()
  if [[ ! -f "$STATIC" ]]; then
    loud "no static archive beside the dist library ($STATIC): the statically linked NativeAOT program is not measured"
  elif ! build AppFunctions.ColdStart "$W/aot-static" static; then
    loud "the statically linked NativeAOT program did not publish (log: $W/aot-static.log)"
  elif readelf -d "$W/aot-static/AppFunctions.ColdStart" | grep -q 'NEEDED.*libappfunctions'; then
    loud "the statically linked program still needs libappfunctions.so (readelf -d)"
  elif ! "$W/aot-static/AppFunctions.ColdStart" --check; then
    loud "$W/aot-static/AppFunctions.ColdStart --check failed"
  else
    also=(--also "dotnet_aot_static=$W/aot-static/AppFunctions.ColdStart" --also-what "dotnet_aot_static=$WHAT_AOT_STATIC")
  fi
  also+=(--also "dotnet_aot_detail=$W/aot/AppFunctions.ColdStart --detail" --also-what "dotnet_aot_detail=$WHAT_AOT_DETAIL")
  measure dotnet_aot "$W/aot/AppFunctions.ColdStart" "$W/aot-floor/AppFunctions.ColdStart.Floor" "$WHAT_AOT" ${also[@]+"${also[@]}"}
else
  loud "the NativeAOT programs did not publish (the ILCompiler packages from NuGet? logs in $W): neither NativeAOT program is measured"
fi
