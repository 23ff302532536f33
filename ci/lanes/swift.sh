#!/usr/bin/env bash
# Swift binding test lane.
#
# Usage:
#   ci/lanes/swift.sh [PACKAGE_DIR [NATIVE_LIB_DIR]]
#
#   PACKAGE_DIR     Swift package to test   (default: bindings/swift, or $SWIFT_PACKAGE_DIR)
#   NATIVE_LIB_DIR  dir holding the native shared library
#                   (default: target/release, or $APPFUNCTIONS_LIB_DIR)
#   Relative paths are taken from the repository root.
#
# Where the Swift toolchain comes from:
#   * `swift` on PATH                  -> used directly ("host" mode);
#   * else root with apt-get           -> a Debian trixie chroot (debootstrap --variant=minbase)
#                                         with swiftlang + libc6-dev + tzdata (~2.7 GB), cached at
#                                         $SWIFT_LANE_CHROOT (default /var/cache/appfunctions/swift-trixie)
#                                         and reused while healthy ("chroot" mode);
#   * else                             -> "swift lane cannot run: <reason>", exit 3.
#
# Environment knobs:
#   REPO=DIR                           repository root (default: two levels above this script)
#   SWIFT_LANE_MODE=auto|host|chroot   force a mode (default auto, as above)
#   SWIFT_LANE_CHROOT=DIR              chroot location (outside the repo)
#   SWIFT_LANE_REBUILD_CHROOT=1        throw the cached chroot away and build it anew
#   SWIFT_LANE_DEBIAN_MIRROR=URL       mirror for debootstrap (default: the host's apt Debian URI)
#   SWIFT_LANE_BUILD_NATIVE=auto|1|0   run `cargo build --release` first
#                                      (auto: only when NATIVE_LIB_DIR is the repo's target/release)
#   SWIFT_LANE_EXTRA_MOUNTS=a:b        more host dirs to bind-mount into the chroot (same paths)
#   SWIFT_SCRATCH_PATH=DIR             swift build dir (default: .build in host mode; in chroot
#                                      mode a per-package dir inside the chroot, so the repo stays clean)
#   SWIFT_TEST_ARGS="..."              extra arguments for `swift test` (word-split)
#   SWIFT_LANE_SHELL=1                 instead of `swift test`, a bash in PACKAGE_DIR with the
#                                      toolchain (in chroot mode, inside the chroot, the repo and
#                                      NATIVE_LIB_DIR mounted, LD_LIBRARY_PATH set); commands on
#                                      stdin when it is not a terminal. Exits with the shell's status.
#
# Exit codes: 0 tests passed; 1 build or test failure (or no test ran);
#             2 usage error (bad arguments, no package); 3 lane unavailable (no way to get a swift).
#
# The verdict needs BOTH `swift test` exiting 0 AND the summaries agreeing: XCTest's last
# "Executed N tests, with M failures" must have M == 0, Swift Testing must not say "failed",
# and XCTest + Swift Testing together must have run at least one test. Swift Testing prints
# "Test run with 0 tests passed" even when only XCTest ran; that line alone never counts as a pass.
set -euo pipefail

LANE="swift lane"
EXIT_FAIL=1
EXIT_USAGE=2
EXIT_UNAVAILABLE=3

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "${REPO:-$SCRIPT_DIR/../..}" && pwd)"   # REPO=... as in the other lanes

CHROOT="${SWIFT_LANE_CHROOT:-/var/cache/appfunctions/swift-trixie}"
SUITE=trixie
CHROOT_PACKAGES=(swiftlang libc6-dev tzdata)
MARKER_NAME=.appfunctions-swift-lane-ready

log() { printf '[%s] %s\n' "$LANE" "$*" >&2; }

unavailable() {
  printf '\n==================================================================\n' >&2
  printf '%s cannot run: %s\n' "$LANE" "$*" >&2
  printf '==================================================================\n' >&2
  echo "$LANE: UNAVAILABLE ($*)"
  exit "$EXIT_UNAVAILABLE"
}

usage_error() {
  log "usage error: $*"
  echo "usage: ci/lanes/swift.sh [PACKAGE_DIR [NATIVE_LIB_DIR]]" >&2
  exit "$EXIT_USAGE"
}

# ---------------------------------------------------------------- mounts & cleanup
MOUNTS=()           # mount points to undo, in mount order
RMDIRS=()           # empty mount-point dirs we created inside the chroot
LOCK_FD=""

cleanup() {
  local rc=$? i m
  set +e
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
    m="${MOUNTS[$i]}"
    if mountpoint -q "$m"; then
      umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || log "warning: could not unmount $m"
    fi
  done
  MOUNTS=()
  for ((i = ${#RMDIRS[@]} - 1; i >= 0; i--)); do
    rmdir "${RMDIRS[$i]}" 2>/dev/null
  done
  return "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

do_mount() { # do_mount TARGET mount-args...
  local target="$1"; shift
  mount "$@" "$target"
  MOUNTS+=("$target")
}

undo_mounts_under() { # unmount whatever we registered under a prefix (used while building)
  local prefix="$1" i m keep=()
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
    m="${MOUNTS[$i]}"
    if [[ "$m" == "$prefix"/* ]]; then
      mountpoint -q "$m" && { umount "$m" || umount -l "$m"; }
    fi
  done
  for m in "${MOUNTS[@]}"; do [[ "$m" == "$prefix"/* ]] || keep+=("$m"); done
  MOUNTS=("${keep[@]+"${keep[@]}"}")
}

foreign_mounts_under() { # prints mount points below DIR (from any earlier, crashed run)
  local dir="$1"
  awk -v p="$dir/" 'index($2, p) == 1 { print $2 }' /proc/self/mounts
}

safe_remove_tree() { # rm -rf DIR, but never through a live bind mount
  local dir="$1" m
  [[ -e "$dir" ]] || return 0
  while read -r m; do
    [[ -n "$m" ]] || continue
    log "unmounting stale mount $m"
    umount -R "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done < <(foreign_mounts_under "$dir" | sort -r)
  if [[ -n "$(foreign_mounts_under "$dir")" ]]; then
    unavailable "$dir still has mounts below it; refusing to delete it"
  fi
  rm -rf --one-file-system "$dir"
}

# ---------------------------------------------------------------- arguments
[[ $# -le 2 ]] || usage_error "too many arguments"
case "${1:-}" in -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac

abs_path() { # relative paths are from the repo root
  local p="$1"
  [[ "$p" == /* ]] || p="$REPO_ROOT/$p"
  readlink -f -- "$p" 2>/dev/null || printf '%s' "$p"
}

PKG_DIR="$(abs_path "${1:-${SWIFT_PACKAGE_DIR:-bindings/swift}}")"
LIB_DIR="$(abs_path "${2:-${APPFUNCTIONS_LIB_DIR:-target/release}}")"
MODE="${SWIFT_LANE_MODE:-auto}"
read -r -a EXTRA_TEST_ARGS <<<"${SWIFT_TEST_ARGS:-}"

[[ -f "$PKG_DIR/Package.swift" ]] || usage_error "no Swift package at $PKG_DIR (missing Package.swift)"
case "$MODE" in auto|host|chroot) ;; *) usage_error "SWIFT_LANE_MODE must be auto, host or chroot (got '$MODE')" ;; esac

# ---------------------------------------------------------------- the README's examples
# Each ```swift block after a `<!-- swift-lane: NAME.swift -->` marker in the package's README
# must appear verbatim in the test file NAME.swift, which compiles and runs it.
if [[ -f "$PKG_DIR/README.md" ]] && grep -q '<!-- swift-lane: ' "$PKG_DIR/README.md"; then
  if ! python3 - "$PKG_DIR" <<'PY'
import pathlib, re, sys
root = pathlib.Path(sys.argv[1])
blocks = re.findall(r"<!-- swift-lane: (\S+) -->\n```swift\n(.*?)```", (root / "README.md").read_text(), re.S)
for name, code in blocks:
    files = list((root / "Tests").rglob(name))
    if len(files) != 1:
        sys.exit(f"[swift lane] README.md names {name}, found {len(files)} such test files")
    if code not in files[0].read_text():
        sys.exit(f"[swift lane] a README.md example differs from {files[0].relative_to(root)}: keep them the same")
print(f"[swift lane] the README's {len(blocks)} examples are in their tests verbatim", file=sys.stderr)
PY
  then
    echo "$LANE: FAIL (the README's examples differ from their tests)"
    exit "$EXIT_FAIL"
  fi
fi

# ---------------------------------------------------------------- native library (host)
build_native="${SWIFT_LANE_BUILD_NATIVE:-auto}"
if [[ "$build_native" == auto ]]; then
  build_native=0
  [[ "$LIB_DIR" == "$REPO_ROOT/target/release" && -f "$REPO_ROOT/Cargo.toml" ]] && build_native=1
fi
if [[ "$build_native" == 1 ]]; then
  command -v cargo >/dev/null 2>&1 || unavailable "cargo is not on PATH, cannot build the native library"
  # shellcheck source=ci/env.sh
  REPO="$REPO_ROOT" source "$REPO_ROOT/ci/env.sh"
  REPO="$REPO_ROOT" af_cargo_setup || unavailable "crates cannot be resolved here"
  log "building the native library: cargo build --release"
  if ! cargo build --release --manifest-path "$REPO_ROOT/Cargo.toml"; then
    log "cargo build --release failed"
    echo "$LANE: FAIL (native library build failed)"
    exit "$EXIT_FAIL"
  fi
fi
[[ -d "$LIB_DIR" ]] || { log "native library dir $LIB_DIR does not exist"; echo "$LANE: FAIL (no native library dir $LIB_DIR)"; exit "$EXIT_FAIL"; }
compgen -G "$LIB_DIR/lib*.so*" >/dev/null || log "warning: no lib*.so in $LIB_DIR"

# ---------------------------------------------------------------- choose the toolchain
if [[ "$MODE" == auto ]]; then
  if command -v swift >/dev/null 2>&1; then MODE=host; else MODE=chroot; fi
fi
if [[ "$MODE" == host ]]; then
  command -v swift >/dev/null 2>&1 || unavailable "SWIFT_LANE_MODE=host but no swift on PATH"
else
  [[ "$(id -u)" == 0 ]] || unavailable "no swift on PATH and not root, so no Debian $SUITE chroot can be built (install a Swift toolchain, or run as root with apt-get)"
  command -v apt-get >/dev/null 2>&1 || unavailable "no swift on PATH and no apt-get to build a Debian $SUITE chroot with swiftlang"
  command -v chroot >/dev/null 2>&1 || unavailable "no swift on PATH and no chroot(8)"
fi

# ---------------------------------------------------------------- the trixie chroot
debian_mirror() {
  if [[ -n "${SWIFT_LANE_DEBIAN_MIRROR:-}" ]]; then echo "$SWIFT_LANE_DEBIAN_MIRROR"; return; fi
  local uri
  uri="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
    sed -n -E 's/^[[:space:]]*(URIs:|deb(\[[^]]*\])?)[[:space:]]+(\[[^]]*\][[:space:]]+)?([a-z]+:\/\/[^[:space:]]+).*/\4/p' |
    grep -E '/debian/?$' | grep -v -- '-security' | head -n1 || true)"
  echo "${uri:-http://deb.debian.org/debian}"
}

# /usr/bin/swift -> /usr/libexec/swift/bin/swift finds libswiftCore.so through an $ORIGIN rpath,
# which the loader only resolves with /proc mounted: every swift run in the chroot needs /proc.
chroot_swift_version() { # chroot_swift_version ROOT
  local root="$1" rc=0
  mountpoint -q "$root/proc" || do_mount "$root/proc" -t proc proc
  chroot "$root" /usr/bin/swift --version 2>&1 || rc=$?
  undo_mounts_under "$root"
  mountpoint -q "$root/tmp" || rm -rf "$root"/tmp/TemporaryDirectory.*   # the driver leaves these
  return "$rc"
}

chroot_healthy() {
  # (/usr/bin/swift is an absolute symlink: test it as a link, it dangles when seen from the host)
  [[ -f "$CHROOT/$MARKER_NAME" && ( -L "$CHROOT/usr/bin/swift" || -x "$CHROOT/usr/bin/swift" ) ]] || return 1
  chroot_swift_version "$CHROOT" >/dev/null
}

build_chroot() {
  local new="$CHROOT.new" mirror buildlog t0
  t0=$SECONDS
  buildlog="$(dirname "$CHROOT")/$(basename "$CHROOT")-build.log"
  mirror="$(debian_mirror)"
  log "building a Debian $SUITE chroot at $CHROOT from $mirror (log: $buildlog)"
  : >"$buildlog"
  safe_remove_tree "$new"

  if ! apt-get update -q >>"$buildlog" 2>&1; then
    tail -n 20 "$buildlog" >&2
    unavailable "apt-get update failed on the host (no route to the Debian mirror?)"
  fi
  if ! command -v debootstrap >/dev/null 2>&1; then
    log "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >>"$buildlog" 2>&1 ||
      { tail -n 20 "$buildlog" >&2; unavailable "could not apt-get install debootstrap"; }
  fi

  log "debootstrap --variant=minbase $SUITE"
  if ! debootstrap --variant=minbase "$SUITE" "$new" "$mirror" >>"$buildlog" 2>&1; then
    tail -n 20 "$buildlog" >&2
    safe_remove_tree "$new"
    unavailable "debootstrap of Debian $SUITE failed (see $buildlog)"
  fi
  cp -L /etc/resolv.conf "$new/etc/resolv.conf" 2>/dev/null || true
  do_mount "$new/proc" -t proc proc
  log "apt-get install ${CHROOT_PACKAGES[*]} (inside the chroot)"
  if ! chroot "$new" /usr/bin/env DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 \
      sh -c 'apt-get update -q && apt-get install -y -q --no-install-recommends "$@" && apt-get clean' \
      sh "${CHROOT_PACKAGES[@]}" >>"$buildlog" 2>&1; then
    tail -n 20 "$buildlog" >&2
    undo_mounts_under "$new"
    safe_remove_tree "$new"
    unavailable "installing ${CHROOT_PACKAGES[*]} in the $SUITE chroot failed (see $buildlog)"
  fi
  undo_mounts_under "$new"
  if ! chroot_swift_version "$new" >>"$buildlog" 2>&1; then
    tail -n 20 "$buildlog" >&2
    safe_remove_tree "$new"
    unavailable "swift in the fresh $SUITE chroot does not run (see $buildlog)"
  fi
  chroot "$new" dpkg-query -W -f='${Package} ${Version}\n' "${CHROOT_PACKAGES[@]}" >"$new/$MARKER_NAME"
  safe_remove_tree "$CHROOT"
  mv "$new" "$CHROOT"
  log "chroot ready in $((SECONDS - t0)) s"
}

if [[ "$MODE" == chroot ]]; then
  mkdir -p "$(dirname "$CHROOT")"
  case "$CHROOT/" in "$REPO_ROOT"/*) usage_error "SWIFT_LANE_CHROOT must be outside the repository" ;; esac
  # One lane at a time per chroot: building it and the bind mounts are not shareable.
  exec {LOCK_FD}>"$CHROOT.lock"
  if ! flock -w 1800 "$LOCK_FD"; then unavailable "timed out waiting for the lock $CHROOT.lock"; fi

  if [[ "${SWIFT_LANE_REBUILD_CHROOT:-0}" == 1 ]]; then
    log "SWIFT_LANE_REBUILD_CHROOT=1: discarding $CHROOT"
    safe_remove_tree "$CHROOT"
  fi
  if chroot_healthy; then
    log "reusing the $SUITE chroot at $CHROOT ($(tr '\n' ' ' <"$CHROOT/$MARKER_NAME"))"
  else
    [[ -e "$CHROOT" ]] && log "the chroot at $CHROOT is missing or broken; rebuilding it"
    build_chroot
  fi
fi

# ---------------------------------------------------------------- run swift test
OUT="$(mktemp /tmp/swift-lane.XXXXXX.log)"
SWIFT_ARGS=(-Xlinker -L"$LIB_DIR" -Xlinker -rpath -Xlinker "$LIB_DIR")
[[ -d "$REPO_ROOT/include" ]] && SWIFT_ARGS+=(-Xcc -I"$REPO_ROOT/include")
[[ -n "${SWIFT_SCRATCH_PATH:-}" ]] && SWIFT_ARGS+=(--scratch-path "$SWIFT_SCRATCH_PATH")

if [[ "$MODE" == host && "${SWIFT_LANE_SHELL:-0}" == 1 ]]; then
  log "swift is on PATH: a shell in $PKG_DIR with LD_LIBRARY_PATH=$LIB_DIR; exit to leave"
  cd "$PKG_DIR" && LD_LIBRARY_PATH="$LIB_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec /bin/bash
fi
if [[ "$MODE" == host ]]; then
  # (no `| head -n1` here: with pipefail a SIGPIPE in swift would kill the lane)
  TOOLCHAIN="$(swift --version 2>/dev/null || true)"; TOOLCHAIN="host: ${TOOLCHAIN%%$'\n'*}"
  log "swift test in $PKG_DIR ($TOOLCHAIN)"
  set +e
  (cd "$PKG_DIR" && LD_LIBRARY_PATH="$LIB_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      swift test "${SWIFT_ARGS[@]}" "${EXTRA_TEST_ARGS[@]+"${EXTRA_TEST_ARGS[@]}"}") 2>&1 | tee "$OUT"
  rc=${PIPESTATUS[0]}
  set -e
else
  TOOLCHAIN="$(chroot_swift_version "$CHROOT" || true)"; TOOLCHAIN="chroot $CHROOT: ${TOOLCHAIN%%$'\n'*}"
  # Host dirs appear in the chroot at the same absolute paths, so build logs, module-map paths
  # and rpaths read the same inside and out. A dir inside the repo brings the whole repo.
  mount_dirs=()
  for d in "$PKG_DIR" "$LIB_DIR"; do
    case "$d/" in "$REPO_ROOT"/*) mount_dirs+=("$REPO_ROOT") ;; *) mount_dirs+=("$d") ;; esac
  done
  IFS=: read -r -a extra_mounts <<<"${SWIFT_LANE_EXTRA_MOUNTS:-}"
  for d in "${extra_mounts[@]+"${extra_mounts[@]}"}"; do [[ -n "$d" ]] && mount_dirs+=("$(readlink -f -- "$d")"); done
  # (shortest first, duplicates once: `sort -n -u` would also drop a different dir of the same
  # length, since -u compares only the numeric key)
  mapfile -t mount_dirs < <(printf '%s\n' "${mount_dirs[@]}" | sort -u | awk '{ print length, $0 }' | sort -n -s | cut -d' ' -f2-)

  do_mount "$CHROOT/proc" -t proc proc
  do_mount "$CHROOT/sys" -t sysfs -o ro sysfs
  do_mount "$CHROOT/dev" --bind /dev
  # A fresh /tmp per run: SwiftPM leaves TemporaryDirectory.* behind, and host dirs under /tmp
  # get their mount points here without touching the cached chroot.
  do_mount "$CHROOT/tmp" -t tmpfs -o mode=1777 tmpfs
  mounted=()
  for d in "${mount_dirs[@]}"; do
    skip=0
    for m in "${mounted[@]+"${mounted[@]}"}"; do [[ "$d/" == "$m"/* ]] && skip=1; done
    [[ $skip == 1 ]] && continue
    case "$d" in /|/bin|/bin/*|/boot|/dev|/dev/*|/etc|/etc/*|/lib|/lib/*|/lib64|/proc|/proc/*|/sbin|/sys|/sys/*|/usr|/usr/*|/var|/var/lib|/var/lib/*)
      usage_error "refusing to bind-mount system directory $d into the chroot" ;;
    esac
    if [[ ! -d "$CHROOT$d" ]]; then
      p="$d"; top=""
      while [[ ! -d "$CHROOT$p" ]]; do top="$p"; p="$(dirname "$p")"; done
      mkdir -p "$CHROOT$d"
      RMDIRS+=("$CHROOT$top")   # removed again (if empty) on exit
      [[ "$top" != "$d" ]] && { q="$d"; while [[ "$q" != "$top" ]]; do RMDIRS+=("$CHROOT$q"); q="$(dirname "$q")"; done; }
    fi
    do_mount "$CHROOT$d" --bind "$d"
    mounted+=("$d")
  done
  if [[ -z "${SWIFT_SCRATCH_PATH:-}" ]]; then
    scratch="/var/tmp/swift-lane-build/$(printf '%s' "$PKG_DIR" | sha256sum | cut -c1-16)"
    SWIFT_ARGS+=(--scratch-path "$scratch")
  fi
  if [[ "${SWIFT_LANE_SHELL:-0}" == 1 ]]; then
    log "a shell in the $SUITE chroot, in $PKG_DIR ($TOOLCHAIN); exit to leave"
    set +e
    chroot "$CHROOT" /usr/bin/env -i \
        HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        LANG=C.UTF-8 TERM="${TERM:-dumb}" TMPDIR=/tmp LD_LIBRARY_PATH="$LIB_DIR" \
        /bin/bash -c 'cd "$1" && exec /bin/bash' swift-lane-shell "$PKG_DIR"
    rc=$?
    set -e
    cleanup || true
    exit "$rc"
  fi
  log "swift test in $PKG_DIR ($TOOLCHAIN)"
  set +e
  chroot "$CHROOT" /usr/bin/env -i \
      HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      LANG=C.UTF-8 TERM=dumb TMPDIR=/tmp LD_LIBRARY_PATH="$LIB_DIR" \
      /bin/bash -c 'cd "$1" && shift && exec swift test "$@"' swift-lane "$PKG_DIR" \
      "${SWIFT_ARGS[@]}" "${EXTRA_TEST_ARGS[@]+"${EXTRA_TEST_ARGS[@]}"}" 2>&1 | tee "$OUT"
  rc=${PIPESTATUS[0]}
  set -e
  cleanup || true
fi

# ---------------------------------------------------------------- verdict
# Strip ANSI colour codes and carriage returns before reading the summaries.
CLEAN="$(sed -E 's/\x1b\[[0-9;]*[A-Za-z]//g; s/\r//g' "$OUT")"

xc_line="$(grep -E 'Executed [0-9]+ tests?, with [0-9]+ failures?' <<<"$CLEAN" | tail -n1 || true)"
xc_tests="" xc_failures=""
if [[ -n "$xc_line" ]]; then
  xc_tests="$(sed -E 's/.*Executed ([0-9]+) tests?, with ([0-9]+) failures?.*/\1/' <<<"$xc_line")"
  xc_failures="$(sed -E 's/.*Executed ([0-9]+) tests?, with ([0-9]+) failures?.*/\2/' <<<"$xc_line")"
fi
xc_cases_passed="$(grep -cE "^Test Case '.*' passed" <<<"$CLEAN" || true)"
xc_cases_failed="$(grep -cE "^Test Case '.*' failed" <<<"$CLEAN" || true)"

st_line="$(grep -E 'Test run with [0-9]+ tests?' <<<"$CLEAN" | tail -n1 || true)"
st_tests=0 st_status=""
if [[ -n "$st_line" ]]; then
  st_tests="$(sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/' <<<"$st_line")"
  if grep -qE '(^|[^a-z])failed' <<<"${st_line#*Test run with}"; then st_status=failed; else st_status=passed; fi
fi
st_failed="$(grep -E 'Test [^ ].* failed after' <<<"$CLEAN" | grep -cvE 'Test run with' || true)"
st_passed="$(grep -E 'Test [^ ].* passed after' <<<"$CLEAN" | grep -cvE 'Test run with' || true)"

total=$(( ${xc_tests:-0} + st_tests ))
reasons=()
[[ $rc -eq 0 ]] || reasons+=("swift test exited $rc")
[[ -n "$xc_line" || -n "$st_line" ]] || reasons+=("no XCTest or Swift Testing summary in the output (build failure or crash?)")
[[ -z "$xc_failures" || "$xc_failures" -eq 0 ]] || reasons+=("XCTest reported $xc_failures failure(s)")
[[ "$st_status" != failed ]] || reasons+=("Swift Testing reported a failed run")
[[ $total -gt 0 ]] || reasons+=("no test was executed")

passed=$(( xc_cases_passed + st_passed ))
failed=$(( xc_cases_failed + st_failed ))
echo
echo "---- $LANE summary ($TOOLCHAIN)"
echo "XCTest:        ${xc_line:-no summary line}"
echo "Swift Testing: ${st_line:-no summary line}"
echo "swift test exit code: $rc; full log: $OUT"
if [[ ${#reasons[@]} -eq 0 ]]; then
  echo "$LANE: PASS ($total tests)"
  echo "swift: $passed passed, 0 failed"
  exit 0
fi
(( failed > 0 )) || failed=1   # a lane that failed never reports "0 failed"
echo "$LANE: FAIL ($(IFS=';'; echo "${reasons[*]}"))"
echo "swift: $passed passed, $failed failed"
exit "$EXIT_FAIL"
