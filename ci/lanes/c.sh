#!/usr/bin/env bash
# C lane: the C harness (tests/c) through include/appfunctions.h, twice:
#   1. built with AddressSanitizer + UBSan, full counts;
#   2. built plain (-O1 -g) and run under valgrind memcheck, smaller counts (valgrind
#      serialises threads; the counts are printed below).
# Before them: the header compiles cleanly as C99 and C++11 with -Wall -Wextra -pedantic
# -Werror; the README's C blocks compile and the main one links and runs as written
# (ci/readme_c.sh); the library's SONAME is libappfunctions.so.<ABI> and it exports only
# the af_ functions the header declares; on GNU/Linux, that it needs no libgcc_s.so.1 (its
# unwinder linked in, build.rs) and that a panic inside it is caught (tests/static_unwinder.rs,
# on the debug build); and, on x86_64, that what a cold start runs lies first in its .text
# (the startup order: ci/startup_order.py check).
# Exits 0 (passed), 1 (failed) or 3 (cannot run here: no C compiler / valgrind).
#
# Leak policy: valgrind fails on "definitely" and "indirectly" lost blocks. "Still
# reachable" blocks are accepted: they are process-lifetime statics of the library (the
# global call-handle table, the timer and completion threads (they exit after 1 s idle),
# Rust std's thread-locals and stdout buffer), reachable until exit by design. "Possibly
# lost" is reported but not fatal (a running thread's stack pointers into the middle of
# blocks). LSan runs with no suppressions.
set -euo pipefail
REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
cd "$REPO"
source "$REPO/ci/env.sh"; af_cargo_setup || { echo "!!! c lane cannot run: crates cannot be resolved here" >&2; exit 3; }
BUILD="${AF_C_BUILD:-$REPO/target/c}"
cannot_run() { echo "!!! c lane cannot run: $*" >&2; exit 3; }

command -v cargo >/dev/null || cannot_run "no cargo on PATH"
command -v make >/dev/null || cannot_run "no make on PATH"
CC="${CC:-cc}"
CXX="${CXX:-c++}"
if ! command -v "$CC" >/dev/null || ! command -v "$CXX" >/dev/null || ! command -v valgrind >/dev/null; then
  echo "[c] installing the missing tools (C/C++ compilers / valgrind)"
  if command -v apt-get >/dev/null; then
    (apt-get update -qq && apt-get install -y -qq gcc g++ make valgrind) >/dev/null 2>&1 || true
  fi
fi
command -v "$CC" >/dev/null || cannot_run "no C compiler ($CC) and it could not be installed"
command -v "$CXX" >/dev/null || cannot_run "no C++ compiler ($CXX) and it could not be installed"
command -v valgrind >/dev/null || cannot_run "no valgrind and it could not be installed"
echo 'int main(void){return 0;}' | "$CC" -x c -fsanitize=address,undefined -o /tmp/af-c-probe - 2>/dev/null \
  || cannot_run "$CC cannot build with -fsanitize=address,undefined (libasan/libubsan missing)"
rm -f /tmp/af-c-probe

echo "[c] the header as strict C99 and C++11 (-Wall -Wextra -pedantic -Werror)"
mkdir -p "$BUILD"
"$CC" -std=c99 -Wall -Wextra -pedantic -Werror -Iinclude -c tests/c/header_strict.c -o "$BUILD/header_c99.o" || exit 1
"$CXX" -x c++ -std=c++11 -Wall -Wextra -pedantic -Werror -Iinclude -c tests/c/header_strict.c -o "$BUILD/header_cxx11.o" || exit 1

echo "[c] cargo build --release"
cargo build --release -q || exit 1

lib=target/release/libappfunctions.so
abi=$(sed -n 's/^#define AF_ABI_VERSION \([0-9]*\)$/\1/p' include/appfunctions.h)
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
if [[ "$soname" != "libappfunctions.so.$abi" ]]; then
  echo "[c] $lib has SONAME '$soname', want libappfunctions.so.$abi (build.rs)"; exit 1
fi
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort -u)
# the prototypes of the header (a line of their own each: `type af_name(args);`)
declared=$(grep -E '^[a-z].*[ *]af_[a-z0-9_]+\(.*\);$' include/appfunctions.h | grep -v '^typedef' \
  | sed -E 's/^.*[ *](af_[a-z0-9_]+)\(.*$/\1/' | sort -u)
stray=$(comm -23 <(echo "$exported") <(echo "$declared"))
if [[ -n "$stray" ]]; then echo "[c] $lib exports symbols the header does not declare: $(echo $stray)"; exit 1; fi
absent=$(comm -13 <(echo "$exported") <(echo "$declared"))
if [[ -n "$absent" ]]; then echo "[c] the header declares functions $lib does not export: $(echo $absent)"; exit 1; fi
echo "[c] $lib: SONAME $soname, exports exactly the $(echo "$declared" | wc -l) af_ functions of the header"

# the unwinder is part of the library (build.rs, static_unwinder): no libgcc_s.so.1 to load
# beside it, and a panic inside it is still caught at the boundary (the debug build's probe)
if [[ "$(rustc -vV | sed -n 's/^host: //p')" == *-linux-gnu ]]; then
  needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  if [[ "$needed" == *libgcc_s* ]]; then
    echo "[c] $lib needs libgcc_s ($needed): build.rs links the unwinder in"; exit 1
  fi
  echo "[c] $lib needs only: $needed"
  echo "[c] a panic caught inside the library: cargo build --lib && cargo test --test static_unwinder -- --ignored"
  cargo build --lib -q || exit 1
  if ! RUST_BACKTRACE=0 cargo test -q --test static_unwinder -- --ignored >/tmp/af-c-unwinder.log 2>&1; then
    tail -30 /tmp/af-c-unwinder.log; echo "[c] FAILED: tests/static_unwinder.rs"; exit 1
  fi
  grep "test result" /tmp/af-c-unwinder.log
fi

# the startup order (build.rs, link/startup-order.ld): what the demo app's cold start runs
# (callgrind) lies first in .text; below 80% of its code pages there, the list went stale
if [[ $(uname -m) == x86_64 ]]; then
  echo "[c] the startup order: python3 ci/startup_order.py check $lib"
  python3 ci/startup_order.py check "$lib" \
    || { echo "[c] FAILED: the startup order (re-record it: python3 ci/startup_order.py record)"; exit 1; }
else
  echo "[c] the startup order is not checked: lld links it on x86_64 Linux and Android, not on $(uname -m) Linux (build.rs)"
fi

echo "[c] the README's C examples"
CC="$CC" CXX="$CXX" bash ci/readme_c.sh || exit 1

echo "[c] building the harness (ASan+UBSan, and plain for valgrind) with -Wall -Wextra -Werror"
make -s -C tests/c BUILD="$BUILD" CC="$CC" asan plain || exit 1

failed=0

echo
echo "[c] run 1/2: AddressSanitizer + UBSan (LeakSanitizer on, no suppressions)"
ASAN_THREAD_CALLS="${AF_THREAD_CALLS:-10000}"
ASAN_STRESS_CALLS="${AF_STRESS_CALLS:-20000}"
echo "[c]   counts: AF_THREAD_CALLS=$ASAN_THREAD_CALLS (x8 threads), AF_STRESS_CALLS=$ASAN_STRESS_CALLS (x8 threads)"
start=$(date +%s)
if ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:exitcode=99:detect_stack_use_after_return=1" \
   UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
   AF_THREAD_CALLS="$ASAN_THREAD_CALLS" AF_STRESS_CALLS="$ASAN_STRESS_CALLS" \
   "$BUILD/asan/af_harness" 2>&1 | tee /tmp/af-c-asan.log; then
  echo "[c]   ASan+UBSan run passed ($(( $(date +%s) - start ))s)"
else
  echo "[c]   ASan+UBSan run FAILED (exit ${PIPESTATUS[0]}; log: /tmp/af-c-asan.log)"
  failed=1
fi

echo
echo "[c] run 2/2: valgrind memcheck"
VG_THREAD_CALLS="${AF_VALGRIND_THREAD_CALLS:-2000}"
VG_STRESS_CALLS="${AF_VALGRIND_STRESS_CALLS:-4000}"
# valgrind runs one thread at a time: the timeout test's bound (1 s natively) is 3 s here
VG_TIMEOUT_BOUND_MS="${AF_VALGRIND_TIMEOUT_BOUND_MS:-3000}"
echo "[c]   counts: AF_THREAD_CALLS=$VG_THREAD_CALLS (x8 threads), AF_STRESS_CALLS=$VG_STRESS_CALLS (x8 threads) — reduced for valgrind; AF_TIMEOUT_BOUND_MS=$VG_TIMEOUT_BOUND_MS"
start=$(date +%s)
if AF_THREAD_CALLS="$VG_THREAD_CALLS" AF_STRESS_CALLS="$VG_STRESS_CALLS" AF_TEST_TIMEOUT=600 AF_TIMEOUT_BOUND_MS="$VG_TIMEOUT_BOUND_MS" \
   valgrind --quiet --error-exitcode=1 --leak-check=full \
     --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
     --fair-sched=yes --child-silent-after-fork=yes \
     "$BUILD/plain/af_harness" 2>&1 | tee /tmp/af-c-valgrind.log; then
  echo "[c]   valgrind run passed: 0 errors, no definite/indirect leaks ($(( $(date +%s) - start ))s)"
else
  echo "[c]   valgrind run FAILED (exit ${PIPESTATUS[0]}; log: /tmp/af-c-valgrind.log)"
  failed=1
fi

# every function the header exports is exercised by the harness
missing=$(echo "$declared" | while read -r f; do
  grep -qE "\b$f\(" tests/c/*.c || echo "$f"; done)
if [[ -n "$missing" ]]; then
  echo "[c] exported functions the harness does not call: $(echo $missing)"
  failed=1
fi

echo
if [[ $failed -ne 0 ]]; then echo "[c] FAILED"; exit 1; fi
echo "[c] passed: ASan+UBSan (full counts) and valgrind memcheck (reduced counts)"
