#!/usr/bin/env python3
"""Logging HTTP proxy between an MCP client and a Streamable HTTP server.

    proxy.py --upstream http://127.0.0.1:PORT --log LOGFILE [--port 0]

Prints `proxy: http://127.0.0.1:PORT` once it listens, then forwards every request to
the upstream unchanged (method, path, headers, body) and streams the response back
(SSE frames as they come). Every JSON-RPC message is appended to LOGFILE as
`C->S <json>` or `S->C <json>` (one line per SSE event), the format of
ci/mcp/stdio_proxy.py, so ci/mcp/schema_check.py validates each server message against
its revision's schema. Standard library only.
"""
from __future__ import annotations

import argparse
import http.client
import json
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection", "content-length", "host"}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--port", type=int, default=0)
    a = ap.parse_args()
    up = urllib.parse.urlsplit(a.upstream)
    log = open(a.log, "a", buffering=1, encoding="utf-8")
    lock = threading.Lock()
    log.write("--- connection http opened\n")

    def note(tag: str, text: str) -> None:
        text = text.strip()
        if not text:
            return
        try:
            json.loads(text)
        except ValueError:
            return
        with lock:
            log.write(f"{tag} {text}\n")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # quiet
            pass

        def _any(self) -> None:
            if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
                body = b""
                while True:
                    size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                            pass  # trailers
                        break
                    body += self.rfile.read(size)
                    self.rfile.readline()
            else:
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else b""
            if body:
                note("C->S", body.decode("utf-8", "replace"))
            conn = http.client.HTTPConnection(up.hostname, up.port, timeout=300)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
            headers["Host"] = f"{up.hostname}:{up.port}"
            try:
                conn.request(self.command, self.path, body=body or None, headers=headers)
                resp = conn.getresponse()
            except OSError as e:
                self.send_error(502, f"upstream: {e}")
                return
            stream = (resp.getheader("Content-Type") or "").startswith("text/event-stream")
            self.send_response(resp.status)
            for k, v in resp.getheaders():
                if k.lower() not in HOP:
                    self.send_header(k, v)
            if stream:
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                self.wfile.flush()
                buf = ""
                try:
                    while True:
                        line = resp.fp.readline()
                        if not line:
                            break
                        text = line.decode("utf-8", "replace")
                        if text.startswith("data:"):
                            buf += text[5:].strip()
                        elif text.strip() == "" and buf:
                            note("S->C", buf)
                            buf = ""
                        self.wfile.write(f"{len(line):x}\r\n".encode() + line + b"\r\n")
                        self.wfile.flush()
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                except OSError:
                    pass  # the client went away: closing upstream cancels what it carried
                finally:
                    conn.close()
                return
            data = resp.read()
            conn.close()
            if data:
                note("S->C", data.decode("utf-8", "replace"))
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_DELETE = do_PUT = do_OPTIONS = _any

    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    print(f"proxy: http://127.0.0.1:{srv.server_address[1]}", flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
