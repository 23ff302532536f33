#!/usr/bin/env python3
"""A binding's one-call stdio serving, judged by the official Python SDK's stdio client.

    stdio_check.py NAME -- SERVER_CMD [ARGS...]

SERVER_CMD is a program that serves the demo orders/notes functions with its binding's
one call (.NET `dispatcher.ServeMcpStdio()`, Kotlin `dispatcher.serveMcpStdio()`, Swift
`dispatcher.serveMCPStdio()`). In both eras (`mode="legacy"`, `mode="auto"`): connect,
tools/list, create_order succeeds, a bad argument is a tool error, an unknown tool is
-32602. Ends with `N passed, M failed`.
"""
from __future__ import annotations

import sys
from typing import Any

import anyio
from mcp import Client, MCPError, StdioServerParameters, stdio_client

passed = failed = 0


def check(name: str, ok: bool, detail: Any = "") -> None:
    global passed, failed
    if ok:
        passed += 1
        print(f"PASS {name}" + (f" ({detail})" if detail != "" else ""), flush=True)
    else:
        failed += 1
        print(f"FAIL {name}: {detail}", flush=True)


def texts(r: Any) -> str:
    return " | ".join(getattr(c, "text", "") for c in (r.content or []))


async def main(name: str, cmd: list[str]) -> None:
    print(f"stdio check of {name}: {' '.join(cmd)}", flush=True)
    for mode in ("legacy", "auto"):
        tag = f"{name}-stdio[{mode}]"
        try:
            params = StdioServerParameters(command=cmd[0], args=cmd[1:])
            with open("/dev/null", "w") as errlog:
                async with Client(stdio_client(params, errlog=errlog), mode=mode, cache=None) as client:  # type: ignore[arg-type]
                    v = client.protocol_version
                    check(f"{tag} connect", v == ("2025-11-25" if mode == "legacy" else "2026-07-28"), f"protocol {v}")
                    names = [t.name for t in (await client.list_tools(cache_mode="refresh")).tools]
                    check(f"{tag} tools/list", "create_order" in names and "orders" in names, ",".join(names))
                    ok = await client.call_tool("create_order", {"customer": "stdio", "quantity": 1})
                    check(f"{tag} create_order succeeds", not ok.is_error and (ok.structured_content or {}).get("customer") == "stdio", texts(ok))
                    bad = await client.call_tool("create_order", {"customer": "stdio", "quantity": "two"})
                    check(f"{tag} a bad argument is a tool error naming it", bad.is_error and "quantity" in texts(bad), texts(bad))
                    try:
                        await client.call_tool("no_such_tool", {})
                        check(f"{tag} an unknown tool is -32602", False, "got a result")
                    except MCPError as e:
                        check(f"{tag} an unknown tool is -32602", e.error.code == -32602, e.error.message)
        except Exception as e:  # noqa: BLE001
            check(f"{tag} suite", False, f"{type(e).__name__}: {e}")


if __name__ == "__main__":
    argv = sys.argv[1:]
    if len(argv) < 3 or argv[1] != "--":
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    anyio.run(main, argv[0], argv[2:])
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed or not passed else 0)
