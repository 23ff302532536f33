//! The stdio transport: newline-delimited JSON-RPC on a reader and a writer. It keeps
//! reading while tool calls run on a few worker threads of its own, so a long call
//! blocks neither pings nor other calls; responses may complete out of order.

use super::{Reply, Session};
use parking_lot::Mutex;
use std::io::{BufRead, Write};
use std::sync::mpsc;
use std::sync::Arc;

/// How many tool calls run at once.
pub const WORKERS: usize = 4;

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

    let (tx, rx) = mpsc::channel::<super::PendingCall>();
    let rx = Arc::new(Mutex::new(rx));
    let workers: Vec<_> = (0..WORKERS)
        .map(|i| {
            let rx = rx.clone();
            let session = session.clone();
            let write = write.clone();
            std::thread::Builder::new()
                .name(format!("appfunctions-mcp-{i}"))
                .spawn(move || loop {
                    let next = rx.lock().recv();
                    match next {
                        Ok(call) => {
                            if let Some(r) = session.run_call(call) {
                                write(&r);
                            }
                        }
                        Err(_) => return,
                    }
                })
        })
        .collect::<Result<_, _>>()?;

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
                if tx.send(c).is_err() {
                    break;
                }
            }
        }
    }
    drop(tx);
    for w in workers {
        let _ = w.join();
    }
    session.set_notify(None);
    Ok(())
}

/// Serves `session` on the process's stdin and stdout.
pub fn serve_stdio(session: Arc<Session>) -> std::io::Result<()> {
    let stdin = std::io::stdin();
    serve(session, stdin.lock(), std::io::stdout())
}
