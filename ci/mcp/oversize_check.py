#!/usr/bin/env python3
"""A hostile client against a stdio MCP server: one huge line, then a valid request.

    oversize_check.py [--mb 300] [--max-rss-mb 64] -- SERVER_CMD [ARGS...]

Writes MB megabytes of 'x' without a newline to the server's stdin, then a newline and
a `ping` request. Expects the -32600 "more than the limit" error for the huge line, then
the ping's answer, and the server's peak resident memory (VmHWM in /proc) under
--max-rss-mb. Standard library only; Linux (reads /proc). Ends with the plain line
`N passed, M failed`.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time


def main() -> int:
    argv = sys.argv[1:]
    if "--" not in argv:
        print(__doc__, file=sys.stderr)
        return 2
    i = argv.index("--")
    p = argparse.ArgumentParser()
    p.add_argument("--mb", type=int, default=300)
    p.add_argument("--max-rss-mb", type=int, default=64)
    ns = p.parse_args(argv[:i])
    cmd = argv[i + 1:]
    passed = failed = 0

    def check(name: str, ok: bool, detail: str) -> None:
        nonlocal passed, failed
        if ok:
            passed += 1
            print(f"PASS {name} ({detail})", flush=True)
        else:
            failed += 1
            print(f"FAIL {name}: {detail}", flush=True)

    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    lines: list[str] = []
    got_two = threading.Event()

    def reader() -> None:
        for raw in proc.stdout:  # type: ignore[union-attr]
            lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
            if len(lines) >= 2:
                got_two.set()
        got_two.set()

    threading.Thread(target=reader, daemon=True).start()
    peak_kib = 0

    def sample() -> None:
        nonlocal peak_kib
        try:
            with open(f"/proc/{proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak_kib = max(peak_kib, int(line.split()[1]))
        except OSError:
            pass

    chunk = b"x" * (1 << 20)
    t0 = time.monotonic()
    try:
        for _ in range(ns.mb):
            proc.stdin.write(chunk)  # type: ignore[union-attr]
        proc.stdin.write(b'\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n')  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
    except BrokenPipeError:
        pass
    got_two.wait(timeout=120)
    took = time.monotonic() - t0
    sample()
    try:
        proc.stdin.close()  # type: ignore[union-attr]
    except OSError:
        pass
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()

    first = json.loads(lines[0]) if lines else {}
    second = json.loads(lines[1]) if len(lines) > 1 else {}
    err = first.get("error", {})
    check("oversize: the huge line gets -32600 naming the limit",
          err.get("code") == -32600 and "more than the limit" in err.get("message", ""),
          json.dumps(first)[:200])
    check("oversize: the next request is answered",
          second.get("id") == 1 and "result" in second, json.dumps(second)[:200])
    check(f"oversize: peak resident memory under {ns.max_rss_mb} MB",
          0 < peak_kib < ns.max_rss_mb * 1024,
          f"{ns.mb} MB line: peak RSS {peak_kib / 1024:.1f} MB, {took:.1f} s")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
