#!/usr/bin/env python3
"""Logging stdio proxy: sits between an MCP client and a stdio server.

    stdio_proxy.py LOGFILE -- SERVER_CMD [ARGS...]

Every newline-delimited message is forwarded unchanged and appended to
LOGFILE as `C->S <line>` or `S->C <line>` (server stderr as `ERR <line>`);
`--- connection PID opened|closed` lines bound each connection. Used to capture
the transcripts in docs/mcp-notes.md, and by the mcp lane, whose
schema_check.py validates every S->C message. Standard library only.
"""
import subprocess
import sys
import threading


def main() -> int:
    argv = sys.argv[1:]
    if len(argv) < 3 or argv[1] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    log = open(argv[0], "a", buffering=1, encoding="utf-8")
    lock = threading.Lock()

    def note(tag: str, raw: bytes) -> None:
        with lock:
            log.write(f"{tag} {raw.decode('utf-8', 'replace').rstrip()}\n")

    child = subprocess.Popen(argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    note("---", f"connection {child.pid} opened".encode())

    def pump_in() -> None:
        for line in sys.stdin.buffer:
            note("C->S", line)
            try:
                child.stdin.write(line)
                child.stdin.flush()
            except BrokenPipeError:
                break
        note("C->S", b"<stdin closed>")
        try:
            child.stdin.close()
        except OSError:
            pass

    def pump_err() -> None:
        for line in child.stderr:
            note("ERR ", line)

    threading.Thread(target=pump_in, daemon=True).start()
    threading.Thread(target=pump_err, daemon=True).start()
    out = sys.stdout.buffer
    for line in child.stdout:
        note("S->C", line)
        out.write(line)
        out.flush()
    rc = child.wait()
    note("---", f"connection {child.pid} closed".encode())
    return rc


if __name__ == "__main__":
    sys.exit(main())
