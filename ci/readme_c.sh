#!/usr/bin/env bash
# The README's C examples cannot rot: every ```c block of README.md is compiled on its
# own (C99 and C++11, -Wall -Wextra -pedantic -Werror); the one with main() is built with
# the README's own compile and link line (the ```sh block that links -lappfunctions, run
# as written in a scratch directory whose include/ and target/ point at this repository)
# and run, and its output must show a successful outcome.
# Needs target/release/libappfunctions.so (cargo build --release). Exit 0 or 1.
set -euo pipefail
REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
CC="${CC:-cc}"
CXX="${CXX:-c++}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
awk -v dir="$tmp" '
  /^```c[[:space:]]*$/ { n++; out = sprintf("%s/block%d.c", dir, n); inside = 1; next }
  /^```sh[[:space:]]*$/ { m++; sout = sprintf("%s/shell%d.sh", dir, m); sinside = 1; next }
  /^```/ { inside = 0; sinside = 0; next }
  inside { print > out }
  sinside { print > sout }
' "$REPO/README.md"
shopt -s nullglob
blocks=("$tmp"/block*.c)
[[ ${#blocks[@]} -gt 0 ]] || { echo "[readme] README.md has no C block" >&2; exit 1; }
main=""
for b in "${blocks[@]}"; do
  name="README C block $(basename "$b" .c | tr -dc 0-9)"
  "$CC" -std=c99 -Wall -Wextra -pedantic -Werror -I "$REPO/include" -c "$b" -o "$b.o" \
    || { echo "[readme] $name does not compile as C99" >&2; exit 1; }
  cp "$b" "$b.cpp"
  "$CXX" -std=c++11 -Wall -Wextra -pedantic -Werror -I "$REPO/include" -c "$b.cpp" -o "$b.cpp.o" \
    || { echo "[readme] $name does not compile as C++11" >&2; exit 1; }
  if grep -q 'int main' "$b"; then main="$b"; fi
  echo "[readme] $name compiles"
done
[[ -n "$main" ]] || { echo "[readme] no README C block has main()" >&2; exit 1; }
link=""
for s in "$tmp"/shell*.sh; do grep -q -- '-lappfunctions' "$s" && { link="$s"; break; }; done
[[ -n "$link" ]] || { echo "[readme] no README sh block links -lappfunctions" >&2; exit 1; }
work="$tmp/host"; mkdir -p "$work"
ln -s "$REPO/include" "$work/include"; ln -s "$REPO/target" "$work/target"
cp "$main" "$work/example.c"
# the README's lines as written (cargo build already ran: it needs the repository)
grep -v '^cargo build' "$link" > "$work/build.sh"
echo "[readme] building and running the main example with the README's commands:"
sed 's/^/[readme]   /' "$work/build.sh"
out=$(cd "$work" && CC="$CC" bash -e build.sh 2>&1) || { echo "$out"; echo "[readme] the README's build or run failed" >&2; exit 1; }
echo "$out" | sed 's/^/[readme]   | /'
grep -q '"status":"success"' <<<"$out" || { echo "[readme] the main example did not print a success outcome" >&2; exit 1; }
echo "[readme] the README's C examples compile, link and run"
