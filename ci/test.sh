#!/usr/bin/env bash
# Runs every test lane available on this machine, or the lanes named:
#   ci/test.sh                 all lanes
#   ci/test.sh rust c header   just these
# Each lane is ci/lanes/NAME.sh and exits 0 (passed), 1 (failed) or 3 (cannot run here,
# with the reason printed loudly). The summary lists what ran and what could not.
# AF_REQUIRE_ALL_LANES=1 turns "cannot run" into a failure.
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export REPO
cd "$REPO"
# where crates, wheels, Maven artifacts and tools come from (decided once, inherited by lanes)
source "$REPO/ci/env.sh"
af_cargo_setup || echo "!!! cargo cannot resolve crates here: the lanes that build Rust will fail" >&2

ALL_LANES=(rust header c schema mcp http browser kotlin swift dotnet dist fuzz miri soak)
if [[ $# -gt 0 ]]; then LANES=("$@"); else LANES=("${ALL_LANES[@]}"); fi

declare -a PASSED=() FAILED=() UNAVAILABLE=()
declare -A SECONDS_OF=()
for lane in "${LANES[@]}"; do
  script="$REPO/ci/lanes/$lane.sh"
  if [[ ! -f "$script" ]]; then
    echo "ci/test.sh: no such lane '$lane' (have: ${ALL_LANES[*]})" >&2
    FAILED+=("$lane"); continue
  fi
  echo
  echo "════════ lane $lane ════════"
  start=$(date +%s)
  bash "$script"
  rc=$?
  SECONDS_OF[$lane]=$(( $(date +%s) - start ))
  case $rc in
    0) PASSED+=("$lane") ;;
    3) UNAVAILABLE+=("$lane") ;;
    *) FAILED+=("$lane") ;;
  esac
done

echo
echo "════════ summary ════════"
for l in "${PASSED[@]}"; do printf '  passed        %-8s (%ss)\n' "$l" "${SECONDS_OF[$l]}"; done
for l in "${FAILED[@]}"; do printf '  FAILED        %-8s (%ss)\n' "$l" "${SECONDS_OF[$l]:-0}"; done
for l in "${UNAVAILABLE[@]}"; do printf '  COULD NOT RUN %-8s (see its message above)\n' "$l"; done
if [[ ${#UNAVAILABLE[@]} -gt 0 ]]; then
  echo "  !!! ${#UNAVAILABLE[@]} lane(s) could not run on this machine: ${UNAVAILABLE[*]}"
fi
echo "lanes: ${#PASSED[@]} passed, ${#FAILED[@]} failed, ${#UNAVAILABLE[@]} skipped"
if [[ ${#FAILED[@]} -gt 0 ]]; then exit 1; fi
if [[ ${#UNAVAILABLE[@]} -gt 0 && "${AF_REQUIRE_ALL_LANES:-0}" == "1" ]]; then exit 1; fi
exit 0
