#!/usr/bin/env python3
"""Peer test of agent views over MCP with the official Python SDK client:

    list_changed_check.py -- SERVER_CMD [ARGS...]

Lists the tools (the demo's `orders` toolkit is one collapsed container), calls the
container, waits for `notifications/tools/list_changed`, and lists again: the
container is gone and its members are there. Uses the initialize handshake
(`mode="legacy"`): in the stateless 2026-07-28 revision change notifications travel
only on `subscriptions/listen` streams, which the server does not offer yet.
Ends with the plain line `N passed, M failed`.
"""
from __future__ import annotations

import os
import sys

import anyio
from mcp import Client, StdioServerParameters, stdio_client
from mcp import types


async def main(cmd: list[str]) -> int:
    passed = failed = 0

    def check(name: str, ok: bool, detail: str = "") -> None:
        nonlocal passed, failed
        if ok:
            passed += 1
            print(f"PASS {name}" + (f" ({detail})" if detail else ""), flush=True)
        else:
            failed += 1
            print(f"FAIL {name}: {detail}", flush=True)

    changed = anyio.Event()

    async def on_message(message) -> None:  # noqa: ANN001
        if isinstance(message, types.ServerNotification) and getattr(message, "method", "") == "notifications/tools/list_changed":
            changed.set()
        elif isinstance(getattr(message, "root", None), types.ToolListChangedNotification):
            changed.set()
        elif type(message).__name__ == "ToolListChangedNotification":
            changed.set()

    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=dict(os.environ))
    with anyio.fail_after(60):
        async with Client(stdio_client(params, errlog=open(os.devnull, "w")), mode="legacy", cache=None,
                          message_handler=on_message) as client:  # type: ignore[arg-type]
            before = [t.name for t in (await client.list_tools(cache_mode="refresh")).tools]
            check("py[views] the collapsed toolkit is one container", "orders" in before and "order_stats" not in before, str(before))
            res = await client.call_tool("orders", {})
            text = "\n".join(getattr(c, "text", "") for c in res.content)
            check("py[views] calling the container returns its functionResult", not res.is_error and "order_stats" in text, text[:120])
            check("py[views] the toolkit's instructions come back as text", "CRITICAL" in text, text[:200])
            try:
                with anyio.fail_after(10):
                    await changed.wait()
                check("py[views] notifications/tools/list_changed received", True)
            except TimeoutError:
                check("py[views] notifications/tools/list_changed received", False, "no notification within 10 s")
            after = [t.name for t in (await client.list_tools(cache_mode="refresh")).tools]
            check("py[views] after expansion the members are listed", "order_stats" in after and "orders" not in after, str(after))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    argv = sys.argv[1:]
    if "--" not in argv:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(anyio.run(main, argv[argv.index("--") + 1:]))
