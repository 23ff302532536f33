#!/usr/bin/env python3
"""Peer test: the MCP Inspector CLI (npm `@modelcontextprotocol/inspector`, pinned in
ci/mcp/node/package.json) against a stdio MCP server, in both protocol eras.

    inspector_check.py -- SERVER_CMD [ARGS...]

For `--protocol-era legacy` (the initialize handshake) and `--protocol-era modern`
(2026-07-28): tools/list, a call that succeeds, a bad argument (a tool error naming
it), a tool the client cannot see (the Inspector refuses it from the list it got). The
CLI runs one request per process, so it cannot wait for a notification:
list_changed is checked with the Python and C# clients. Ends with the plain line
`N passed, M failed`.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
NODE_DIR = Path(os.environ.get("MCP_NODE_DIR", HERE.parent / ".cache" / "mcp-node"))
INSPECTOR = NODE_DIR / "node_modules" / ".bin" / "mcp-inspector"


def main() -> int:
    argv = sys.argv[1:]
    if "--" not in argv:
        print(__doc__, file=sys.stderr)
        return 2
    server = argv[argv.index("--") + 1:]
    if not INSPECTOR.exists():
        print(f"cannot find the Inspector at {INSPECTOR} (run ci/mcp/setup.sh)", file=sys.stderr)
        return 2
    version = json.loads((NODE_DIR / "node_modules/@modelcontextprotocol/inspector/package.json").read_text())["version"]
    print(f"inspector client: @modelcontextprotocol/inspector {version}; server: {' '.join(server)}", flush=True)
    passed = failed = 0

    def check(name: str, ok: bool, detail: str) -> None:
        nonlocal passed, failed
        if ok:
            passed += 1
            print(f"PASS {name} ({detail[:160]})", flush=True)
        else:
            failed += 1
            print(f"FAIL {name}: {detail[:400]}", flush=True)

    def run(era: str, *args: str) -> tuple[int, dict]:
        cmd = [str(INSPECTOR), "--cli", "--protocol-era", era, "--format", "json", "-q", *args, "--", *server]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        out = (p.stdout.strip() or p.stderr.strip()).splitlines()
        try:
            return p.returncode, json.loads(out[-1]) if out else {}
        except ValueError:
            return p.returncode, {"unparsable": "\n".join(out)[-400:]}

    for era in ("legacy", "modern"):
        tag = f"inspector[{era}]"
        rc, out = run(era, "--method", "tools/list")
        names = [t.get("name") for t in out.get("result", {}).get("tools", [])]
        check(f"{tag} tools/list shows the orders container, not its members",
              rc == 0 and "orders" in names and "order_stats" not in names and "create_order" in names, f"rc {rc}: {names or out}")
        rc, out = run(era, "--method", "tools/call", "--tool-name", "create_order",
                      "--tool-args-json", json.dumps({"customer": "Ada", "quantity": 2}))
        res = out.get("result", {})
        check(f"{tag} create_order succeeds with structuredContent",
              rc == 0 and res.get("isError") is False and res.get("structuredContent", {}).get("customer") == "Ada", f"rc {rc}: {out}")
        rc, out = run(era, "--method", "tools/call", "--tool-name", "create_order",
                      "--tool-args-json", json.dumps({"customer": "Ada", "quantity": 1, "priority": "Urgent"}))
        texts = " ".join(c.get("text", "") for c in out.get("result", {}).get("content", []))
        check(f"{tag} a bad argument is a tool error naming it",
              out.get("result", {}).get("isError") is True and "priority" in texts, f"rc {rc}: {out}")
        rc, out = run(era, "--method", "tools/call", "--tool-name", "order_stats", "--tool-args-json", "{}")
        check(f"{tag} a tool the client cannot see is not callable",
              rc != 0 and "result" not in out, f"rc {rc}: {out}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
