//! The shared library carries its own unwinder on GNU/Linux (build.rs, `static_unwinder`):
//! it needs no `libgcc_s.so.1`, whose load was a third of a cold start's `dlopen` in a
//! process without it (a C program, a NativeAOT app), and a panic inside it is still caught
//! at the C ABI's boundary. Both are checked on the `libappfunctions.so` of this test
//! binary's profile, which `cargo test` does not link (it builds the rlib): so the test is
//! `#[ignore]`d, and ci/lanes/c.sh runs it after `cargo build --lib`:
//!
//!     cargo build --lib && cargo test --test static_unwinder -- --ignored
#![cfg(all(target_os = "linux", target_env = "gnu"))]

use std::ffi::{c_char, c_void, CStr, CString};
use std::path::PathBuf;

/// `target/<profile>/libappfunctions.so`, beside `deps/` where this test binary is.
fn library() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let lib = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps")
        .join("libappfunctions.so");
    assert!(
        lib.is_file(),
        "{} is missing: run `cargo build --lib` first (ci/lanes/c.sh does)",
        lib.display()
    );
    lib
}

#[test]
#[ignore = "needs the cdylib: cargo build --lib (ci/lanes/c.sh runs it)"]
fn the_library_needs_no_libgcc_s_and_catches_a_panic_with_its_own_unwinder() {
    let lib = library();
    // what the dynamic loader must load with it
    let out = std::process::Command::new("readelf")
        .arg("-d")
        .arg(&lib)
        .output()
        .expect("readelf (binutils) runs");
    let dynamic = String::from_utf8_lossy(&out.stdout);
    let needed: Vec<&str> = dynamic
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| l.split('[').nth(1)?.split(']').next())
        .collect();
    assert!(needed.contains(&"libc.so.6"), "NEEDED: {needed:?}");
    assert!(
        !needed.iter().any(|n| n.starts_with("libgcc_s")),
        "{} needs libgcc_s (NEEDED: {needed:?}): build.rs links the unwinder in unless \
         APPFUNCTIONS_STATIC_UNWINDER=0",
        lib.display()
    );

    if !cfg!(debug_assertions) {
        // the probe is compiled into debug builds only (src/ffi/mod.rs, panic_probe)
        eprintln!("static_unwinder: a release build has no panic probe; the panic is not checked");
        return;
    }
    // the only test of this binary: nothing else reads the environment meanwhile
    std::env::set_var("APPFUNCTIONS_PANIC_PROBE", "1");
    let path = CString::new(lib.to_str().unwrap()).unwrap();
    // SAFETY: dlopen/dlsym with valid C strings; each symbol has the header's signature
    // (include/appfunctions.h); the handle is never closed while its functions are used.
    unsafe {
        let h = libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
        assert!(!h.is_null(), "dlopen {}", lib.display());
        let sym = |name: &CStr| {
            let p = libc::dlsym(h, name.as_ptr());
            assert!(!p.is_null(), "{name:?} is not exported");
            p
        };
        let new: extern "C" fn() -> *mut c_void = std::mem::transmute(sym(c"af_dispatcher_new"));
        let free: unsafe extern "C" fn(*mut c_void) =
            std::mem::transmute(sym(c"af_dispatcher_free"));
        let last_error: extern "C" fn() -> *const c_char =
            std::mem::transmute(sym(c"af_last_error"));

        // the panic unwinds inside the library, to its boundary: NULL and the reason
        let d = new();
        assert!(d.is_null(), "the probe's panic was not raised");
        let why = CStr::from_ptr(last_error()).to_string_lossy().into_owned();
        assert!(
            why.contains("a panic was caught") && why.contains("APPFUNCTIONS_PANIC_PROBE"),
            "af_last_error: {why}"
        );

        // and the library goes on working
        std::env::remove_var("APPFUNCTIONS_PANIC_PROBE");
        let d = new();
        assert!(!d.is_null(), "af_dispatcher_new after the panic");
        free(d);
    }
}
