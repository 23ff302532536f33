#!/usr/bin/env python3
"""Hostile HTTP against an MCP Streamable HTTP endpoint: each attack is refused with the
status the transport pages name, and the server keeps serving.

    hostile_check.py URL [--max-sessions 100] [--max-streams 32]

A wrong Origin (403), no session id (400), an unknown session id (404), a wrong or
unknown MCP-Protocol-Version (400), 2026-07-28 headers that disagree with the body (400,
-32020), an oversized body (413), a flood of sessions (each still gets one; the oldest
idle ones are ended, their ids answer 404), a flood of GET streams (the bound is held:
503 past it, with the headers of each accepted stream at once), then an ordinary
session that works. Standard library only; ends with `N passed, M failed`.
"""
from __future__ import annotations

import argparse
import http.client
import json
import socket
import sys
import time
import urllib.parse

passed = failed = 0


def check(name: str, ok: bool, detail: object = "") -> bool:
    global passed, failed
    if ok:
        passed += 1
        print(f"PASS hostile {name}" + (f" ({detail})" if detail != "" else ""), flush=True)
    else:
        failed += 1
        print(f"FAIL hostile {name}: {detail}", flush=True)
    return ok


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--max-sessions", type=int, default=100)
    ap.add_argument("--max-streams", type=int, default=32)
    a = ap.parse_args()
    u = urllib.parse.urlsplit(a.url)
    host, port, path = u.hostname, u.port, u.path

    def request(method: str, headers: dict[str, str], body: bytes | None = None) -> tuple[int, dict[str, str], bytes]:
        c = http.client.HTTPConnection(host, port, timeout=30)
        c.request(method, path, body=body, headers=headers)
        r = c.getresponse()
        data = r.read() if not (r.getheader("Content-Type") or "").startswith("text/event-stream") else b""
        hs = {k.lower(): v for k, v in r.getheaders()}
        c.close()
        return r.status, hs, data

    base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    init_body = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "hostile", "version": "0"}}}).encode()

    def initialize() -> str | None:
        st, hs, _ = request("POST", base, init_body)
        return hs.get("mcp-session-id") if st == 200 else None

    print(f"hostile client: {a.url}", flush=True)
    st, _, body = request("POST", {**base, "Origin": "http://evil.example"}, init_body)
    check("a foreign Origin is refused with 403", st == 403, f"HTTP {st} {body[:100]!r}")
    st, _, _ = request("POST", {**base, "Origin": "http://localhost.evil.example:8080"}, init_body)
    check("a look-alike loopback Origin is refused with 403", st == 403, f"HTTP {st}")

    sid = initialize()
    check("an ordinary initialize gets a session id", bool(sid), sid)
    ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    st, _, _ = request("POST", base, ping)
    check("a request without Mcp-Session-Id is refused with 400", st == 400, f"HTTP {st}")
    st, _, _ = request("POST", {**base, "Mcp-Session-Id": "0" * 32}, ping)
    check("an unknown Mcp-Session-Id is refused with 404", st == 404, f"HTTP {st}")
    st, _, _ = request("POST", {**base, "Mcp-Session-Id": sid or "", "MCP-Protocol-Version": "1999-01-01"}, ping)
    check("an unsupported MCP-Protocol-Version is refused with 400", st == 400, f"HTTP {st}")
    st, _, _ = request("POST", {**base, "Mcp-Session-Id": sid or "", "MCP-Protocol-Version": "2025-06-18"}, ping)
    check("a revision the session did not negotiate is refused with 400", st == 400, f"HTTP {st}")
    st, _, _ = request("GET", {"Accept": "text/event-stream"})
    check("a GET stream without a session is refused with 400", st == 400, f"HTTP {st}")

    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    discover = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {"_meta": meta}}).encode()
    st, _, body = request("POST", {**base, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}, discover)
    code = json.loads(body or b"{}").get("error", {}).get("code")
    check("2026-07-28: an Mcp-Method that disagrees with the body is 400 -32020", st == 400 and code == -32020, f"HTTP {st} {code}")
    st, _, body = request("POST", {**base, "Mcp-Method": "server/discover"}, discover)
    code = json.loads(body or b"{}").get("error", {}).get("code")
    check("2026-07-28: no MCP-Protocol-Version is 400 -32020", st == 400 and code == -32020, f"HTTP {st} {code}")
    st, _, _ = request("GET", {"Accept": "text/event-stream", "MCP-Protocol-Version": "2026-07-28"})
    check("2026-07-28: GET is 405", st == 405, f"HTTP {st}")

    # an oversized body (9 MiB): the answer is 413, whether or not the server read it all
    big = b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"' + b"a" * (9 << 20) + b'"}}'
    s = socket.create_connection((host, port), timeout=30)
    s.sendall(f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
              f"Accept: application/json, text/event-stream\r\nContent-Length: {len(big)}\r\n\r\n".encode())
    try:
        s.sendall(big)
    except OSError:
        pass  # the server answered and closed before reading it all
    head = b""
    try:
        while b"\r\n" not in head:
            chunk = s.recv(4096)
            if not chunk:
                break
            head += chunk
    except OSError:
        pass
    s.close()
    status = head.split(b" ")[1].decode() if head.count(b" ") >= 1 else "none"
    check("a 9 MiB body is refused with 413", status == "413", f"HTTP {status}")

    # a flood of sessions: every initialize is served; the oldest idle ones are ended
    t0 = time.monotonic()
    ids = [initialize() for _ in range(a.max_sessions + 50)]
    check(f"a flood of {len(ids)} sessions: each initialize is served", all(ids), f"{sum(1 for i in ids if i)} served in {time.monotonic() - t0:.1f} s")
    st, _, _ = request("POST", {**base, "Mcp-Session-Id": ids[0] or ""}, ping)
    check("the session idle longest was ended (404)", st == 404, f"HTTP {st}")
    st, _, _ = request("POST", {**base, "Mcp-Session-Id": ids[-1] or ""}, ping)
    check("the newest session still answers", st == 200, f"HTTP {st}")

    # a flood of GET streams: the bound holds, each accepted stream's headers come at once
    held: list[http.client.HTTPConnection] = []
    statuses: list[int] = []
    slow_headers = 0
    for sid_ in ids[-(a.max_streams + 8):]:
        c = http.client.HTTPConnection(host, port, timeout=10)
        t = time.monotonic()
        c.request("GET", path, headers={"Accept": "text/event-stream", "Mcp-Session-Id": sid_ or ""})
        r = c.getresponse()
        if time.monotonic() - t > 5:
            slow_headers += 1
        statuses.append(r.status)
        if r.status == 200:
            held.append(c)
        else:
            r.read()
            c.close()
    ok_n, busy_n = statuses.count(200), statuses.count(503)
    check(f"a flood of {len(statuses)} GET streams: at most {a.max_streams} open, the rest 503",
          0 < ok_n <= a.max_streams and busy_n >= 1 and ok_n + busy_n == len(statuses), f"{ok_n} open, {busy_n} refused")
    check("each stream's headers came when it opened", slow_headers == 0, f"{slow_headers} slow")
    for c in held:
        c.close()
    time.sleep(1.5)

    sid = initialize()
    st, _, body = request("POST", {**base, "Mcp-Session-Id": sid or ""}, json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}).encode())
    check("after all that the server still serves", st == 200 and b"create_order" in body, f"HTTP {st}")
    c = http.client.HTTPConnection(host, port, timeout=10)
    c.request("GET", path, headers={"Accept": "text/event-stream", "Mcp-Session-Id": sid or ""})
    r = c.getresponse()
    check("a closed stream frees its slot", r.status == 200, f"HTTP {r.status}")
    c.close()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
