#!/usr/bin/env python3
"""Peer test: the official Python MCP SDK client against a stdio MCP server.

    client_check.py [--mode auto|legacy|both] [--quiet-server] -- SERVER_CMD [ARGS...]

Spawns SERVER_CMD over stdio with `mcp.Client` and checks the demo's tool
surface. `--mode auto` is what a default mcp 2.x client does (probe
`server/discover`, fall back to `initialize`); `legacy` forces the initialize
handshake; `both` (the default) runs the whole suite once per mode, each with
a fresh server process. Prints one line per check and ends with the plain
line `N passed, M failed`; exits 1 on any failure (2 on usage errors).

Run it with the venv from ci/mcp/setup.sh (ci/.cache/mcp-venv/bin/python).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import traceback
from typing import Any

import anyio
import jsonschema
from jsonschema import Draft202012Validator

from mcp import Client, MCPError, StdioServerParameters, stdio_client

EXPECTED_TOOLS = ["create_order", "cancel_order", "list_notes", "create_note", "edit_note", "search_order"]
SIGN_IN_TEXT = "Sign in to cancel orders."
# 2025-11-25 tool-name rule: 1..128 chars of ASCII letters, digits, '_', '-', '.'.
TOOL_NAME_RE = re.compile(r"^[A-Za-z0-9_.\-]{1,128}$")
STEP_TIMEOUT = float(os.environ.get("MCP_CHECK_STEP_TIMEOUT", "30"))
CONNECT_TIMEOUT = float(os.environ.get("MCP_CHECK_CONNECT_TIMEOUT", "60"))
# mcp 2.x waits up to 10 s for a server/discover answer before falling back;
# a connect slower than this means the server swallowed the probe silently.
PROBE_SLOW_SECONDS = 8.0


class Report:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def ok(self, name: str, detail: str = "") -> None:
        self.passed += 1
        print(f"PASS {name}" + (f" ({detail})" if detail else ""), flush=True)

    def bad(self, name: str, detail: str) -> None:
        self.failed += 1
        print(f"FAIL {name}: {detail}", flush=True)

    def check(self, name: str, cond: bool, detail: str = "", fail_detail: str = "") -> bool:
        if cond:
            self.ok(name, detail)
        else:
            self.bad(name, fail_detail or detail or "condition false")
        return cond


def texts(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") for c in (result.content or []) if getattr(c, "type", None) == "text")


def short(s: str, n: int = 160) -> str:
    s = s.replace("\n", " | ")
    return s if len(s) <= n else s[: n - 3] + "..."


async def run_suite(mode: str, cmd: list[str], quiet_server: bool, rep: Report) -> None:
    tag = f"py[{mode}]"
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=dict(os.environ))
    errlog = open(os.devnull, "w") if quiet_server else sys.stderr
    t0 = time.monotonic()
    connected = False
    try:
        # One deadline around the whole session: the cancel scope must be
        # entered and exited around the same `async with` (anyio rule).
        with anyio.fail_after(CONNECT_TIMEOUT + 20 * STEP_TIMEOUT):
            async with Client(stdio_client(params, errlog=errlog), mode=mode, cache=None) as client:  # type: ignore[arg-type]
                connected = True
                took = time.monotonic() - t0
                rep.ok(f"{tag} connect", f"protocol {client.session.protocol_version}, {took * 1000:.0f} ms")
                if mode == "auto":
                    rep.check(
                        f"{tag} server/discover probe answered promptly",
                        took < PROBE_SLOW_SECONDS,
                        f"{took:.1f}s",
                        f"connect took {took:.1f}s: the server likely ignored `server/discover` instead of "
                        "answering it (a -32601 error makes the client fall back to initialize at once)",
                    )
                await checks(tag, client, rep)
    except BaseException as e:  # noqa: BLE001 - report every failure as a check line
        if isinstance(e, KeyboardInterrupt):
            raise
        what = "suite aborted" if connected else "connect"
        detail = f"{type(e).__name__}: {e}"
        if connected:
            detail += "\n" + traceback.format_exc()
        rep.bad(f"{tag} {what}", detail)


async def checks(tag: str, client: Client, rep: Report) -> None:
    # ---- tools/list (follow pagination cursors) ----
    tools: list[Any] = []
    cursor: str | None = None
    pages = 0
    with anyio.fail_after(STEP_TIMEOUT):
        while True:
            page = await client.list_tools(cursor=cursor, cache_mode="refresh")
            pages += 1
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor or pages > 100:
                break
    names = [t.name for t in tools]
    missing = [n for n in EXPECTED_TOOLS if n not in names]
    rep.check(f"{tag} tools/list has the demo tools", not missing,
              f"{len(tools)} tools in {pages} page(s)", f"missing {missing}; got {names}")
    rep.check(f"{tag} tool names unique", len(set(names)) == len(names), fail_detail=f"{names}")
    bad_names = [n for n in names if not TOOL_NAME_RE.match(n)]
    rep.check(f"{tag} tool names follow the 2025-11-25 rule", not bad_names, fail_detail=f"{bad_names}")

    by_name = {t.name: t for t in tools}
    for t in tools:
        for kind, schema in (("inputSchema", t.input_schema), ("outputSchema", t.output_schema)):
            if schema is None:
                if kind == "inputSchema":
                    rep.bad(f"{tag} {t.name}.{kind} meta-schema 2020-12", "missing")
                continue
            name = f"{tag} {t.name}.{kind} meta-schema 2020-12"
            try:
                Draft202012Validator.check_schema(schema)
            except jsonschema.SchemaError as e:
                rep.bad(name, f"{e.message} at {list(e.absolute_path)}")
                continue
            if schema.get("type") != "object":
                rep.bad(name, f'root "type" must be "object", got {schema.get("type")!r}')
                continue
            rep.ok(name)

    # ---- create_order: structuredContent valid against outputSchema ----
    args = {"customer": "Ada Lovelace", "quantity": 3, "priority": "High"}
    with anyio.fail_after(STEP_TIMEOUT):
        res = await client.call_tool("create_order", args)
    name = f"{tag} create_order structuredContent matches outputSchema"
    out_schema = by_name["create_order"].output_schema if "create_order" in by_name else None
    if res.is_error:
        rep.bad(name, f"isError: {short(texts(res))}")
    elif res.structured_content is None:
        rep.bad(name, "no structuredContent")
    elif out_schema is None:
        rep.bad(name, "create_order has no outputSchema")
    else:
        errs = sorted(Draft202012Validator(out_schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
                      .iter_errors(res.structured_content), key=lambda e: list(e.path))
        rep.check(name, not errs, short(json.dumps(res.structured_content)),
                  "; ".join(f"{list(e.path)}: {e.message}" for e in errs[:3]))
        # Spec: a tool returning structured content SHOULD also return it serialized in a
        # text block (other blocks, e.g. the dialog, may follow).
        t = texts(res)
        same = False
        for block in res.content:
            try:
                same = same or json.loads(getattr(block, "text", "")) == res.structured_content
            except ValueError:
                pass
        rep.check(f"{tag} create_order text block mirrors structuredContent", same,
                  fail_detail=f"text content was {short(t)!r}")

    # ---- cancel_order while signed out (an order that exists: the one just created) ----
    created = res.structured_content if isinstance(getattr(res, "structured_content", None), dict) else {}
    order_id = created.get("id", "order-1")
    with anyio.fail_after(STEP_TIMEOUT):
        res = await client.call_tool("cancel_order", {"order": order_id})
    t = texts(res)
    rep.check(f"{tag} cancel_order signed out -> isError with sign-in message",
              bool(res.is_error) and SIGN_IN_TEXT in t, short(t),
              f"isError={res.is_error}, text={short(t)!r}")

    # ---- unknown tool -> JSON-RPC protocol error ----
    name = f"{tag} unknown tool -> protocol error"
    try:
        with anyio.fail_after(STEP_TIMEOUT):
            res = await client.call_tool("no_such_tool_xyz", {})
        rep.bad(name, f"got a result instead (isError={res.is_error}, text={short(texts(res))!r})")
    except MCPError as e:
        code = e.error.code
        rep.check(name, code == -32602, f"code {code}: {short(e.error.message)}",
                  f"expected -32602 (Invalid params), got {code}: {e.error.message}")

    # ---- bad arguments -> self-correctable isError ----
    bad_cases = [
        ("wrong type", {"customer": "Ada", "quantity": "lots", "priority": "High"}, "quantity"),
        ("bad enum value", {"customer": "Ada", "quantity": 1, "priority": "Urgent"}, "priority"),
        ("missing required", {"customer": "Ada", "priority": "Low"}, "quantity"),
    ]
    for label, bad, field in bad_cases:
        name = f"{tag} bad argument ({label}) -> isError naming '{field}'"
        try:
            with anyio.fail_after(STEP_TIMEOUT):
                res = await client.call_tool("create_order", bad)
        except MCPError as e:
            rep.bad(name, f"protocol error {e.error.code} ({short(e.error.message)}); since 2025-11-25 input "
                          "validation failures are tool execution errors (isError) so the model can retry")
            continue
        t = texts(res)
        rep.check(name, bool(res.is_error) and field in t, short(t),
                  f"isError={res.is_error}, text={short(t)!r}")


async def amain(ns: argparse.Namespace) -> int:
    rep = Report()
    modes = ["auto", "legacy"] if ns.mode == "both" else [ns.mode]
    import mcp  # noqa: F401

    from importlib.metadata import version as pkg_version
    print(f"python client: mcp {pkg_version('mcp')}, jsonschema {pkg_version('jsonschema')}; "
          f"server: {' '.join(ns.cmd)}", flush=True)
    for mode in modes:
        await run_suite(mode, ns.cmd, ns.quiet_server, rep)
    print(f"{rep.passed} passed, {rep.failed} failed", flush=True)
    return 1 if rep.failed or not rep.passed else 0


def main() -> int:
    argv = sys.argv[1:]
    if "--" not in argv:
        print(__doc__, file=sys.stderr)
        return 2
    i = argv.index("--")
    p = argparse.ArgumentParser(description="MCP peer test with the official Python SDK client")
    p.add_argument("--mode", choices=["auto", "legacy", "both"], default="both")
    p.add_argument("--quiet-server", action="store_true", help="discard the server's stderr")
    ns = p.parse_args(argv[:i])
    ns.cmd = argv[i + 1:]
    if not ns.cmd:
        print("missing server command after --", file=sys.stderr)
        return 2
    return anyio.run(amain, ns)


if __name__ == "__main__":
    sys.exit(main())
