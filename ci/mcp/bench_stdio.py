#!/usr/bin/env python3
"""Stdio round-trip benchmark for any MCP server, raw newline-delimited JSON-RPC.

    bench_stdio.py [--iters N] [--warmup N] [--tool NAME] [--args JSON] -- SERVER_CMD [ARGS...]

Spawns the server, does the 2025-11-25 initialize handshake (+ initialized
notification), then sends tools/call one at a time (each request written only
after the previous response arrived) and times every round trip. No SDK on
the client side, so the number is (nearly) all server + pipe cost; run it on
ci/mcp/fastmcp_demo.py and on `demo mcp` for a like-for-like comparison.
Prints one JSON object: median/mean/p90/p99 microseconds per call.
Standard library only.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import time


def main() -> int:
    argv = sys.argv[1:]
    if "--" not in argv:
        print(__doc__, file=sys.stderr)
        return 2
    i = argv.index("--")
    p = argparse.ArgumentParser()
    p.add_argument("--iters", type=int, default=5000)
    p.add_argument("--warmup", type=int, default=500)
    p.add_argument("--tool", default="create_order")
    p.add_argument("--args", default='{"customer":"Ada Lovelace","quantity":3,"priority":"High"}')
    p.add_argument("--show-server-stderr", action="store_true")
    ns = p.parse_args(argv[:i])
    cmd = argv[i + 1:]
    tool_args = json.loads(ns.args)

    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=None if ns.show_server_stderr else subprocess.DEVNULL, bufsize=0)
    wfd = proc.stdin.fileno()

    reader = io.BufferedReader(proc.stdout, buffer_size=1 << 16)

    def send(obj: dict) -> None:
        data = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
        while data:
            data = data[os.write(wfd, data):]

    def wait_for(mid: int) -> dict:
        while True:
            line = reader.readline()
            if not line:
                raise SystemExit(f"server closed stdout (exit code {proc.poll()}) while waiting for id {mid}")
            if not line.strip():
                continue
            msg = json.loads(line)
            if msg.get("id") == mid and "method" not in msg:
                return msg
            # notifications or server->client requests are ignored

    try:
        send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "appfunctions-bench-stdio", "version": "0"}}})
        init = wait_for(0)
        if "error" in init:
            raise SystemExit(f"initialize failed: {init['error']}")
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        wait_for(1)

        mid = 1
        samples = []
        for n in range(ns.warmup + ns.iters):
            mid += 1
            req = {"jsonrpc": "2.0", "id": mid, "method": "tools/call",
                   "params": {"name": ns.tool, "arguments": tool_args}}
            t0 = time.perf_counter_ns()
            send(req)
            resp = wait_for(mid)
            dt = (time.perf_counter_ns() - t0) / 1000
            if "error" in resp or resp.get("result", {}).get("isError"):
                raise SystemExit(f"tools/call failed: {json.dumps(resp)[:300]}")
            if n >= ns.warmup:
                samples.append(dt)
    finally:
        try:
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()

    samples.sort()
    q = lambda f: round(samples[min(len(samples) - 1, int(len(samples) * f))], 1)  # noqa: E731
    print(json.dumps({
        "server": " ".join(cmd),
        "protocol": init["result"].get("protocolVersion"),
        "tool": ns.tool,
        "calls": ns.iters,
        "stdio_median_us": round(statistics.median(samples), 1),
        "stdio_mean_us": round(statistics.fmean(samples), 1),
        "stdio_p90_us": q(0.90),
        "stdio_p99_us": q(0.99),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
