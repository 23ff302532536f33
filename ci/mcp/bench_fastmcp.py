#!/usr/bin/env python3
"""Benchmark the official Python SDK's server (FastMCP, now `MCPServer`) on one tool.

    bench_fastmcp.py [--iters N] [--warmup N]

Times a `tools/call` of create_order, warmed up, with the official client:
  fastmcp_inprocess_us         in-memory client/server session pair (memory
                               streams + JSON-RPC session, the 2025-11-25 path)
  fastmcp_inprocess_direct_us  mcp 2.x in-process direct dispatch (2026-07-28
                               path, no framing) - the SDK's fastest route
  fastmcp_stdio_us             ci/mcp/fastmcp_demo.py spawned over stdio,
                               initialize handshake (2025-11-25)
  fastmcp_stdio_modern_us      same, after the server/discover probe (2026-07-28)
Values are medians in microseconds per call; `_p90` keys give the 90th
percentile. Prints one JSON object on stdout.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import anyio

from mcp import Client, StdioServerParameters, stdio_client

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fastmcp_demo import build_server  # noqa: E402

ARGS = {"customer": "Ada Lovelace", "quantity": 3, "priority": "High"}


async def time_calls(client: Client, iters: int, warmup: int) -> list[float]:
    for _ in range(warmup):
        r = await client.call_tool("create_order", ARGS)
        assert not r.is_error and r.structured_content, r
    out = []
    for _ in range(iters):
        t0 = time.perf_counter_ns()
        await client.call_tool("create_order", ARGS)
        out.append((time.perf_counter_ns() - t0) / 1000)
    return out


async def bench(target, mode: str, iters: int, warmup: int) -> list[float]:
    async with Client(target, mode=mode, cache=None) as client:
        await client.list_tools()  # clients list before calling; also primes output validation
        return await time_calls(client, iters, warmup)


async def amain(ns: argparse.Namespace) -> dict[str, float]:
    here = os.path.dirname(os.path.abspath(__file__))
    devnull = open(os.devnull, "w")
    stdio = StdioServerParameters(command=sys.executable, args=[os.path.join(here, "fastmcp_demo.py")],
                                  env=dict(os.environ))
    runs = {
        "fastmcp_inprocess_us": lambda: bench(build_server(), "legacy", ns.iters, ns.warmup),
        "fastmcp_inprocess_direct_us": lambda: bench(build_server(), "auto", ns.iters, ns.warmup),
        "fastmcp_stdio_us": lambda: bench(stdio_client(stdio, errlog=devnull), "legacy", ns.iters, ns.warmup),
        "fastmcp_stdio_modern_us": lambda: bench(stdio_client(stdio, errlog=devnull), "auto", ns.iters, ns.warmup),
    }
    result: dict[str, float] = {}
    for key, run in runs.items():
        samples = await run()
        samples.sort()
        result[key] = round(statistics.median(samples), 1)
        result[key.replace("_us", "_p90_us")] = round(samples[int(len(samples) * 0.9) - 1], 1)
    result["iters"] = ns.iters
    return result


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--iters", type=int, default=2000)
    p.add_argument("--warmup", type=int, default=200)
    ns = p.parse_args()
    print(json.dumps(anyio.run(amain, ns)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
