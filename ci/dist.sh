#!/usr/bin/env bash
# Builds the release artifacts for this machine into target/dist/ (docs/distribution.md):
# the stripped shared library (SONAME libappfunctions.so.1, at most 2.6 MB) and the static
# library with the header, a pkg-config file and a CMake package config; the Kotlin jar
# carrying the stripped library and its JNI shim; the Swift package with its header and XCFramework script;
# the .NET nupkgs (the .NET binding's pack step: AppFunctions, .Extensions.AI, .AspNetCore); SHA256SUMS of everything.
#
#   ci/dist.sh                          Linux x86_64 / aarch64 (this machine)
#   ci/dist.sh --target ios|macos|android
#                                       prints the commands a machine with those toolchains
#                                       runs, and exits 3: they cannot be built here
#
# Exit: 0 built and checked, 1 a build or a check failed, 2 usage, 3 cannot run here
# (a tool is missing, or a target this machine cannot build). AF_DIST_MAX_SO_BYTES
# overrides the size limit (2210000 bytes: 2,157,128 were reached on 2026-12-01 with every
# feature, the MCP HTTP server included, once the core matched patterns itself; docs/performance.md, "Size", says what each part
# costs: python3 ci/size.py).
#
# It also builds the phone builds' libraries for this machine (the cargo features
# phone-android and phone-ios with the dist-small profile: docs/distribution.md, "The phone
# builds") into target/dist-build/phone/, not shipped from here (a phone's library is built
# for its target, as printed by --target), checks each against its own budget and for the
# whole C ABI, and runs ci/dist/phone.c against each: AF_DIST_MAX_ANDROID_SO_BYTES (1590000:
# 1,541,256 reached on 2026-12-05, the unwinder linked in as Android links its own) and
# AF_DIST_MAX_IOS_SO_BYTES (1500000, issue 30's target: 1,484,520 reached), and the
# phone-android library with its relocations packed as Android links it,
# AF_DIST_MAX_ANDROID_PACKED_SO_BYTES (1500000, the target: 1,470,136 reached).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export REPO
cd "$REPO"

say() { printf '[dist] %s\n' "$*"; }
fail() { printf '[dist] FAILED: %s\n' "$*" >&2; exit 1; }
cannot() { printf '[dist] !!! cannot run here: %s\n' "$*" >&2; exit 3; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

# prints the fenced block between <!-- dist:NAME --> and <!-- /dist:NAME --> of the docs
doc_commands() {
  awk -v a="<!-- dist:$1 -->" -v b="<!-- /dist:$1 -->" \
    '$0 == a {on = 1; next} $0 == b {on = 0} on && !/^```/' docs/distribution.md
}

TARGET=host
while [[ $# -gt 0 ]]; do
  case "$1" in
    --target) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; TARGET="$2"; shift 2 ;;
    --target=*) TARGET="${1#--target=}"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "ci/dist.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
case "$TARGET" in
  host|linux) ;;
  ios|macos|apple)
    echo "[dist] $TARGET artifacts cannot be built on this machine: they need macOS with Xcode"
    echo "[dist] and rustup's Apple targets. On such a machine, in a checkout of the repository, run:"
    echo
    doc_commands apple
    echo
    echo "[dist] (docs/distribution.md, \"Swift\", explains each step.)"
    exit 3 ;;
  android)
    echo "[dist] Android artifacts cannot be built on this machine: they need the Android NDK,"
    echo "[dist] rustup's Android targets and cargo-ndk. On such a machine, in a checkout of the"
    echo "[dist] repository, after ci/dist.sh (for the Kotlin jar), run:"
    echo
    doc_commands android
    echo
    echo "[dist] (docs/distribution.md, \"Android: jniLibs and the AAR\", explains each step.)"
    exit 3 ;;
  *) echo "ci/dist.sh: unknown target '$TARGET' (host, ios, macos, android)" >&2; exit 2 ;;
esac

source "$REPO/ci/env.sh"
af_cargo_setup || cannot "crates cannot be resolved (no crates.io, no vendored copy)"
missing=()
for tool in cargo rustc readelf nm strip tar gzip sha256sum python3 unzip cmp java mvn gcc; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
[[ ${#missing[@]} -eq 0 ]] || cannot "missing tools: ${missing[*]}"
java_major=$(java -version 2>&1 | awk -F'"' '/version/ {split($2, v, "."); print (v[1] == "1" ? v[2] : v[1]); exit}')
[[ "${java_major:-0}" -ge 17 ]] || cannot "the Kotlin jar needs a JDK 17 or newer (java on PATH is ${java_major:-unknown})"

VERSION=$(cargo metadata --no-deps --format-version 1 --offline 2>/dev/null \
  | python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "appfunctions"))')
ABI=$(sed -n 's/^#define AF_ABI_VERSION \([0-9]*\).*/\1/p' include/appfunctions.h)
[[ -n "$VERSION" && -n "$ABI" ]] || fail "cannot read the version (Cargo.toml) or AF_ABI_VERSION (include/appfunctions.h)"
HOST=$(rustc -vV | sed -n 's/^host: //p')
case "$HOST" in
  x86_64-unknown-linux-gnu) PLATFORM=x86_64-linux-gnu; RES_PREFIX=linux-x86-64 ;;
  aarch64-unknown-linux-gnu) PLATFORM=aarch64-linux-gnu; RES_PREFIX=linux-aarch64 ;;
  *) cannot "ci/dist.sh builds on Linux x86_64 or aarch64 (this is $HOST); see docs/distribution.md" ;;
esac
SONAME="libappfunctions.so.$ABI"
MAX_BYTES="${AF_DIST_MAX_SO_BYTES:-2210000}"
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"
say "appfunctions $VERSION, C ABI $ABI, $HOST"

# ---------------------------------------------------------------- the native libraries
BUILD="$REPO/target/dist-build"      # not target/dist: cargo puts profile "dist" in <target-dir>/dist
# the header's declarations, comments removed first (they quote calls such as af_x(...))
declared=$(python3 -c 'import re,sys; t=re.sub(r"/\*.*?\*/|//[^\n]*", "", open(sys.argv[1]).read(), flags=re.S); print("\n".join(sorted(set(re.findall(r"\b(af_[a-z0-9_]+)\(", t)))))' include/appfunctions.h)

# check_library SO BUDGET WHAT: stripped, within its budget, the SONAME, only af_* exported
# and every function of the header among them (a build without a feature keeps the whole ABI)
check_library() {
  local so="$1" max="$2" what="$3" size sections found_soname exported others absent
  size=$(stat -c %s "$so")
  printf '[dist] %s, stripped: %d bytes (%s MB); limit %d bytes\n' "$what" "$size" \
    "$(awk -v s="$size" 'BEGIN {printf "%.2f", s / 1000000}')" "$max"
  [[ "$size" -le "$max" ]] \
    || fail "$what is $size bytes, over the budget of $max (what each part costs: python3 ci/size.py; raise the budget only in a commit that says why)"
  sections=$(readelf -SW "$so")
  ! grep -qE '\.symtab|\.debug_' <<<"$sections" || fail "$what still has a symbol table or debug sections"
  found_soname=$(readelf -dW "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
  [[ "$found_soname" == "$SONAME" ]] \
    || fail "$what carries SONAME '${found_soname:-none}', expected '$SONAME' (set by build.rs)"
  exported=$(nm -D --defined-only "$so" | awk '{print $NF}' | sed 's/@.*//' | sort -u)
  others=$(grep -v '^af_' <<<"$exported" || true)
  [[ -z "$others" ]] || fail "$what exports symbols other than af_*: $(head -5 <<<"$others" | tr '\n' ' ')..."
  absent=$(comm -23 <(echo "$declared") <(echo "$exported"))
  [[ -z "$absent" ]] || fail "functions the header declares but $what does not export: $(echo $absent)"
  say "$what: SONAME $SONAME; $(wc -l <<<"$exported") exported symbols, all af_*; every header function present"
}

# the phone builds first, with the dist-small profile (opt-level "z": Cargo.toml says why)
PHONE="$BUILD/phone"
mkdir -p "$PHONE"
for build in "android:phone-android:${AF_DIST_MAX_ANDROID_SO_BYTES:-1590000}" "ios:phone-ios:${AF_DIST_MAX_IOS_SO_BYTES:-1500000}"; do
  IFS=: read -r phone features max <<<"$build"
  say "cargo build --profile dist-small --lib --no-default-features --features $features (the $phone phone build, measured here)"
  CARGO_TARGET_DIR="$BUILD" cargo build --profile dist-small --lib --locked -q --no-default-features --features "$features" \
    || fail "cargo build --profile dist-small --no-default-features --features $features"
  install -m 755 "$BUILD/dist-small/libappfunctions.so" "$PHONE/libappfunctions-$phone.so"
  check_library "$PHONE/libappfunctions-$phone.so" "$max" "libappfunctions.so ($features)"
  # what a phone asks of it, through the header (ci/dist/phone.c): that build's code is
  # optimised as no other lane's is
  mkdir -p "$PHONE/$phone"
  install -m 755 "$BUILD/dist-small/libappfunctions.so" "$PHONE/$phone/$SONAME"
  gcc -std=c99 -Wall -Wextra -Werror -I include ci/dist/phone.c -L"$PHONE/$phone" -l:"$SONAME" \
    -Wl,-rpath,"$PHONE/$phone" -o "$PHONE/$phone/phone" || fail "ci/dist/phone.c does not build against the $phone phone library"
  "$PHONE/$phone/phone" "$phone" | sed 's/^/[dist] /' || fail "the $phone phone library failed ci/dist/phone.c"
done
# Android links its libraries with their relocations packed (APS2, which Android reads from
# API 23: the documented build passes it for --platform 26, docs/distribution.md), and so
# ships a smaller file than a glibc build of the same code: the phone-android library as
# Android links it, measured against issue 30's target of 1.5 MB. (It cannot be loaded here:
# glibc does not read APS2.)
say "cargo build --profile dist-small --target $HOST (phone-android, relocations packed as the Android build packs them)"
RUSTFLAGS="-C link-arg=-Wl,--pack-dyn-relocs=android" CARGO_TARGET_DIR="$BUILD" \
  cargo build --profile dist-small --lib --locked -q --target "$HOST" --no-default-features --features phone-android \
  || fail "cargo build --profile dist-small --target $HOST (packed relocations)"
install -m 755 "$BUILD/$HOST/dist-small/libappfunctions.so" "$PHONE/libappfunctions-android-packed.so"
check_library "$PHONE/libappfunctions-android-packed.so" "${AF_DIST_MAX_ANDROID_PACKED_SO_BYTES:-1500000}" \
  "libappfunctions.so (phone-android, relocations packed as on Android)"

say "cargo build --profile dist --lib --bin appfunctions (into target/dist-build)"
CARGO_TARGET_DIR="$BUILD" cargo build --profile dist --lib --bin appfunctions --locked -q || fail "cargo build --profile dist"
SO="$BUILD/dist/libappfunctions.so"
A="$BUILD/dist/libappfunctions.a"
[[ -f "$SO" && -f "$A" ]] || fail "cargo did not produce $SO and $A"
check_library "$SO" "$MAX_BYTES" "libappfunctions.so"

# std's system libraries, for static linking (what --print native-static-libs reports)
native_libs() {
  local d; d=$(mktemp -d)
  : >"$d/empty.rs"
  rustc --crate-type staticlib --crate-name probe --print native-static-libs -o "$d/libprobe.a" "$d/empty.rs" 2>&1 \
    | sed -n 's/.*native-static-libs: //p' | head -1
  rm -rf "$d"
}
STATIC_LIBS=$(native_libs)
[[ -n "$STATIC_LIBS" ]] || STATIC_LIBS="-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc"

# ---------------------------------------------------------------- C and C++: an install prefix
DIST="$REPO/target/dist"
rm -rf "$DIST"
NAME="appfunctions-$VERSION-$PLATFORM"
P="$DIST/$NAME"
mkdir -p "$P/bin" "$P/include" "$P/lib/pkgconfig" "$P/lib/cmake/appfunctions" "$P/share/appfunctions" "$P/share/doc/appfunctions"
# the build tools' command: exports from a descriptor bundle (docs/descriptors.md, "Bundles")
install -m 755 "$BUILD/dist/appfunctions" "$P/bin/appfunctions"
install -m 644 include/appfunctions.h "$P/include/"
install -m 644 include/appfunctions.descriptor.schema.json "$P/share/appfunctions/"
install -m 755 "$SO" "$P/lib/$SONAME"
ln -s "$SONAME" "$P/lib/libappfunctions.so"
install -m 644 "$A" "$P/lib/libappfunctions.a"
strip --strip-debug "$P/lib/libappfunctions.a"
install -m 644 README.md CHANGELOG.md LICENSE-MIT LICENSE-APACHE "$P/share/doc/appfunctions/"

cat >"$P/lib/pkgconfig/appfunctions.pc" <<EOF
# appfunctions $VERSION (C ABI $ABI). Relocatable: the prefix is found from this file.
prefix=\${pcfiledir}/../..
libdir=\${prefix}/lib
includedir=\${prefix}/include
abi_version=$ABI

Name: appfunctions
Description: One dispatch core behind a stable C ABI that lets an app offer its functions to assistants and agents
Version: $VERSION
Libs: -L\${libdir} -lappfunctions
Libs.private: $STATIC_LIBS
Cflags: -I\${includedir}
EOF

cmake_libs=$(for l in $STATIC_LIBS; do l=${l#-l}; [[ "$l" == c || "$l" == pthread ]] || printf '%s;' "$l"; done)
cat >"$P/lib/cmake/appfunctions/appfunctionsConfig.cmake" <<EOF
# appfunctions $VERSION (C ABI $ABI), generated by ci/dist.sh. Relocatable.
#   find_package(appfunctions $VERSION REQUIRED CONFIG)
# Imported targets:
#   appfunctions::appfunctions         the shared library ($SONAME)
#   appfunctions::appfunctions_static  the static library and the system libraries it needs
# Variables: appfunctions_VERSION, appfunctions_ABI_VERSION, appfunctions_INCLUDE_DIR
include(CMakeFindDependencyMacro)
find_dependency(Threads)
get_filename_component(_appfunctions_prefix "\${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(appfunctions_ABI_VERSION $ABI)
set(appfunctions_INCLUDE_DIR "\${_appfunctions_prefix}/include")
if(NOT TARGET appfunctions::appfunctions)
  add_library(appfunctions::appfunctions SHARED IMPORTED)
  set_target_properties(appfunctions::appfunctions PROPERTIES
    IMPORTED_LOCATION "\${_appfunctions_prefix}/lib/$SONAME"
    IMPORTED_SONAME "$SONAME"
    INTERFACE_INCLUDE_DIRECTORIES "\${_appfunctions_prefix}/include")
endif()
if(NOT TARGET appfunctions::appfunctions_static)
  add_library(appfunctions::appfunctions_static STATIC IMPORTED)
  set_target_properties(appfunctions::appfunctions_static PROPERTIES
    IMPORTED_LOCATION "\${_appfunctions_prefix}/lib/libappfunctions.a"
    IMPORTED_LINK_INTERFACE_LANGUAGES "C"
    INTERFACE_INCLUDE_DIRECTORIES "\${_appfunctions_prefix}/include"
    INTERFACE_LINK_LIBRARIES "Threads::Threads;${cmake_libs%;}")
endif()
unset(_appfunctions_prefix)
EOF

IFS=. read -r V_MAJOR V_MINOR _ <<<"$VERSION"
cat >"$P/lib/cmake/appfunctions/appfunctionsConfigVersion.cmake" <<EOF
# appfunctions $VERSION: compatible with a request of the same major version, and while the
# major version is 0, of the same minor version too (semantic versioning's rule for 0.x).
set(PACKAGE_VERSION "$VERSION")
set(PACKAGE_VERSION_COMPATIBLE TRUE)
if(PACKAGE_FIND_VERSION)
  if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION
     OR NOT PACKAGE_FIND_VERSION_MAJOR EQUAL $V_MAJOR
     OR ($V_MAJOR EQUAL 0 AND NOT PACKAGE_FIND_VERSION_MINOR EQUAL $V_MINOR))
    set(PACKAGE_VERSION_COMPATIBLE FALSE)
  elseif(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
if(NOT CMAKE_SIZEOF_VOID_P STREQUAL "8")
  set(PACKAGE_VERSION "\${PACKAGE_VERSION} (64-bit)")
  set(PACKAGE_VERSION_UNSUITABLE TRUE)
endif()
EOF

tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
  -C "$DIST" -cf - "$NAME" | gzip -n >"$DIST/$NAME.tar.gz"
say "C/C++: $NAME/ (header, $SONAME, libappfunctions.a, pkg-config, CMake) and $NAME.tar.gz"

# ---------------------------------------------------------------- Kotlin: the jar with the library
mapfile -t MAVEN_OFFLINE < <(af_maven_args)
KB="$BUILD/kotlin"
rm -rf "$KB" && mkdir -p "$KB/native"
cp -r bindings/kotlin/pom.xml bindings/kotlin/src "$KB/"
install -m 755 "$SO" "$KB/native/libappfunctions.so"     # the stripped one, under the name the binding loads
say "Kotlin: mvn -Pbundle-native package (native.resource.prefix=$RES_PREFIX)"
# jni: the binding's JNI library (src/main/c) compiled against the repository's header, beside the core
if ! (cd "$KB" && mvn -B -Dstyle.color=never "${MAVEN_OFFLINE[@]}" -Pbundle-native,jni -Dmaven.test.skip=true \
    "-Dnative.lib.dir=$KB/native" "-Dnative.resource.prefix=$RES_PREFIX" "-Djni.resource.prefix=$RES_PREFIX" \
    "-Daf.include.dir=$REPO/include" package) >"$KB/mvn.log" 2>&1; then
  grep -E 'ERROR|BUILD' "$KB/mvn.log" | head -30 >&2
  fail "mvn package of the Kotlin binding (log: $KB/mvn.log; an artifact missing from the offline Maven copy?)"
fi
JAR="$KB/target/appfunctions-kotlin-$VERSION.jar"
[[ -f "$JAR" ]] || fail "no $JAR (is bindings/kotlin/pom.xml at version $VERSION? ci/versions.sh)"
mkdir -p "$DIST/kotlin"
install -m 644 "$JAR" "$DIST/kotlin/"
install -m 644 bindings/kotlin/pom.xml "$DIST/kotlin/appfunctions-kotlin-$VERSION.pom"
unzip -p "$JAR" "$RES_PREFIX/libappfunctions.so" | cmp -s - "$SO" \
  || fail "the jar does not carry the stripped library at $RES_PREFIX/libappfunctions.so"
unzip -l "$JAR" "$RES_PREFIX/libappfunctions_jni.so" >/dev/null \
  || fail "the jar does not carry the JNI shim at $RES_PREFIX/libappfunctions_jni.so"
say "Kotlin: kotlin/appfunctions-kotlin-$VERSION.jar ($RES_PREFIX/libappfunctions.so is the stripped library, $RES_PREFIX/libappfunctions_jni.so the JNI shim) and its pom"

# ---------------------------------------------------------------- Swift: the package, self-contained
SW="$DIST/swift/AppFunctions"
mkdir -p "$SW"
# -L: the test targets link the golden files and the .NET glue (tests/apple.rs); the package gets their text
cp -rL bindings/swift/Package.swift bindings/swift/README.md bindings/swift/Sources bindings/swift/Tests bindings/swift/scripts "$SW/"
cp LICENSE-MIT LICENSE-APACHE "$SW/"
install -m 644 include/appfunctions.h "$SW/Sources/CAppFunctions/appfunctions.h"
cat >"$SW/Sources/CAppFunctions/module.modulemap" <<'EOF'
// The C ABI as a Clang module; the header is beside this file (copied by ci/dist.sh).
// The XCFramework (scripts/build-xcframework.sh) carries its own copy of this module.
module CAppFunctions [system] {
    header "appfunctions.h"
    link "appfunctions"
    export *
}
EOF
say "Swift: swift/AppFunctions/ (the header inside; scripts/build-xcframework.sh for Apple platforms)"

# ---------------------------------------------------------------- .NET: the nupkg
# the .NET binding's own pack step (bindings/dotnet/README.md, "Packaging"), given the
# stripped library
DOTNET_PROJECT=bindings/dotnet/src/AppFunctions
if [[ ! -d bindings/dotnet ]]; then
  say "!!! .NET: bindings/dotnet does not exist: no nupkg in this layout"
elif [[ ! -f "$DOTNET_PROJECT/AppFunctions.csproj" ]]; then
  fail ".NET: $DOTNET_PROJECT/AppFunctions.csproj, the packable project, is missing"
elif ! command -v dotnet >/dev/null 2>&1; then
  say "!!! .NET: no dotnet SDK on PATH: no nupkg in this layout"
else
  say ".NET: dotnet pack $DOTNET_PROJECT (AppFunctionsPackNative = the stripped library, AppFunctionsPackTool = the stripped appfunctions tool)"
  mkdir -p "$DIST/dotnet" "$BUILD/dotnet-tool"
  install -m 755 "$BUILD/dist/appfunctions" "$BUILD/dotnet-tool/appfunctions"
  strip "$BUILD/dotnet-tool/appfunctions"
  # (the trailing slash matters: SDK 10.0.401 passes an --output path ending in "/dotnet" to
  # MSBuild as a bare argument, "Only one project can be specified")
  if ! DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 dotnet pack "$DOTNET_PROJECT" -c Release --output "$DIST/dotnet/" \
      "-p:AppFunctionsPackNative=$SO" "-p:AppFunctionsPackTool=$BUILD/dotnet-tool/appfunctions" >"$BUILD/dotnet-pack.log" 2>&1; then
    grep -E "error|warning" "$BUILD/dotnet-pack.log" | head -20 >&2
    fail ".NET: dotnet pack (log: $BUILD/dotnet-pack.log)"
  fi
  NUPKG="$DIST/dotnet/AppFunctions.$VERSION.nupkg"
  [[ -f "$NUPKG" ]] || fail ".NET: no $NUPKG (is bindings/dotnet/Directory.Build.props at version $VERSION? ci/versions.sh)"
  unzip -p "$NUPKG" runtimes/linux-x64/native/libappfunctions.so | cmp -s - "$SO" \
    || fail ".NET: the nupkg does not carry the stripped library at runtimes/linux-x64/native/libappfunctions.so"
  for entry in buildTransitive/AppFunctions.targets tasks/netstandard2.0/AppFunctions.Build.dll tools/linux-x64/appfunctions \
      android/AppFunctionsService.cs swift/AppFunctionsDotNet.swift; do
    unzip -l "$NUPKG" "$entry" >/dev/null 2>&1 || fail ".NET: the nupkg lacks $entry (the MAUI build step and platform bridges)"
  done
  say ".NET: dotnet/AppFunctions.$VERSION.nupkg (runtimes/linux-x64/native/libappfunctions.so is the stripped library; the build step, the Android service and the Swift glue inside)"
  # the Microsoft.Extensions.AI integration, its own package (depends on AppFunctions $VERSION)
  if ! DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 dotnet pack bindings/dotnet/src/AppFunctions.Extensions.AI -c Release --output "$DIST/dotnet/" \
      >"$BUILD/dotnet-pack-ai.log" 2>&1; then
    grep -E "error|warning" "$BUILD/dotnet-pack-ai.log" | head -20 >&2
    fail ".NET: dotnet pack AppFunctions.Extensions.AI (log: $BUILD/dotnet-pack-ai.log)"
  fi
  [[ -f "$DIST/dotnet/AppFunctions.Extensions.AI.$VERSION.nupkg" ]] || fail ".NET: no dotnet/AppFunctions.Extensions.AI.$VERSION.nupkg"
  say ".NET: dotnet/AppFunctions.Extensions.AI.$VERSION.nupkg"
  # the ASP.NET Core hosting (MapAppFunctionsMcp, MapAppFunctionsDebugPage), its own package
  if ! DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 dotnet pack bindings/dotnet/src/AppFunctions.AspNetCore -c Release --output "$DIST/dotnet/" \
      >"$BUILD/dotnet-pack-aspnetcore.log" 2>&1; then
    grep -E "error|warning" "$BUILD/dotnet-pack-aspnetcore.log" | head -20 >&2
    fail ".NET: dotnet pack AppFunctions.AspNetCore (log: $BUILD/dotnet-pack-aspnetcore.log)"
  fi
  [[ -f "$DIST/dotnet/AppFunctions.AspNetCore.$VERSION.nupkg" ]] || fail ".NET: no dotnet/AppFunctions.AspNetCore.$VERSION.nupkg"
  say ".NET: dotnet/AppFunctions.AspNetCore.$VERSION.nupkg"
fi

# ---------------------------------------------------------------- checksums
(cd "$DIST" && find . -type f ! -name SHA256SUMS -printf '%P\n' | LC_ALL=C sort | xargs -d '\n' sha256sum >SHA256SUMS)
say "SHA256SUMS: $(wc -l <"$DIST/SHA256SUMS") files"
say "target/dist/:"
(cd "$DIST" && find . \( -type f -o -type l \) ! -path './swift/AppFunctions/Sources/*' ! -path './swift/AppFunctions/Tests/*' -printf '%P\n' \
  | LC_ALL=C sort | while read -r f; do
    if [[ -L "$f" ]]; then printf '    %-66s -> %s\n' "$f" "$(readlink "$f")"
    else printf '    %-66s %10d\n' "$f" "$(stat -c %s "$f")"; fi
  done
  printf '    %-66s %10s\n' "swift/AppFunctions/Sources/, Tests/" "$(find swift/AppFunctions/Sources swift/AppFunctions/Tests -type f | wc -l) files")
say "done"
