#!/usr/bin/env python3
"""Peer test of agent views over MCP with the official Python SDK client:

    list_changed_check.py -- SERVER_CMD [ARGS...]

Both eras:
- handshake (`mode="legacy"`): lists the tools (the demo's `orders` toolkit is one
  collapsed container), calls the container, waits for
  `notifications/tools/list_changed`, and lists again: the container is gone and its
  members are there;
- 2026-07-28 (`mode="auto"`, which the server answers as stateless): opens a
  `subscriptions/listen` stream (`Client.listen`), checks that calling the container
  changes nothing, changes the host's metadata (the server command gets
  `--metadata-file PATH` appended; the demo reads its metadata from there), waits for
  the tools-changed event on the stream, and lists again: the list follows.
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

    import json
    import tempfile

    meta_dir = tempfile.mkdtemp()
    meta_file = os.path.join(meta_dir, "metadata.json")
    with open(meta_file, "w") as f:
        json.dump({"ShopName": "the demo shop"}, f)
    params = StdioServerParameters(command=cmd[0], args=cmd[1:] + ["--metadata-file", meta_file], env=dict(os.environ))
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

    # ---- 2026-07-28: a subscriptions/listen stream
    with anyio.fail_after(60):
        async with Client(stdio_client(params, errlog=open(os.devnull, "w")), mode="auto", cache=None) as client:  # type: ignore[arg-type]
            version = client.session.protocol_version
            check("py[views 2026] the connection is stateless", version == "2026-07-28", str(version))
            before = (await client.list_tools(cache_mode="refresh")).tools
            names = [t.name for t in before]
            check("py[views 2026] the container is listed, its members are not", "orders" in names and "order_stats" not in names, str(names))
            async with client.listen(tools_list_changed=True) as sub:
                check("py[views 2026] subscriptions/listen is acknowledged with toolsListChanged",
                      bool(sub.honored.tools_list_changed), str(sub.honored))
                res = await client.call_tool("orders", {})
                text = "\n".join(getattr(c, "text", "") for c in res.content)
                check("py[views 2026] the container describes its members", not res.is_error and "order_stats" in text, text[:120])
                res = await client.call_tool("orders", {"tool": "order_stats", "arguments": {}})
                check("py[views 2026] the container runs a member", not res.is_error and res.structured_content is not None,
                      str(res.structured_content))
                after = (await client.list_tools(cache_mode="refresh")).tools
                check("py[views 2026] calls leave the tool list as it was",
                      [t.model_dump() for t in after] == [t.model_dump() for t in before], "the list changed")
                with open(meta_file, "w") as f:
                    json.dump({"ShopName": "Renamed shop", "HasAdvancedFeatures": True}, f)
                try:
                    with anyio.fail_after(10):
                        event = await sub.__anext__()
                    check("py[views 2026] tools list_changed on the stream after the host's change",
                          type(event).__name__ == "ToolsListChanged", type(event).__name__)
                except TimeoutError:
                    check("py[views 2026] tools list_changed on the stream after the host's change", False, "no event within 10 s")
                tools = (await client.list_tools(cache_mode="refresh")).tools
                orders = next((t for t in tools if t.name == "orders"), None)
                check("py[views 2026] the new list follows the metadata",
                      orders is not None and "Renamed shop" in (orders.description or ""), str(orders and orders.description))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    argv = sys.argv[1:]
    if "--" not in argv:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(anyio.run(main, argv[argv.index("--") + 1:]))
