//! The stdio transport: newline-delimited JSON-RPC on a reader and a writer. It keeps
//! reading while tool calls run on worker threads of its own, so a long call blocks
//! neither pings nor other calls; responses may complete out of order.
//!
//! Threads: the reader runs no call's host code (`notifications/cancelled` ends the call
//! on the completion pool). Each `tools/call` runs, start to finish, on a worker; a
//! worker is started whenever a call arrives and none is free, so a handler or delegate
//! blocked in host code never holds up another call (up to 32 workers; beyond that,
//! calls wait for a worker and the dispatcher's log says so). Workers exit after a second
//! without work. See [`crate::threads`].

use super::{Reply, Session};
use crate::threads::{Pool, Waited, MCP_WORKERS_MAX};
use parking_lot::Mutex;
use std::io::{BufRead, Write};
use std::sync::Arc;

/// Serves `session` until `input` ends, then waits for the calls in flight.
pub fn serve<R: BufRead, W: Write + Send + 'static>(
    session: Arc<Session>,
    input: R,
    output: W,
) -> std::io::Result<()> {
    let out: Arc<Mutex<W>> = Arc::new(Mutex::new(output));
    let write = {
        let out = out.clone();
        move |line: &str| {
            let mut w = out.lock();
            let _ = w.write_all(line.as_bytes());
            let _ = w.write_all(b"\n");
            let _ = w.flush();
        }
    };
    let write: Arc<dyn Fn(&str) + Send + Sync> = Arc::new(write);
    session.set_notify(Some(write.clone()));

    let workers = Pool::new("appfunctions-mcp", MCP_WORKERS_MAX);
    for line in input.lines() {
        let line = match line {
            Ok(l) => l,
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                write(
                    r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the line is not valid UTF-8"}}"#,
                );
                continue;
            }
            Err(e) => return Err(e),
        };
        if line.trim().is_empty() {
            continue;
        }
        match session.handle_message(&line) {
            Reply::Now(r) => write(&r),
            Reply::Nothing => {}
            Reply::Call(c) => {
                let session = session.clone();
                let write = write.clone();
                workers.submit(Box::new(move |w: Waited| {
                    if w.at_cap {
                        session.log_warn(&format!(
                            "all {} MCP workers are running tool calls (the cap): a tools/call waited {} ms for one of them to return",
                            w.cap,
                            w.waited.as_millis()
                        ));
                    }
                    if let Some(r) = session.run_call(c) {
                        write(&r);
                    }
                }));
            }
        }
    }
    workers.drain();
    workers.close();
    session.set_notify(None);
    Ok(())
}

/// Serves `session` on the process's stdin and stdout.
pub fn serve_stdio(session: Arc<Session>) -> std::io::Result<()> {
    let stdin = std::io::stdin();
    serve(session, stdin.lock(), std::io::stdout())
}
