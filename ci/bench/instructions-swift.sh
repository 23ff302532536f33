#!/usr/bin/env bash
# The Swift binding's instruction counts (issue 30), exact on a busy machine where its
# wall-clock figures are not: callgrind counts the programs of bindings/swift/Benchmarks,
# built in release against LIB.
#   RoundTrip     per call, for each ROUNDTRIP_MODE (typed, raw, figure, async, blocking,
#                 blocking-raw, delegate, async-delegate, telemetry, realistic): the
#                 difference of two runs of different ROUNDTRIP_CALLS over their difference
#                 (what starting the process costs cancels out)
#   RegisterOnly  the demo app of 50 functions registered (COLDSTART_FUNCTIONS), the whole
#                 process; and per function past the 50th (100 against 50, over 50); and the
#                 registration step of 50 alone (--toggle-collect on the demo's registerApp),
#                 with the part of it inside the core's own af_* calls (the calls the binding
#                 makes into the library, counted inclusively)
# into OUT (JSON: instructions_swift_<mode>, instructions_swift_register_50,
# instructions_swift_register_per_function, instructions_swift_register_step_50,
# instructions_swift_register_step_50_core). ci/bench.sh runs it with the bindings.
#
#   ci/bench/instructions-swift.sh [OUT.json]
#
# valgrind must be 3.20 or newer where the programs run: 3.19 (Debian bookworm's) crashes on
# libdispatch. With `swift` on PATH the host's valgrind is used (this script says so and
# measures nothing when it is older); in the swift lane's Debian trixie chroot
# (ci/lanes/swift.sh, as root) this script installs trixie's valgrind into the chroot with
# apt-get when it is missing or older, and says so loudly when it cannot.
# Environment: REPO, LIB (default target/release/libappfunctions.so, built when missing),
# SWIFT_INSTRUCTIONS_CALLS (the two call counts, default "2000 4000").
set -euo pipefail
REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
OUT_JSON="${1:-$REPO/target/bench/instructions_swift.json}"
# the registration step's callgrind output, read here after the run (inside the repository:
# the swift lane's chroot mounts it at the same path)
STEP_CG="$REPO/target/bench/instructions-swift-register-step.callgrind"
# RegisterOnly's registerApp(_:functions:) (bindings/swift/Benchmarks/Sources/DemoApp), mangled
STEP_FN='$s7DemoApp08registerB0_9functionsy0B9Functions0B18FunctionDispatcherC_SitKF'
LIB="${LIB:-$REPO/target/release/libappfunctions.so}"
PKG="$REPO/bindings/swift/Benchmarks"
CHROOT="${SWIFT_LANE_CHROOT:-/var/cache/appfunctions/swift-trixie}"
read -r N1 N2 <<<"${SWIFT_INSTRUCTIONS_CALLS:-2000 4000}"
MODES="typed raw figure async blocking blocking-raw delegate async-delegate telemetry realistic"
mkdir -p "$(dirname "$OUT_JSON")" "$(dirname "$STEP_CG")"
echo "{}" >"$OUT_JSON"
loud() {
  printf '\n!!! %s\n!!! the Swift instruction counts are not measured in this run\n\n' "$*" >&2
  exit 0
}
if [[ ! -f "$LIB" && "$LIB" == "$REPO/target/release/libappfunctions.so" ]]; then
  # shellcheck source=ci/env.sh
  (source "$REPO/ci/env.sh" && af_cargo_setup && cargo build -q --release --lib --manifest-path "$REPO/Cargo.toml") \
    || loud "cargo build --release of the library failed"
fi
[[ -f "$LIB" ]] || loud "no library at $LIB"
LIB_DIR="$(cd "$(dirname "$LIB")" && pwd)"

# What runs where the programs run (the host, or the chroot through a lane shell): prints
# `COUNT <what> <n> <instructions>` lines, or `NOVALGRIND <reason>`.
measure_script() { # measure_script BIN_DIR
  local bin="$1"
  cat <<EOF
set -u
count() { # count FILE: the instructions of a callgrind output
  sed -n 's/^totals: *\([0-9]*\).*/\1/p' "\$1" | head -n1
}
for mode in $MODES; do
  for n in $N1 $N2; do
    f=/tmp/af-swift-callgrind.\$mode.\$n
    ROUNDTRIP_MODE=\$mode ROUNDTRIP_CALLS=\$n valgrind --tool=callgrind --callgrind-out-file=\$f $bin/RoundTrip >/dev/null 2>/tmp/af-swift-callgrind.log \
      && echo "COUNT \$mode \$n \$(count \$f)" || { echo "FAILED \$mode \$n"; tail -n 5 /tmp/af-swift-callgrind.log; }
  done
done
for n in 50 100; do
  f=/tmp/af-swift-callgrind.register.\$n
  COLDSTART_FUNCTIONS=\$n valgrind --tool=callgrind --callgrind-out-file=\$f $bin/RegisterOnly >/dev/null 2>/tmp/af-swift-callgrind.log \
    && echo "COUNT register \$n \$(count \$f)" || { echo "FAILED register \$n"; tail -n 5 /tmp/af-swift-callgrind.log; }
done
rm -f "$STEP_CG"
COLDSTART_FUNCTIONS=50 valgrind --tool=callgrind --collect-atstart=no '--toggle-collect=$STEP_FN' --callgrind-out-file="$STEP_CG" $bin/RegisterOnly >/dev/null 2>/tmp/af-swift-callgrind.log \
  || { echo "FAILED register-step 50"; tail -n 5 /tmp/af-swift-callgrind.log; }
EOF
}

# valgrind >= 3.20 here, else installs it with apt-get when it may (the chroot): prints
# NOVALGRIND and a reason when there is none.
valgrind_script() { # valgrind_script may_install
  cat <<EOF
ok() { command -v valgrind >/dev/null 2>&1 && valgrind --version | awk -F'[-.]' '{ exit !(\$2 > 3 || (\$2 == 3 && \$3 >= 20)) }'; }
if ! ok; then
  if [ "$1" = 1 ]; then
    echo "[swift instructions] installing valgrind in the chroot (apt-get; 3.19 crashes on libdispatch)" >&2
    (DEBIAN_FRONTEND=noninteractive apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends valgrind && apt-get clean) >/tmp/af-swift-valgrind-install.log 2>&1 \
      || { tail -n 5 /tmp/af-swift-valgrind-install.log >&2; echo "NOVALGRIND apt-get install valgrind failed in the chroot"; exit 0; }
    ok || { echo "NOVALGRIND the chroot's valgrind is \$(valgrind --version 2>&1), 3.20 or newer is needed"; exit 0; }
  else
    echo "NOVALGRIND valgrind is \$(valgrind --version 2>&1 || echo missing) here, 3.20 or newer is needed (3.19 crashes on libdispatch)"
    exit 0
  fi
fi
echo "[swift instructions] \$(valgrind --version)" >&2
EOF
}

if command -v swift >/dev/null 2>&1; then
  (cd "$PKG" && swift build -c release --product RoundTrip -Xlinker -L"$LIB_DIR" -Xlinker -rpath -Xlinker "$LIB_DIR" -Xcc -I"$REPO/include" \
    && swift build -c release --product RegisterOnly -Xlinker -L"$LIB_DIR" -Xlinker -rpath -Xlinker "$LIB_DIR" -Xcc -I"$REPO/include") >&2 \
    || loud "swift build of $PKG failed"
  BIN="$(cd "$PKG" && swift build -c release --show-bin-path)"
  result="$( { valgrind_script 0; measure_script "$BIN"; } | LD_LIBRARY_PATH="$LIB_DIR" bash)"
elif [[ "$(id -u)" == 0 && -f "$CHROOT/.appfunctions-swift-lane-ready" ]]; then
  scratch="/var/tmp/swift-lane-build/instructions-$(printf '%s' "$PKG" | sha256sum | cut -c1-16)"
  result="$( { valgrind_script 1
    echo "cd $PKG || exit 1"
    echo "swift build -c release --product RoundTrip --scratch-path $scratch -Xcc -I$REPO/include -Xlinker -L$LIB_DIR -Xlinker -rpath -Xlinker $LIB_DIR >&2 || { echo 'FAILED build'; exit 0; }"
    echo "swift build -c release --product RegisterOnly --scratch-path $scratch -Xcc -I$REPO/include -Xlinker -L$LIB_DIR -Xlinker -rpath -Xlinker $LIB_DIR >&2 || { echo 'FAILED build'; exit 0; }"
    measure_script "$scratch/release"
  } | SWIFT_LANE_SHELL=1 SWIFT_LANE_BUILD_NATIVE=0 bash "$REPO/ci/lanes/swift.sh" "$PKG" "$LIB_DIR")" \
    || loud "the swift lane's shell in the chroot failed"
else
  loud "no Swift toolchain: no swift on PATH and no swift lane chroot at $CHROOT (run ci/lanes/swift.sh once, as root)"
fi
if grep -q '^NOVALGRIND' <<<"$result"; then
  loud "$(sed -n 's/^NOVALGRIND //p' <<<"$result" | head -n1)"
fi
grep -q '^FAILED build' <<<"$result" && loud "swift build of $PKG failed (above)"
if grep -q '^FAILED' <<<"$result"; then
  printf '!!! %s\n' "$(grep -A5 '^FAILED' <<<"$result")" >&2
fi
counts_file="$(mktemp)"
trap 'rm -f "$counts_file"' EXIT
printf '%s\n' "$result" >"$counts_file"
python3 - "$OUT_JSON" "$N1" "$N2" "$counts_file" "$STEP_CG" <<'PY'
import json, os, re, sys
out, n1, n2 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
counts = {}
for line in open(sys.argv[4]):
    p = line.split()
    if len(p) == 4 and p[0] == "COUNT" and p[3].isdigit():
        counts[(p[1], int(p[2]))] = int(p[3])
figures = {}
for mode in ("typed", "raw", "figure", "async", "blocking", "blocking-raw", "delegate", "async-delegate", "telemetry",
             "realistic"):
    if (mode, n1) in counts and (mode, n2) in counts:
        per = (counts[(mode, n2)] - counts[(mode, n1)]) / (n2 - n1)
        figures[f"instructions_swift_{mode.replace('-', '_')}"] = round(per)
        print(f"swift {mode}: {per:,.0f} instructions per call")
if ("register", 50) in counts:
    figures["instructions_swift_register_50"] = counts[("register", 50)]
    print(f"swift register 50 (the whole process): {counts[('register', 50)]:,}")
    if ("register", 100) in counts:
        per = (counts[("register", 100)] - counts[("register", 50)]) / 50
        figures["instructions_swift_register_per_function"] = round(per)
        print(f"swift register, per function past the 50th: {per:,.0f}")
# The registration step alone: its total, and what the calls the binding makes into the core
# (af_* called from outside af_*) cost inclusively.
step = sys.argv[5]
if os.path.exists(step):
    # (callgrind compresses names to "(id)" after their first use, one table each for
    # functions, files and objects)
    names, total, core, fn, cfn, call = {"fn": {}, "fl": {}, "ob": {}}, None, 0, None, None, False
    def name(table, v):
        m = re.match(r"\((\d+)\)(?: (.*))?$", v)
        if not m:
            return v
        if m.group(2) is not None:
            names[table][m.group(1)] = m.group(2)
        return names[table].get(m.group(1), "")
    for line in open(step):
        line = line.rstrip("\n")
        key, _, value = line.partition("=")
        if line.startswith("totals:") or line.startswith("summary:"):
            total = int(line.split()[1])
        elif key == "fn":
            fn = name("fn", value)
        elif key == "cfn":
            cfn = name("fn", value)
        elif key in ("fl", "fi", "fe", "cfi", "cfl"):
            name("fl", value)
        elif key in ("ob", "cob"):
            name("ob", value)
        elif key == "calls":
            call = True
        elif call and line[:1] and (line[:1].isdigit() or line[:1] in "+-*"):
            call = False
            if cfn.startswith("af_") and not fn.startswith("af_"):
                core += int(line.split()[-1])
    if total and core:
        figures["instructions_swift_register_step_50"] = total
        figures["instructions_swift_register_step_50_core"] = core
        print(f"swift register step of 50 (registerApp alone): {total:,}, the core's af_* calls {core:,} "
              f"({total / core:.2f}x)")
    else:
        print("!!! the registration step counted nothing (did registerApp's mangled name change?)", file=sys.stderr)
json.dump(figures, open(out, "w"), indent=1)
if not figures:
    print("!!! no Swift instruction count was measured", file=sys.stderr)
PY
