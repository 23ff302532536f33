#!/usr/bin/env python3
"""Validates every message an MCP server sent against its revision's published schema.

    schema_check.py validate LOG [LOG...]
    schema_check.py conversations [--log LOG] -- SERVER_CMD [ARGS...]

`validate` reads transcripts written by stdio_proxy.py (`C->S` / `S->C` lines, one
connection between `--- connection ... opened` and `... closed`) and checks each S->C
message against the schema of the revision in force for it: the request's
`_meta["io.modelcontextprotocol/protocolVersion"]` when it carried the 2026-07-28
envelope, else the revision `initialize` negotiated, else (before any negotiation)
2025-11-25. A response is checked as the result type of the method it answers
(InitializeResult, ListToolsResult, CallToolResult, DiscoverResult, ...) and as a
JSON-RPC response; a notification as a ServerNotification and its own type.

`conversations` drives SERVER_CMD (the demo: `demo mcp`, given `--metadata-file` by
this script) through a scripted conversation in every supported revision — handshake,
listing, calls that succeed and fail, unknown tools, malformed requests, a toolkit
container, `notifications/tools/list_changed` (2026-07-28: on a `subscriptions/listen`
stream, after the host changes its metadata), a batch in 2025-03-26 — checks what each
answer means, and validates every message it received as `validate` does.

Schemas come from ../shared/specs/mcp/<revision>/schema.json beside the repository
($AF_SHARED/specs/mcp); a missing schema fails loudly. Needs `jsonschema` (the lane's
venv). Ends with the plain line `N passed, M failed`.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import jsonschema

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SPECS = Path(os.environ.get("AF_SHARED", REPO.parent / "shared")) / "specs" / "mcp"
REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
MODERN = "2026-07-28"
ENVELOPE_KEY = "io.modelcontextprotocol/protocolVersion"

RESULT_TYPES = {
    "initialize": "InitializeResult",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "ping": "EmptyResult",
    "server/discover": "DiscoverResult",
    "subscriptions/listen": "SubscriptionsListenResult",
}
MODERN_ERRORS = {
    -32022: "UnsupportedProtocolVersionError",
    -32021: "MissingRequiredClientCapabilityError",
}
NOTIFICATION_TYPES = {
    "notifications/tools/list_changed": "ToolListChangedNotification",
    "notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
}


class Schemas:
    def __init__(self) -> None:
        self.roots: dict[str, dict] = {}
        self.validators: dict[tuple[str, str], Any] = {}
        for r in REVISIONS:
            path = SPECS / r / "schema.json"
            if not path.is_file():
                raise SystemExit(f"!!! schema_check: the schema of revision {r} is missing: {path}")
            self.roots[r] = json.loads(path.read_text())

    def has(self, rev: str, name: str) -> bool:
        root = self.roots[rev]
        return name in root.get("definitions", root.get("$defs", {}))

    def errors(self, rev: str, name: str, value: Any) -> list[str]:
        key = (rev, name)
        if key not in self.validators:
            root = self.roots[rev]
            defs = "definitions" if "definitions" in root else "$defs"
            schema = dict(root)
            schema["$ref"] = f"#/{defs}/{name}"
            cls = jsonschema.validators.validator_for(root)
            self.validators[key] = cls(schema)
        out = []
        for e in self.validators[key].iter_errors(value):
            where = "/".join(str(p) for p in e.absolute_path) or "(root)"
            out.append(f"{name} at {where}: {e.message[:200]}")
        return out[:5]


def error_type(s: Schemas, rev: str) -> str:
    return "JSONRPCErrorResponse" if s.has(rev, "JSONRPCErrorResponse") else "JSONRPCError"


def result_envelope(s: Schemas, rev: str) -> str:
    return "JSONRPCResultResponse" if s.has(rev, "JSONRPCResultResponse") else "JSONRPCResponse"


class Connection:
    """What one connection negotiated, and which method each request id named."""

    def __init__(self) -> None:
        self.negotiated: str | None = None
        self.requests: dict[str, tuple[str, str | None]] = {}  # id -> (method, envelope revision)
        self.init_ids: set[str] = set()

    def client(self, msg: Any) -> None:
        for m in msg if isinstance(msg, list) else [msg]:
            if not isinstance(m, dict) or "id" not in m or "method" not in m:
                continue
            params = m.get("params") if isinstance(m.get("params"), dict) else {}
            meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
            env = meta.get(ENVELOPE_KEY) if isinstance(meta.get(ENVELOPE_KEY), str) else None
            self.requests[json.dumps(m["id"])] = (m["method"], env)

    def revision_for(self, msg: dict) -> tuple[str, str | None]:
        key = json.dumps(msg.get("id")) if "id" in msg else None
        method, env = self.requests.get(key, (None, None)) if key else (None, None)
        if env in REVISIONS:
            return env, method
        if method == "initialize" and isinstance(msg.get("result"), dict):
            v = msg["result"].get("protocolVersion")
            if v in REVISIONS:
                self.negotiated = v
        return self.negotiated or "2025-11-25", method


def check_message(s: Schemas, conn: Connection, msg: Any) -> tuple[str, list[str], str]:
    """(revision, problems, what) for one S->C message."""
    if isinstance(msg, list):
        rev, problems, whats = "?", [], []
        for m in msg:
            rev, p, w = check_message(s, conn, m)
            problems += p
            whats.append(w)
        return rev, problems, "batch of " + ", ".join(whats)
    if not isinstance(msg, dict):
        return "?", ["not a JSON object"], "?"
    if "method" in msg:
        rev = conn.negotiated or MODERN
        sub = (msg.get("params") or {}).get("_meta", {}) if isinstance(msg.get("params"), dict) else {}
        if "io.modelcontextprotocol/subscriptionId" in sub:
            rev = MODERN
        problems = s.errors(rev, "ServerNotification", msg)
        t = NOTIFICATION_TYPES.get(msg["method"])
        if t and s.has(rev, t):
            problems += s.errors(rev, t, msg)
        return rev, problems, msg["method"]
    rev, method = conn.revision_for(msg)
    if "error" in msg:
        what = f"error {msg['error'].get('code') if isinstance(msg['error'], dict) else '?'}"
        if msg.get("id", 0) is None and rev < "2025-11-25":
            # JSON-RPC 2.0 (section 5) answers an unreadable id with null; these revisions'
            # schemas require a string or integer id, so only the error object is checked
            copy = dict(msg)
            copy["id"] = 0
            return rev, s.errors(rev, error_type(s, rev), copy), what + " (id null, JSON-RPC 2.0)"
        problems = s.errors(rev, error_type(s, rev), msg)
        # the modern errors have schemas of their own (data members they require), whatever
        # the revision of the request they answer (an initialize on a modern connection)
        code = msg["error"].get("code") if isinstance(msg["error"], dict) else None
        if code in MODERN_ERRORS:
            problems += s.errors(MODERN, MODERN_ERRORS[code], msg)
        return rev, problems, what
    problems = s.errors(rev, result_envelope(s, rev), msg)
    t = RESULT_TYPES.get(method or "")
    if t and s.has(rev, t):
        problems += s.errors(rev, t, msg.get("result"))
    elif method is not None and t:
        problems.append(f"{method} has no result type in {rev}")
    return rev, problems, f"{method or '?'} result"


def validate_lines(s: Schemas, lines: list[str], label: str) -> tuple[int, int, dict[str, int]]:
    passed = failed = 0
    per_rev: dict[str, int] = {}
    conn = Connection()
    for n, line in enumerate(lines, 1):
        if line.startswith("--- "):
            if "opened" in line:
                conn = Connection()
            continue
        tag, _, body = line.partition(" ")
        body = body.strip()
        if tag not in ("C->S", "S->C") or not body or body.startswith("<"):
            continue
        try:
            msg = json.loads(body)
        except (ValueError, RecursionError):
            # a hostile client line (20,000 nested arrays) need not parse here; the server's must
            if tag == "S->C":
                failed += 1
                print(f"FAIL {label}:{n} the server sent a line that is not JSON: {body[:120]}")
            continue
        if tag == "C->S":
            conn.client(msg)
            continue
        rev, problems, what = check_message(s, conn, msg)
        per_rev[rev] = per_rev.get(rev, 0) + 1
        if problems:
            failed += 1
            print(f"FAIL {label}:{n} [{rev}] {what}: " + "; ".join(problems))
            print(f"     message: {body[:300]}")
        else:
            passed += 1
    return passed, failed, per_rev


def cmd_validate(paths: list[str]) -> int:
    s = Schemas()
    total_p = total_f = 0
    for p in paths:
        lines = Path(p).read_text(encoding="utf-8", errors="replace").splitlines()
        ok, bad, per_rev = validate_lines(s, lines, Path(p).name)
        total_p += ok
        total_f += bad
        revs = ", ".join(f"{r}: {c}" for r, c in sorted(per_rev.items()))
        status = "PASS" if bad == 0 and ok > 0 else "FAIL"
        if ok == 0 and bad == 0:
            print(f"FAIL schema {Path(p).name}: no server message to validate")
            total_f += 1
        else:
            print(f"{status} schema {Path(p).name}: {ok} server messages valid, {bad} invalid ({revs})")
    # one check per transcript, plus one per invalid message
    print(f"{total_p} passed, {total_f} failed")
    return 1 if total_f else 0


# ---------------------------------------------------------------- conversations


class Server:
    """A server process spoken to line by line; every line both ways goes to `log`."""

    def __init__(self, cmd: list[str], log) -> None:  # noqa: ANN001
        self.log = log
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        log.write(f"--- connection {self.proc.pid} opened\n")
        self.inbox: list[dict] = []
        self.cv = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for raw in self.proc.stdout:  # type: ignore[union-attr]
            line = raw.decode("utf-8", "replace").rstrip("\n")
            with self.cv:
                self.log.write(f"S->C {line}\n")
                try:
                    self.inbox.append(json.loads(line))
                except ValueError:
                    self.inbox.append({"unparsable": line})
                self.cv.notify_all()

    def send(self, msg: Any) -> None:
        line = msg if isinstance(msg, str) else json.dumps(msg)
        with self.cv:
            self.log.write(f"C->S {line}\n")
        self.proc.stdin.write(line.encode() + b"\n")  # type: ignore[union-attr]
        self.proc.stdin.flush()  # type: ignore[union-attr]

    def wait_for(self, pred, timeout: float = 10.0) -> dict | None:  # noqa: ANN001
        deadline = time.monotonic() + timeout
        with self.cv:
            while True:
                for i, m in enumerate(self.inbox):
                    if pred(m):
                        return self.inbox.pop(i)
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cv.wait(left)

    def request(self, msg: dict, timeout: float = 10.0) -> dict | None:
        self.send(msg)
        return self.wait_for(lambda m: isinstance(m, dict) and m.get("id") == msg["id"] and "method" not in m, timeout)

    def notification(self, method: str, timeout: float = 3.0) -> dict | None:
        return self.wait_for(lambda m: isinstance(m, dict) and m.get("method") == method, timeout)

    def close(self) -> None:
        try:
            self.proc.stdin.close()  # type: ignore[union-attr]
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
        with self.cv:
            self.log.write(f"--- connection {self.proc.pid} closed\n")


class Report:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, name: str, ok: bool, detail: Any = "") -> None:
        if ok:
            self.passed += 1
            print(f"PASS {name}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL {name}: {str(detail)[:300]}", flush=True)


def texts(resp: dict | None) -> str:
    content = ((resp or {}).get("result") or {}).get("content") or []
    return "\n".join(c.get("text", "") for c in content if isinstance(c, dict))


def tool_names(resp: dict | None) -> list[str]:
    return [t.get("name") for t in ((resp or {}).get("result") or {}).get("tools", [])]


def handshake(cmd: list[str], rev: str, log, rep: Report) -> None:  # noqa: ANN001
    tag = f"conv[{rev}]"
    srv = Server(cmd, log)
    try:
        r = srv.request({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                         "params": {"protocolVersion": rev, "capabilities": {}, "clientInfo": {"name": "schema-check", "version": "0"}}})
        rep.check(f"{tag} initialize negotiates {rev}", (r or {}).get("result", {}).get("protocolVersion") == rev, r)
        srv.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        lst = srv.request({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        names = tool_names(lst)
        rep.check(f"{tag} tools/list shows the container, not its members", "orders" in names and "order_stats" not in names, names)
        r = srv.request({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                         "params": {"name": "create_order", "arguments": {"customer": "Ada", "quantity": 2}}})
        rep.check(f"{tag} create_order succeeds", (r or {}).get("result", {}).get("isError") is False, r)
        r = srv.request({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                         "params": {"name": "create_order", "arguments": {"customer": "Ada", "quantity": "two"}}})
        rep.check(f"{tag} bad arguments are a tool error", (r or {}).get("result", {}).get("isError") is True and "quantity" in texts(r), r)
        r = srv.request({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "order_stats", "arguments": {}}})
        rep.check(f"{tag} a collapsed member is an unknown tool", (r or {}).get("error", {}).get("code") == -32602, r)
        r = srv.request({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "create_note", "arguments": {"title": "t", "body": "b"}}})
        rep.check(f"{tag} a void function answers", "result" in (r or {}), r)
        r = srv.request({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
                         "params": {"name": "report_order_summary", "arguments": {"openOrders": 1, "busiestCustomer": None}}})
        rep.check(f"{tag} an output function answers", (r or {}).get("result", {}).get("isError") is False, r)
        r = srv.request({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "orders"}})
        rep.check(f"{tag} the container expands", (r or {}).get("result", {}).get("isError") is False, r)
        n = srv.notification("notifications/tools/list_changed")
        rep.check(f"{tag} list_changed after the expansion", n is not None, "none within 3 s")
        names = tool_names(srv.request({"jsonrpc": "2.0", "id": 8, "method": "tools/list"}))
        rep.check(f"{tag} the members are listed after it", "order_stats" in names and "orders" not in names, names)
        r = srv.request({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "orders"}})
        rep.check(f"{tag} the expanded container is an unknown tool", (r or {}).get("error", {}).get("code") == -32602, r)
        r = srv.request({"jsonrpc": "2.0", "id": "p", "method": "ping"})
        rep.check(f"{tag} ping", (r or {}).get("result") == {}, r)
        r = srv.request({"jsonrpc": "2.0", "id": 10, "method": "tools/list", "params": {"cursor": "garbage"}})
        rep.check(f"{tag} a bad cursor is -32602", (r or {}).get("error", {}).get("code") == -32602, r)
        r = srv.request({"jsonrpc": "2.0", "id": 11, "method": "resources/list"})
        rep.check(f"{tag} an unknown method is -32601", (r or {}).get("error", {}).get("code") == -32601, r)
        r = srv.request({"jsonrpc": "2.0", "id": 14, "method": "tools/call",
                         "params": ["create_order", {"customer": "Ada", "quantity": 2}]})
        rep.check(f"{tag} positional tools/call params are -32602", (r or {}).get("error", {}).get("code") == -32602, r)
        r = srv.request({"jsonrpc": "2.0", "id": 15, "method": "ping", "params": 7})
        rep.check(f"{tag} ping with params 7 is -32602", (r or {}).get("error", {}).get("code") == -32602, r)
        deep = "[" * 20000 + "]" * 20000
        srv.send('{"jsonrpc":"2.0","id":16,"method":"ping","params":{"x":' + deep + '}}')
        r = srv.wait_for(lambda m: isinstance(m, dict) and (m.get("error") or {}).get("code") == -32600
                         and "levels deep" in (m.get("error") or {}).get("message", ""))
        rep.check(f"{tag} 20,000 nested arrays in skipped params are refused", r is not None, "no -32600")
        other = "2024-11-05" if rev != "2024-11-05" else "2025-11-25"
        r = srv.request({"jsonrpc": "2.0", "id": 17, "method": "initialize",
                         "params": {"protocolVersion": other, "capabilities": {}, "clientInfo": {"name": "schema-check", "version": "0"}}})
        rep.check(f"{tag} a second initialize is -32600", (r or {}).get("error", {}).get("code") == -32600, r)
        tools = ((srv.request({"jsonrpc": "2.0", "id": 18, "method": "tools/list"}) or {}).get("result") or {}).get("tools") or []
        shaped = any("outputSchema" in t for t in tools) == (rev >= "2025-06-18")
        rep.check(f"{tag} the revision stays {rev} after it", bool(tools) and shaped, [sorted(t) for t in tools][:2])
        srv.send("{")
        r = srv.wait_for(lambda m: isinstance(m, dict) and (m.get("error") or {}).get("code") == -32700)
        rep.check(f"{tag} a parse error is answered", r is not None, "no -32700")
        if rev == "2025-03-26":
            srv.send([{"jsonrpc": "2.0", "id": 12, "method": "ping"}, {"jsonrpc": "2.0", "id": 13, "method": "tools/list"}])
            r = srv.wait_for(lambda m: isinstance(m, list))
            rep.check(f"{tag} a batch gets a batch", isinstance(r, list) and len(r) == 2, r)
    finally:
        srv.close()


def stateless(cmd: list[str], metadata_file: Path, log, rep: Report) -> None:  # noqa: ANN001
    tag = f"conv[{MODERN}]"
    meta = {ENVELOPE_KEY: MODERN, "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "schema-check", "version": "0"}}

    def req(id_: Any, method: str, params: dict | None = None) -> dict | None:
        p = dict(params or {})
        p["_meta"] = meta
        return srv.request({"jsonrpc": "2.0", "id": id_, "method": method, "params": p})

    metadata_file.write_text(json.dumps({"ShopName": "the demo shop"}))
    srv = Server(cmd + ["--metadata-file", str(metadata_file)], log)
    try:
        r = req(1, "server/discover")
        res = (r or {}).get("result", {})
        rep.check(f"{tag} discover: {MODERN} with listChanged", MODERN in res.get("supportedVersions", [])
                  and res.get("capabilities", {}).get("tools", {}).get("listChanged") is True, r)
        before = (req(2, "tools/list") or {}).get("result", {}).get("tools")
        names = [t["name"] for t in before or []]
        rep.check(f"{tag} the container is listed, its members are not", "orders" in names and "order_stats" not in names, names)
        srv.send({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen",
                  "params": {"_meta": meta, "notifications": {"toolsListChanged": True}}})
        ack = srv.notification("notifications/subscriptions/acknowledged")
        rep.check(f"{tag} subscriptions/listen is acknowledged first", ack is not None and
                  ack["params"]["_meta"].get("io.modelcontextprotocol/subscriptionId") == "sub"
                  and ack["params"]["notifications"] == {"toolsListChanged": True}, ack)
        r = req(3, "tools/call", {"name": "orders"})
        rep.check(f"{tag} the container describes its members", "order_stats" in texts(r) and "find_orders" not in texts(r), r)
        r = req(4, "tools/call", {"name": "orders", "arguments": {"tool": "order_stats", "arguments": {}}})
        rep.check(f"{tag} the container runs a member", (r or {}).get("result", {}).get("isError") is False, r)
        after = (req(5, "tools/list") or {}).get("result", {}).get("tools")
        rep.check(f"{tag} calls leave the tool list as it was", after == before, "the list changed")
        rep.check(f"{tag} no list_changed from calls", srv.notification("notifications/tools/list_changed", 1.0) is None, "one came")
        r = req(6, "tools/call", {"name": "order_stats"})
        rep.check(f"{tag} a member by name is an unknown tool", (r or {}).get("error", {}).get("code") == -32602, r)
        r = req(7, "tools/call", {"name": "create_order", "arguments": {"customer": "Ada", "quantity": 1}})
        rep.check(f"{tag} create_order succeeds", (r or {}).get("result", {}).get("isError") is False, r)
        metadata_file.write_text(json.dumps({"ShopName": "Renamed shop", "HasAdvancedFeatures": True}))
        n = srv.notification("notifications/tools/list_changed", 5.0)
        rep.check(f"{tag} list_changed on the stream after the host's change", n is not None and
                  n["params"]["_meta"].get("io.modelcontextprotocol/subscriptionId") == "sub", n)
        tools = (req(8, "tools/list") or {}).get("result", {}).get("tools") or []
        orders = next((t for t in tools if t["name"] == "orders"), {})
        rep.check(f"{tag} the new list follows the metadata", "Renamed shop" in orders.get("description", "")
                  and "find_orders" in orders.get("inputSchema", {}).get("properties", {}).get("tool", {}).get("enum", []), orders)
        srv.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "sub"}})
        metadata_file.write_text(json.dumps({"ShopName": "Third name"}))
        rep.check(f"{tag} nothing on a cancelled stream", srv.notification("notifications/tools/list_changed", 1.5) is None, "one came")
        r = req(9, "initialize", {"protocolVersion": "2025-11-25"})
        rep.check(f"{tag} initialize on a stateless connection is -32022", (r or {}).get("error", {}).get("code") == -32022
                  and ((r or {}).get("error", {}).get("data") or {}).get("requested") == "2025-11-25", r)
        r = srv.request({"jsonrpc": "2.0", "id": 11, "method": "initialize",
                         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "schema-check", "version": "0"}}})
        rep.check(f"{tag} a plain initialize on it is -32022 naming what was asked", (r or {}).get("error", {}).get("code") == -32022
                  and ((r or {}).get("error", {}).get("data") or {}).get("requested") == "2025-06-18", r)
        r = srv.request({"jsonrpc": "2.0", "id": 12, "method": "tools/list"})
        rep.check(f"{tag} a request without the envelope names the revision's rule", (r or {}).get("error", {}).get("code") == -32602
                  and "_meta" in (r or {}).get("error", {}).get("message", "")
                  and "send initialize" not in (r or {}).get("error", {}).get("message", ""), r)
        r = srv.request({"jsonrpc": "2.0", "id": 10, "method": "tools/list",
                         "params": {"_meta": {ENVELOPE_KEY: "2030-01-01", "io.modelcontextprotocol/clientCapabilities": {}}}})
        rep.check(f"{tag} an unsupported version is -32022", (r or {}).get("error", {}).get("code") == -32022, r)
        srv.send("{")
        r = srv.wait_for(lambda m: isinstance(m, dict) and (m.get("error") or {}).get("code") == -32700)
        rep.check(f"{tag} a parse error leaves out the unknown id", r is not None and "id" not in r, r)
    finally:
        srv.close()


def cmd_conversations(cmd: list[str], log_path: str | None) -> int:
    rep = Report()
    Schemas()  # fail loudly before starting anything when a schema is missing
    with tempfile.TemporaryDirectory() as tmp:
        log_file = Path(log_path) if log_path else Path(tmp) / "conversations.log"
        with open(log_file, "w", buffering=1, encoding="utf-8") as log:
            for rev in REVISIONS[:-1]:
                handshake(cmd, rev, log, rep)
            stateless(cmd, Path(tmp) / "metadata.json", log, rep)
        ok, bad, per_rev = validate_lines(Schemas(), log_file.read_text().splitlines(), "conversations")
        revs = ", ".join(f"{r}: {c}" for r, c in sorted(per_rev.items()))
        rep.check(f"schema: every message of the conversations is valid ({ok} messages; {revs})",
                  bad == 0 and set(per_rev) >= set(REVISIONS), f"{bad} invalid; revisions seen: {revs}")
    print(f"{rep.passed} passed, {rep.failed} failed")
    return 1 if rep.failed else 0


def main() -> int:
    argv = sys.argv[1:]
    if not argv or argv[0] not in ("validate", "conversations"):
        print(__doc__, file=sys.stderr)
        return 2
    if argv[0] == "validate":
        if len(argv) < 2:
            print(__doc__, file=sys.stderr)
            return 2
        return cmd_validate(argv[1:])
    rest = argv[1:]
    if "--" not in rest:
        print(__doc__, file=sys.stderr)
        return 2
    i = rest.index("--")
    log = None
    if rest[:i][:1] == ["--log"] and len(rest[:i]) == 2:
        log = rest[1]
    return cmd_conversations(rest[i + 1:], log)


if __name__ == "__main__":
    sys.exit(main())
