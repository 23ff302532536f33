#!/usr/bin/env python3
"""Peer test: the MCP Inspector CLI (npm `@modelcontextprotocol/inspector`, pinned in
ci/mcp/node/package.json) against an MCP server, over stdio or (with --url) over its
Streamable HTTP transport (`--transport http`), in both protocol eras.

    inspector_check.py -- SERVER_CMD [ARGS...]    (ci/lanes/mcp.sh: the demo over stdio)
    inspector_check.py --url URL                  (ci/lanes/http.sh: the sample web host)

For `--protocol-era legacy` (the initialize handshake) and `--protocol-era modern`
(2026-07-28): tools/list, a call that succeeds, a bad argument (a tool error naming
it), a tool the client cannot see (the Inspector refuses it from the list it got). The
CLI runs one request per process, so it cannot wait for a notification:
list_changed is checked with the other SDK clients of each lane. Ends with the plain line
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
    if argv[:1] == ["--url"] and len(argv) == 2:
        url, server = argv[1], []
        transport = ["--transport", "http"]
    elif "--" in argv:
        url, server = None, argv[argv.index("--") + 1:]
        transport = []
    else:
        print(__doc__, file=sys.stderr)
        return 2
    if not INSPECTOR.exists():
        print(f"cannot find the Inspector at {INSPECTOR} (run ci/mcp/setup.sh)", file=sys.stderr)
        return 2
    version = json.loads((NODE_DIR / "node_modules/@modelcontextprotocol/inspector/package.json").read_text())["version"]
    print(f"inspector client: @modelcontextprotocol/inspector {version} {' '.join(transport)}; "
          f"server: {url or ' '.join(server)}", flush=True)
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
        target = [url] if url else []
        tail = [] if url else ["--", *server]
        cmd = [str(INSPECTOR), "--cli", *target, *transport, "--protocol-era", era, "--format", "json", "-q", *args, *tail]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        out = (p.stdout.strip() or p.stderr.strip()).splitlines()
        try:
            return p.returncode, json.loads(out[-1]) if out else {}
        except ValueError:
            return p.returncode, {"unparsable": "\n".join(out)[-400:]}

    for era in ("legacy", "modern"):
        tag = f"inspector-http[{era}]" if url else f"inspector[{era}]"
        rc, out = run(era, "--method", "tools/list")
        names = [t.get("name") for t in out.get("result", {}).get("tools", [])]
        check(f"{tag} tools/list shows the orders container, not its members",
              rc == 0 and "orders" in names and "order_stats" not in names and "create_order" in names
              # the web host pages by 3: the Inspector follows nextCursor to the last page
              and (not url or "search_order" in names), f"rc {rc}: {names or out}")
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
