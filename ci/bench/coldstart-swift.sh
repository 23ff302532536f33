#!/usr/bin/env bash
# The Swift cold start (issue 30), run by ci/bench.sh's coldstart_bench: builds the Swift
# benchmark programs (bindings/swift/Benchmarks, release) against LIB and measures them with
# `ci/bench/coldstart.py --binding swift` into $OUT/coldstart_swift.json.
#   ColdStart       the demo app of 50 functions registered through the Swift API, its first call
#   ColdStartFloor  the same program without appfunctions
# The toolchain is the swift lane's (ci/lanes/swift.sh): `swift` on PATH, else the lane's
# Debian chroot (built by the swift lane; as root). In the chroot both programs are started
# with chroot(8), so each sample's start includes chroot's own exec, the floor's too.
# Environment (ci/bench.sh sets them): REPO, OUT, SAMPLES, DEMO, LIB.
set -euo pipefail
REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
OUT="${OUT:-$REPO/target/bench}"; SAMPLES="${SAMPLES:-200}"
DEMO="${DEMO:-$REPO/target/release/examples/demo}"
LIB="${LIB:-$REPO/target/dist-build/dist/libappfunctions.so}"
PKG="$REPO/bindings/swift/Benchmarks"
CHROOT="${SWIFT_LANE_CHROOT:-/var/cache/appfunctions/swift-trixie}"
loud() {
  printf '\n!!! %s\n!!! the Swift cold start is not measured in this run\n\n' "$*" >&2
  exit 0
}
[[ -f "$LIB" ]] || loud "no library at $LIB (ci/bench.sh builds it)"
LIB_DIR="$(dirname "$LIB")"
what="A Swift executable (bindings/swift/Benchmarks, release, linked with the dist library) registers the demo app through the Swift API (typed descriptors, records, the entity with its lookup, the toolkit, the metadata schema; \`load\` is the ABI check and the first dispatcher, the library being mapped by the dynamic loader before \`main\`), then awaits its first \`execute\` (create_order answering an Order); the floor is a Swift executable with Foundation that only reads the clock and prints."
if command -v swift >/dev/null 2>&1; then
  (cd "$PKG" && swift build -c release -Xlinker -L"$LIB_DIR" -Xlinker -rpath -Xlinker "$LIB_DIR" -Xcc -I"$REPO/include") \
    || loud "swift build of $PKG failed"
  BIN="$(cd "$PKG" && swift build -c release --show-bin-path)"
  FULL="$BIN/ColdStart"; FLOOR="$BIN/ColdStartFloor"
elif [[ "$(id -u)" == 0 && -f "$CHROOT/.appfunctions-swift-lane-ready" ]]; then
  # Built in the lane's chroot; run from a directory inside it holding the library beside
  # the programs (their rpath), so chroot(8) starts them with nothing from the host.
  run="/var/tmp/appfunctions-coldstart"
  scratch="/var/tmp/swift-lane-build/coldstart-$(printf '%s' "$PKG" | sha256sum | cut -c1-16)"
  printf '%s\n' "set -e" \
    "swift build -c release --scratch-path $scratch -Xcc -I$REPO/include -Xlinker -L$LIB_DIR -Xlinker -rpath -Xlinker $run" \
    "rm -rf $run && mkdir -p $run && cp $scratch/release/ColdStart $scratch/release/ColdStartFloor $scratch/release/RoundTrip $scratch/release/RegisterOnly $run/" \
    "cp -L $LIB $run/libappfunctions.so && ln -s libappfunctions.so $run/libappfunctions.so.1" \
    | SWIFT_LANE_SHELL=1 SWIFT_LANE_BUILD_NATIVE=0 bash "$REPO/ci/lanes/swift.sh" "$PKG" "$LIB_DIR" >&2 \
    || loud "building the Swift cold start programs in the swift lane's chroot failed"
  FULL="chroot $CHROOT $run/ColdStart"; FLOOR="chroot $CHROOT $run/ColdStartFloor"
  what="$what Started with chroot(8) into the swift lane's Debian chroot (both programs), its /proc, /sys and /dev mounted by a lane shell held open meanwhile."
  # Swift on Linux needs /proc and /sys (the arguments, the cooperative pool's CPU count):
  # a lane shell keeps the chroot's mounts (and the lane's lock) while the samples run.
  hold="$OUT/swift-coldstart.hold" ready="$OUT/swift-coldstart.ready"
  rm -f "$ready"; touch "$hold"
  printf 'touch %q; while [ -e %q ]; do sleep 0.2; done\n' "$ready" "$hold" \
    | SWIFT_LANE_SHELL=1 SWIFT_LANE_BUILD_NATIVE=0 bash "$REPO/ci/lanes/swift.sh" "$PKG" "$LIB_DIR" >/dev/null 2>&1 &
  holder=$!
  trap 'rm -f "$hold" "$ready"; wait "$holder" 2>/dev/null || true' EXIT
  # (the lane waits for its lock up to 30 minutes while another swift lane runs)
  while [[ ! -e "$ready" ]] && kill -0 "$holder" 2>/dev/null; do sleep 0.2; done
  [[ -e "$ready" ]] || loud "the swift lane's shell did not start in the chroot"
else
  loud "no Swift toolchain: no swift on PATH and no swift lane chroot at $CHROOT (run ci/lanes/swift.sh once, as root)"
fi
python3 "$REPO/ci/bench/coldstart.py" --demo "$DEMO" --binding swift --full "$FULL" --floor "$FLOOR" \
  --what "$what" --out "$OUT/coldstart_swift.json" --samples "$SAMPLES" --lib "$LIB"
