#!/usr/bin/env python3
"""Peer test: the official Python MCP SDK (mcp 2.3.0) over Streamable HTTP, both eras.

    client_check.py URL

`mcp.Client(URL, mode=...)` once with `mode="legacy"` (the initialize handshake; the
session's GET stream carries list_changed) and once with `mode="auto"` (probes
server/discover and stays in 2026-07-28: stateless requests, a subscriptions/listen
stream). Checks per era: connect, tools/list across pages, valid, invalid and unknown
calls, the toolkit (expanding in the handshake era, routing in 2026-07-28),
list_changed, a cancelled call. Prints one line per check and `N passed, M failed`.
"""
from __future__ import annotations

import sys
import time
from typing import Any

import anyio
from mcp import Client, MCPError

passed = failed = 0


def check(name: str, ok: bool, detail: Any = "") -> bool:
    global passed, failed
    if ok:
        passed += 1
        print(f"PASS {name}" + (f" ({detail})" if detail != "" else ""), flush=True)
    else:
        failed += 1
        print(f"FAIL {name}: {detail}", flush=True)
    return ok


def texts(r: Any) -> str:
    return " | ".join(getattr(c, "text", "") for c in (r.content or []))


async def list_all(client: Client) -> tuple[list[str], int]:
    names: list[str] = []
    cursor = None
    pages = 0
    while True:
        page = await client.list_tools(cursor=cursor, cache_mode="refresh")
        names += [t.name for t in page.tools]
        pages += 1
        cursor = page.next_cursor
        if not cursor or pages > 50:
            return names, pages


async def suite(url: str, mode: str) -> None:
    tag = f"py[{mode}]"
    changes: list[Any] = []

    async def on_message(m: Any) -> None:
        if "ToolListChanged" in type(getattr(m, "root", m)).__name__ or "tools/list_changed" in repr(m):
            changes.append(m)

    try:
        async with Client(url, mode=mode, cache=None, message_handler=on_message) as client:  # type: ignore[arg-type]
            v = client.protocol_version
            modern = v == "2026-07-28"
            check(f"{tag} connect", (modern if mode == "auto" else v == "2025-11-25"), f"protocol {v}")
            names, pages = await list_all(client)
            check(f"{tag} tools/list follows cursors", pages > 1 and "create_order" in names and "orders" in names, f"{pages} pages: {','.join(names)}")
            ok = await client.call_tool("create_order", {"customer": "py", "quantity": 2})
            check(f"{tag} create_order succeeds", not ok.is_error and (ok.structured_content or {}).get("customer") == "py", texts(ok))
            bad = await client.call_tool("create_order", {"customer": "py", "quantity": "two"})
            check(f"{tag} a bad argument is a tool error naming it", bad.is_error and "quantity" in texts(bad), texts(bad))
            try:
                await client.call_tool("no_such_tool", {})
                check(f"{tag} an unknown tool is -32602", False, "got a result")
            except MCPError as e:
                check(f"{tag} an unknown tool is -32602", e.error.code == -32602, f"{e.error.code}: {e.error.message}")
            if not modern:
                r = await client.call_tool("orders", {})
                check(f"{tag} calling the container expands it", not r.is_error and "order_stats" in texts(r), texts(r))
                with anyio.move_on_after(10):
                    while not changes:
                        await anyio.sleep(0.05)
                check(f"{tag} notifications/tools/list_changed on the GET stream", bool(changes), f"{len(changes)} seen")
                names2, _ = await list_all(client)
                check(f"{tag} the members are listed after it", "order_stats" in names2 and "orders" not in names2, ",".join(names2))
            else:
                r = await client.call_tool("orders", {"tool": "order_stats", "arguments": {}})
                check(f"{tag} the container runs a member", not r.is_error, texts(r))
                names2, _ = await list_all(client)
                check(f"{tag} calls leave the stateless list as it was", names2 == names, ",".join(names2))
                async with client.listen(tools_list_changed=True) as sub:
                    check(f"{tag} subscriptions/listen is acknowledged", sub.honored is not None, repr(sub.honored))
            # cancel: give up waiting; the SDK cancels the request (notifications/cancelled in
            # the handshake era, closing the stream in 2026-07-28)
            t0 = time.monotonic()
            with anyio.move_on_after(0.5):
                await client.call_tool("wait", {"seconds": 30})
            check(f"{tag} a cancelled call ends early", time.monotonic() - t0 < 5, f"{time.monotonic() - t0:.1f} s")
            again = await client.call_tool("list_notes", {})
            check(f"{tag} the server still answers after the cancel", not again.is_error, texts(again)[:80])
    except Exception as e:  # noqa: BLE001
        check(f"{tag} suite", False, f"{type(e).__name__}: {e}")


async def main(url: str) -> None:
    import importlib.metadata as md

    print(f"python client: mcp {md.version('mcp')} streamable HTTP; server: {url}", flush=True)
    for mode in ("legacy", "auto"):
        await suite(url, mode)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    anyio.run(main, sys.argv[1])
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed or not passed else 0)
