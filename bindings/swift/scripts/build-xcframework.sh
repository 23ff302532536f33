#!/usr/bin/env bash
# Builds AppFunctionsCore.xcframework: the Rust core as a static library for every Apple
# platform, with include/appfunctions.h and a module map declaring the `CAppFunctions`
# module the Swift sources import. SwiftPM then uses it as a binaryTarget:
#
#   APPFUNCTIONS_XCFRAMEWORK=$PWD/build/AppFunctionsCore.xcframework swift build
#   (or, for a release: upload build/AppFunctionsCore.xcframework.zip and set
#    APPFUNCTIONS_XCFRAMEWORK_URL + APPFUNCTIONS_XCFRAMEWORK_CHECKSUM; see README.md)
#
# Needs macOS with Xcode (xcodebuild, lipo) and rustup. It cannot run on the Linux CI
# machines; the Swift lane tests the same Swift sources against the Linux cdylib.
#
# The static libraries are built with the `dist` profile (release without debug info); the
# iOS slices of the phone build (APPFUNCTIONS_IOS_FEATURES) with `dist-small` (opt-level "z":
# docs/distribution.md, "The phone builds"), or APPFUNCTIONS_IOS_PROFILE when set.
# It needs the repository's sources: run it from a checkout, or set APPFUNCTIONS_REPO to
# one (the copy of this script in ci/dist.sh's Swift package does not sit in a checkout).
#
# Usage: [APPFUNCTIONS_IOS_FEATURES=phone-ios [APPFUNCTIONS_IOS_PROFILE=dist-small]] \
#          bindings/swift/scripts/build-xcframework.sh [OUT_DIR]
#        (default OUT_DIR bindings/swift/build)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="${APPFUNCTIONS_REPO:-$(cd "$HERE/../../.." && pwd)}"
[[ -f "$REPO/Cargo.toml" && -f "$REPO/include/appfunctions.h" ]] || {
  echo "build-xcframework.sh needs the appfunctions sources: $REPO is not a checkout (set APPFUNCTIONS_REPO)" >&2
  exit 3
}
OUT="${1:-$REPO/bindings/swift/build}"
NAME=AppFunctionsCore
LIB=libappfunctions.a
PROFILE=dist

[[ "$(uname -s)" == Darwin ]] || { echo "build-xcframework.sh needs macOS with Xcode" >&2; exit 3; }
command -v xcodebuild >/dev/null || { echo "xcodebuild not found (install Xcode)" >&2; exit 3; }

# Device and simulator slices; tvOS/watchOS/visionOS need nightly -Zbuild-std and are left out.
IOS=aarch64-apple-ios
IOS_SIM=(aarch64-apple-ios-sim x86_64-apple-ios)
MACOS=(aarch64-apple-darwin x86_64-apple-darwin)
MACCATALYST=(aarch64-apple-ios-macabi x86_64-apple-ios-macabi)

rustup target add "$IOS" "${IOS_SIM[@]}" "${MACOS[@]}" "${MACCATALYST[@]}"
export IPHONEOS_DEPLOYMENT_TARGET=16.0 MACOSX_DEPLOYMENT_TARGET=13.0
# APPFUNCTIONS_IOS_FEATURES=phone-ios builds the iOS device and simulator slices as the iOS
# phone build, without the MCP server, HTTP and the Android bridge (docs/distribution.md,
# "Size-optional features"); macOS and Mac Catalyst keep every feature.
ios_args=()
IOS_PROFILE="${APPFUNCTIONS_IOS_PROFILE:-$PROFILE}"
if [[ -n "${APPFUNCTIONS_IOS_FEATURES:-}" ]]; then
  ios_args=(--no-default-features --features "$APPFUNCTIONS_IOS_FEATURES")
  IOS_PROFILE="${APPFUNCTIONS_IOS_PROFILE:-dist-small}"
fi
profile_of() { case "$1" in *-apple-ios | *-apple-ios-sim) echo "$IOS_PROFILE" ;; *) echo "$PROFILE" ;; esac; }
for t in "$IOS" "${IOS_SIM[@]}" "${MACOS[@]}" "${MACCATALYST[@]}"; do
  args=()
  case "$t" in *-apple-ios | *-apple-ios-sim) args=(${ios_args[@]+"${ios_args[@]}"}) ;; esac
  cargo build --profile "$(profile_of "$t")" --lib --target "$t" --manifest-path "$REPO/Cargo.toml" ${args[@]+"${args[@]}"}
done

rm -rf "$OUT/$NAME.xcframework" "$OUT/slices" "$OUT/headers"
mkdir -p "$OUT/slices" "$OUT/headers"
fat() { # fat NAME target... : one universal static library per platform
  local name="$1"; shift
  mkdir -p "$OUT/slices/$name"
  lipo -create $(for t in "$@"; do echo "$REPO/target/$t/$(profile_of "$t")/$LIB"; done) -output "$OUT/slices/$name/$LIB"
}
fat ios "$IOS"
fat ios-simulator "${IOS_SIM[@]}"
fat macos "${MACOS[@]}"
fat maccatalyst "${MACCATALYST[@]}"

# The same module the Linux build declares in Sources/CAppFunctions/module.modulemap, with
# the header beside it (a static library needs no `link`: SwiftPM links the slice).
cp "$REPO/include/appfunctions.h" "$OUT/headers/"
cat >"$OUT/headers/module.modulemap" <<'MAP'
module CAppFunctions [system] {
    header "appfunctions.h"
    export *
}
MAP

args=()
for s in ios ios-simulator macos maccatalyst; do
  args+=(-library "$OUT/slices/$s/$LIB" -headers "$OUT/headers")
done
xcodebuild -create-xcframework "${args[@]}" -output "$OUT/$NAME.xcframework"

(cd "$OUT" && rm -f "$NAME.xcframework.zip" && zip -qry "$NAME.xcframework.zip" "$NAME.xcframework")
echo "built $OUT/$NAME.xcframework"
echo "checksum for the binaryTarget: $(cd "$OUT" && swift package compute-checksum "$NAME.xcframework.zip")"
