//! Standard output for `af_mcp_serve_stdio`, written without raising `SIGPIPE`.
//!
//! A C host does not ignore `SIGPIPE` (Rust, .NET and JVM programs do), so a write to a
//! stdout whose reader has gone away (the MCP client quit mid-call) would kill the host.
//! Each write blocks `SIGPIPE` for the writing thread, and a `SIGPIPE` the write raised is
//! taken before the thread's mask is restored: the write fails with `EPIPE` instead, and
//! the transport ends the session (`crate::mcp::stdio::serve`).

use std::io::{self, Write};

/// The process's stdout for the stdio transport: written without raising `SIGPIPE`, one
/// write per line (the transport flushes after each).
pub(crate) fn stdout() -> Box<dyn Write + Send> {
    #[cfg(unix)]
    {
        Box::new(io::BufWriter::new(QuietStdout))
    }
    #[cfg(not(unix))]
    {
        Box::new(io::stdout())
    }
}

/// File descriptor 1, unbuffered.
#[cfg(unix)]
struct QuietStdout;

#[cfg(unix)]
impl Write for QuietStdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        without_sigpipe(|| loop {
            // SAFETY: a valid buffer of buf.len() bytes; fd 1 is the process's stdout.
            let n = unsafe { libc::write(1, buf.as_ptr().cast(), buf.len()) };
            if n >= 0 {
                return Ok(n as usize);
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Runs `write` with `SIGPIPE` blocked on this thread; a `SIGPIPE` it raised (an `EPIPE`
/// failure, when none was pending before) is consumed, so it is never delivered.
#[cfg(unix)]
fn without_sigpipe<R>(write: impl FnOnce() -> io::Result<R>) -> io::Result<R> {
    // SAFETY: plain POSIX signal-mask calls on sets this function owns.
    unsafe {
        let mut pipe: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut pipe);
        libc::sigaddset(&mut pipe, libc::SIGPIPE);
        let mut old: libc::sigset_t = std::mem::zeroed();
        if libc::pthread_sigmask(libc::SIG_BLOCK, &pipe, &mut old) != 0 {
            return write();
        }
        let mut pending: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut pending);
        let pending_before =
            libc::sigpending(&mut pending) == 0 && libc::sigismember(&pending, libc::SIGPIPE) == 1;
        let r = write();
        if !pending_before && matches!(&r, Err(e) if e.raw_os_error() == Some(libc::EPIPE)) {
            libc::sigemptyset(&mut pending);
            if libc::sigpending(&mut pending) == 0
                && libc::sigismember(&pending, libc::SIGPIPE) == 1
            {
                let mut sig: libc::c_int = 0;
                libc::sigwait(&pipe, &mut sig);
            }
        }
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        r
    }
}
