//! Hostile input costs bounded memory: an input over its limit is refused while it is
//! read (stdio) or before it is copied or parsed (the C ABI), and the next input is
//! served. Measured with a counting allocator: the most heap live at once while the
//! input is handled, above what was live before.

#[path = "../examples/demo/app.rs"]
mod app;

use appfunctions::ffi::*;
use appfunctions::mcp::{McpConfig, Session};
use serde_json::{json, Value};
use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::{CStr, CString};
use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call forwards to the system allocator with the caller's arguments; the
// counters are only arithmetic on the sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new >= l.size() {
                grew(new - l.size());
            } else {
                LIVE.fetch_sub(l.size() - new, Ordering::Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// One measurement at a time (the counters are process-wide).
static MEASURING: Mutex<()> = Mutex::new(());

/// Runs `f` and returns its value with the most heap live at once during it, above what
/// was live when it started.
fn peak_during<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let r = f();
    (r, PEAK.load(Ordering::Relaxed).saturating_sub(base))
}

const MIB: usize = 1 << 20;

/// A request, then `junk` bytes without a newline, then a newline and another request:
/// made as it is read, so the test itself holds none of it.
struct Hostile {
    parts: Vec<Vec<u8>>,
    junk: usize,
    stage: usize,
    at: usize,
}

impl Read for Hostile {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            match self.stage {
                0 | 2 => {
                    let part = &self.parts[self.stage / 2];
                    if self.at < part.len() {
                        let n = buf.len().min(part.len() - self.at);
                        buf[..n].copy_from_slice(&part[self.at..self.at + n]);
                        self.at += n;
                        return Ok(n);
                    }
                }
                1 => {
                    if self.at < self.junk {
                        let n = buf.len().min(self.junk - self.at);
                        buf[..n].fill(b'x');
                        self.at += n;
                        return Ok(n);
                    }
                }
                _ => return Ok(0),
            }
            self.stage += 1;
            self.at = 0;
        }
    }
}

#[derive(Clone, Default)]
struct Out(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Out {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn the_stdio_transport_keeps_at_most_the_limit_of_an_oversized_line_and_serves_the_next() {
    let _one = MEASURING.lock().unwrap();
    let limit = MIB;
    let junk = 64 * MIB;
    let a = app::build();
    let s = Session::new(
        &a.dispatcher,
        McpConfig {
            max_message_bytes: limit,
            ..Default::default()
        },
        json!({}),
    )
    .unwrap();
    let input = Hostile {
        parts: vec![
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"}}\n"
                .to_vec(),
            b"\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n".to_vec(),
        ],
        junk,
        stage: 0,
        at: 0,
    };
    let out = Out::default();
    let (r, peak) = peak_during(|| {
        appfunctions::mcp::stdio::serve(s.clone(), std::io::BufReader::new(input), out.clone())
    });
    r.unwrap();
    let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{text:.400}");
    assert_eq!(lines[0]["id"], 1);
    assert_eq!(lines[1]["error"]["code"], -32600);
    assert_eq!(
        lines[1]["error"]["message"],
        format!("the message is {junk} bytes, more than the limit of {limit}")
    );
    assert_eq!(lines[2]["id"], 2);
    assert!(lines[2]["result"]["tools"].as_array().unwrap().len() > 3);
    eprintln!("stdio: {junk} bytes in one line, limit {limit}: peak heap {peak} bytes");
    assert!(
        peak < 2 * limit,
        "reading a {junk}-byte line held {peak} bytes of heap at once (limit {limit})"
    );
}

#[test]
fn a_host_s_oversized_message_is_neither_copied_nor_parsed() {
    let _one = MEASURING.lock().unwrap();
    let d = af_dispatcher_new();
    let cfg = CString::new(r#"{"maxMessageBytes": 1048576}"#).unwrap();
    // SAFETY: a live dispatcher and NUL-terminated strings, as the header requires.
    unsafe {
        assert_eq!(af_mcp_configure(d, cfg.as_ptr()), AF_OK);
        let s = af_mcp_session_new(d, std::ptr::null());
        // 64 MiB of one JSON string, and an invalid UTF-8 byte past the limit
        let mut big = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":"{}"#,
            "y".repeat(64 * MIB)
        )
        .into_bytes();
        big.push(0xff);
        big.extend_from_slice(b"\"}}");
        let big = CString::new(big).unwrap();
        let (r, peak) = peak_during(|| af_mcp_session_handle_json(s, big.as_ptr()));
        let v: Value = serde_json::from_str(CStr::from_ptr(r).to_str().unwrap()).unwrap();
        af_string_free(r);
        assert_eq!(v["error"]["code"], -32600, "{v}");
        assert!(v["error"]["message"]
            .as_str()
            .unwrap()
            .ends_with("more than the limit of 1048576"));
        eprintln!("af_mcp_session_handle_json: 64 MiB message: peak heap {peak} bytes");
        assert!(
            peak < 64 << 10,
            "{peak} bytes of heap for a refused message"
        );
        let ping = CString::new(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#).unwrap();
        let r = af_mcp_session_handle_json(s, ping.as_ptr());
        assert!(CStr::from_ptr(r).to_str().unwrap().contains("\"id\":2"));
        af_string_free(r);
        af_mcp_session_free(s);
        af_dispatcher_free(d);
    }
}

#[test]
fn oversized_arguments_and_descriptors_through_the_c_abi_are_refused_before_parsing() {
    let _one = MEASURING.lock().unwrap();
    let d = af_dispatcher_new();
    // SAFETY: a live dispatcher and NUL-terminated strings, as the header requires.
    unsafe {
        let desc = CString::new(
            r#"{"id":"echo","kind":"output","parameters":[{"name":"text","type":"string"}]}"#,
        )
        .unwrap();
        assert_eq!(
            af_register_function(d, desc.as_ptr(), None, std::ptr::null_mut(), None),
            AF_OK
        );
        let args = CString::new(format!(r#"{{"text":"{}"}}"#, "y".repeat(64 * MIB))).unwrap();
        let id = CString::new("echo").unwrap();
        let inv = af_invocation {
            struct_size: std::mem::size_of::<af_invocation>() as u32,
            platform: AF_PLATFORM_OTHER,
            function_id: id.as_ptr(),
            caller_package: std::ptr::null(),
            cancel_token: std::ptr::null(),
            timeout_ms: 0,
            is_foreground: 0,
            reserved: [0; 3],
            host_context: std::ptr::null_mut(),
        };
        let (r, peak) = peak_during(|| af_execute_json(d, &inv, args.as_ptr()));
        let v: Value = serde_json::from_str(CStr::from_ptr(r).to_str().unwrap()).unwrap();
        af_string_free(r);
        assert_eq!(v["errorCode"], "InvalidArgument", "{v}");
        assert!(v["message"]
            .as_str()
            .unwrap()
            .contains("more than the limit of 1048576 bytes"));
        eprintln!("af_execute_json: 64 MiB of arguments: peak heap {peak} bytes");
        assert!(
            peak < 64 << 10,
            "{peak} bytes of heap for refused arguments"
        );

        let huge = CString::new(format!(
            r#"{{"id":"big","kind":"output","description":"{}"}}"#,
            "y".repeat(64 * MIB)
        ))
        .unwrap();
        let (st, peak) = peak_during(|| {
            af_register_function(d, huge.as_ptr(), None, std::ptr::null_mut(), None)
        });
        assert_eq!(st, AF_ERR_INVALID);
        let e = CStr::from_ptr(af_last_error()).to_str().unwrap();
        assert!(e.contains("more than the limit of 4194304"), "{e}");
        eprintln!("af_register_function: 64 MiB descriptor: peak heap {peak} bytes");
        assert!(
            peak < 64 << 10,
            "{peak} bytes of heap for a refused descriptor"
        );
        af_dispatcher_free(d);
    }
}
