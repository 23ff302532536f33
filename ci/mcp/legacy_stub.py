#!/usr/bin/env python3
"""Minimal handshake-era (2025-11-25) MCP server over stdio, standard library only.

    legacy_stub.py [--discover error|ignore]

It knows initialize, tools/list and tools/call of one tool (create_order) and
answers anything else with -32601. With --discover ignore it never answers
`server/discover` (to observe the Python client's probe timeout). Used to
capture how the official clients fall back to `initialize` against a server
that does not speak 2026-07-28.
"""
import json
import sys

MODE = sys.argv[sys.argv.index("--discover") + 1] if "--discover" in sys.argv else "error"
TOOL = {
    "name": "create_order",
    "inputSchema": {"type": "object", "properties": {"customer": {"type": "string"}}, "required": ["customer"]},
}


def send(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    if not line.strip():
        continue
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue  # notification or response
    mid, method = msg["id"], msg["method"]
    if method == "initialize":
        asked = msg.get("params", {}).get("protocolVersion")
        ver = asked if asked in ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25") else "2025-11-25"
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": ver, "capabilities": {"tools": {}},
            "serverInfo": {"name": "legacy-stub", "version": "0"}}})
    elif method == "server/discover" and MODE == "ignore":
        continue
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": [TOOL]}})
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": "ok"}]}})
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": f"Method not found: {method}"}})
