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
//!
//! Memory is bounded whatever the client sends: a line is buffered only up to the
//! session's `max_message_bytes`; past that the rest of the line is read and dropped
//! (answered with the same -32600 error as any oversized message) and the next line is
//! served. The calls in flight (running or waiting for a worker) hold at most twice
//! `max_message_bytes` of arguments, and at most 64 wait for a worker; past either bound
//! a call is answered at once with a `LimitExceeded` tool error.

use super::{Reply, Session};
use crate::engine::threads::{Pool, Waited, MCP_WORKERS_MAX};
use parking_lot::Mutex;
use std::io::{BufRead, ErrorKind, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// How many tool calls may wait for a worker (all of them busy).
pub(crate) const QUEUED_CALLS: usize = 64;

/// What [`read_frame`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// The input ended (nothing was read).
    Eof,
    /// One message is in the buffer (without its line ending).
    Message,
    /// A line longer than the limit: this many bytes, of which none are kept.
    Oversize(u64),
}

/// Reads one newline-delimited message into `buf`, keeping at most `limit` bytes: past
/// that the rest of the line is consumed and dropped. A `\r` before the newline is
/// removed; the last line may end without a newline.
pub fn read_frame<R: BufRead + ?Sized>(
    input: &mut R,
    buf: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Frame> {
    buf.clear();
    let mut total: u64 = 0;
    let mut over = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(match (over || buf.len() > limit, total) {
                (true, n) => Frame::Oversize(n),
                (false, 0) => Frame::Eof,
                (false, _) => Frame::Message,
            });
        }
        let newline = chunk.iter().position(|b| *b == b'\n');
        let take = newline.unwrap_or(chunk.len());
        total += take as u64;
        // one byte over the limit is kept: it may be the `\r` of a `\r\n`
        if !over && buf.len() + take > limit.saturating_add(1) {
            over = true;
            *buf = Vec::new();
        }
        if !over {
            // grow as a Vec does, but never past what the limit can need
            let need = buf.len() + take;
            if need > buf.capacity() {
                let target = need.max(buf.capacity() * 2).min(limit.saturating_add(1));
                buf.reserve_exact(target - buf.len());
            }
            buf.extend_from_slice(&chunk[..take]);
        }
        input.consume(take + usize::from(newline.is_some()));
        if newline.is_some() {
            if buf.ends_with(b"\r") {
                buf.pop();
            }
            if over || buf.len() > limit {
                *buf = Vec::new();
                return Ok(Frame::Oversize(total));
            }
            return Ok(Frame::Message);
        }
    }
}

/// Serves `session` until `input` ends, or the output is closed (a write fails with
/// `BrokenPipe`: the client went away), then waits for the calls in flight. Open
/// `subscriptions/listen` streams end with the input (the transport closed).
pub fn serve<R: BufRead, W: Write + Send + 'static>(
    session: Arc<Session>,
    mut input: R,
    output: W,
) -> std::io::Result<()> {
    let out: Arc<Mutex<W>> = Arc::new(Mutex::new(output));
    // the client closed its end of the output (it went away): nothing more is written,
    // and the session ends as if the input had ended
    let closed = Arc::new(AtomicBool::new(false));
    let write = {
        let out = out.clone();
        let closed = closed.clone();
        move |line: &str| {
            if closed.load(Ordering::Acquire) {
                return;
            }
            let mut w = out.lock();
            let r = w
                .write_all(line.as_bytes())
                .and_then(|()| w.write_all(b"\n"))
                .and_then(|()| w.flush());
            if matches!(&r, Err(e) if e.kind() == ErrorKind::BrokenPipe) {
                closed.store(true, Ordering::Release);
            }
        }
    };
    let write: Arc<dyn Fn(&str) + Send + Sync> = Arc::new(write);
    session.set_notify(Some(write.clone()));

    let workers = Pool::new("appfunctions-mcp", MCP_WORKERS_MAX);
    // calls submitted and not finished; of them, not yet started; their bytes
    let flight = Arc::new((
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    ));
    let budget = session.config().max_message_bytes.saturating_mul(2);
    let limit = session.config().max_message_bytes;
    let mut buf = Vec::new();
    let result = loop {
        let frame = match read_frame(&mut input, &mut buf, limit) {
            Ok(f) => f,
            Err(e) => break Err(e),
        };
        match frame {
            Frame::Eof => break Ok(()),
            Frame::Oversize(n) => write(&session.oversize_error(n)),
            Frame::Message => {
                if !buf.iter().all(u8::is_ascii_whitespace) {
                    match session.handle_message_bytes(&buf) {
                        Reply::Now(r) => write(&r),
                        Reply::Nothing => {}
                        Reply::Call(c) => {
                            let size = c.size();
                            let calls = flight.0.load(Ordering::Acquire);
                            let waiting = flight.1.load(Ordering::Acquire);
                            let bytes = flight.2.load(Ordering::Acquire);
                            if waiting >= QUEUED_CALLS || (calls > 0 && bytes + size > budget) {
                                write(&session.refuse_call(
                                    c,
                                    &format!("too many tool calls are in flight ({calls}); try again when some have finished"),
                                ));
                            } else {
                                flight.0.fetch_add(1, Ordering::AcqRel);
                                flight.1.fetch_add(1, Ordering::AcqRel);
                                flight.2.fetch_add(size, Ordering::AcqRel);
                                let session = session.clone();
                                let write = write.clone();
                                let flight = flight.clone();
                                workers.submit(Box::new(move |w: Waited| {
                                    flight.1.fetch_sub(1, Ordering::AcqRel);
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
                                    flight.2.fetch_sub(size, Ordering::AcqRel);
                                    flight.0.fetch_sub(1, Ordering::AcqRel);
                                }));
                            }
                        }
                    }
                }
                // a huge message's buffer is not kept for the next, small ones
                if buf.capacity() > 64 << 10 {
                    buf = Vec::new();
                }
            }
        }
        if closed.load(Ordering::Acquire) {
            session.log_warn(&format!(
                "MCP stdio: the client closed its end of the output (broken pipe): the session ends once the {} tool calls in flight finish",
                flight.0.load(Ordering::Acquire)
            ));
            break Ok(());
        }
    };
    session.end_subscriptions();
    workers.drain();
    workers.close();
    session.set_notify(None);
    result
}

/// Serves `session` on the process's stdin and stdout.
pub fn serve_stdio(session: Arc<Session>) -> std::io::Result<()> {
    let stdin = std::io::stdin();
    serve(session, stdin.lock(), std::io::stdout())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8], limit: usize) -> Vec<(Frame, Vec<u8>)> {
        let mut r = std::io::BufReader::with_capacity(7, input);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            let f = read_frame(&mut r, &mut buf, limit).unwrap();
            if f == Frame::Eof {
                return out;
            }
            out.push((f, buf.clone()));
        }
    }

    /// An output whose reader has gone away.
    struct Closed(Arc<AtomicUsize>);
    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            self.0.fetch_add(1, Ordering::Relaxed);
            Err(std::io::Error::from(ErrorKind::BrokenPipe))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_session_ends_when_the_client_closes_the_output() {
        let d = crate::Dispatcher::new();
        let session = Session::new(
            &d,
            crate::mcp::McpConfig::default(),
            serde_json::Value::Null,
        )
        .unwrap();
        let logs: Arc<Mutex<Vec<String>>> = Arc::default();
        let l = logs.clone();
        d.set_log_sink(Some(Arc::new(move |_, m: &str| {
            l.lock().push(m.to_owned())
        })));
        let mut input = String::new();
        for i in 0..1000 {
            input.push_str(&format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"ping\"}}\n"
            ));
        }
        let writes = Arc::new(AtomicUsize::new(0));
        let mut cursor = std::io::Cursor::new(input.as_bytes());
        serve(session, &mut cursor, Closed(writes.clone())).unwrap();
        // the first answer found the output closed: nothing more was read or written
        assert_eq!(writes.load(Ordering::Relaxed), 1);
        assert_eq!(cursor.position() as usize, input.find('\n').unwrap() + 1);
        assert!(
            logs.lock().iter().any(|m| m.contains("broken pipe")),
            "{:?}",
            logs.lock()
        );
    }

    #[test]
    fn lines_up_to_the_limit_are_messages_and_longer_ones_are_skipped() {
        let got = frames(b"abcd\r\nabcdef\n\nxy", 5);
        assert_eq!(
            frames(b"abcde\r\n", 5),
            [(Frame::Message, b"abcde".to_vec())]
        );
        assert_eq!(
            got,
            [
                (Frame::Message, b"abcd".to_vec()),
                (Frame::Oversize(6), vec![]),
                (Frame::Message, vec![]),
                (Frame::Message, b"xy".to_vec()),
            ]
        );
        assert_eq!(frames(b"abcdefgh", 5), [(Frame::Oversize(8), vec![])]);
        assert_eq!(frames(b"abcde", 5), [(Frame::Message, b"abcde".to_vec())]);
    }
}
