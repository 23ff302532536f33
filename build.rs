//! Linux shared library naming (docs/abi.md): the cdylib carries the SONAME
//! `libappfunctions.so.<ABI>`, so a host linked against ABI 1 never loads a library of
//! another ABI. Exports need no version script: rustc already exports exactly the
//! `#[no_mangle]` items of src/ffi (all `af_*`; `ci/abi.sh` checks it).
//!
//! Cargo still writes `target/<profile>/libappfunctions.so`; this script also makes the
//! `libappfunctions.so.1 -> libappfunctions.so` link beside it (as `make install` would),
//! so a host linked with `-L target/release -lappfunctions` runs from the build tree.
//!
//! The startup order (x86_64 Linux and Android, release profiles: `release`, `dist`,
//! `dist-small`, `bench`): the shared library is linked with `link/startup-order.ld`, which
//! puts the functions a cold start runs first in `.text`, so a process that starts for one
//! call faults in a few pieces of the library's code instead of nearly all of it
//! (`ci/startup_order.py` records the list and checks it; docs/performance.md, "Cold start").
//! The script is written for lld, the linker Rust uses on x86_64 Linux since 1.90 and the
//! Android NDK's; other Linux targets link with the system's GNU ld and go without it, and
//! `APPFUNCTIONS_STARTUP_ORDER=0` leaves it out where another linker is chosen.
//!
//! The unwinder (GNU/Linux): the shared library carries libgcc's unwinder (`libgcc_eh.a`, as
//! `gcc -static-libgcc` links it) instead of needing `libgcc_s.so.1`, which a process without
//! it (a C program, a NativeAOT app) had to load with the library: a third of `dlopen`'s
//! time in a cold start (0.60 -> 0.42 ms, docs/performance.md, "Cold start"). Android's
//! build already links its unwinder in (the NDK's static libunwind); Apple's is the system's.
//! A panic still unwinds only to the C ABI's boundary, inside the library.

/// Keep in step with `AF_ABI_VERSION` in src/ffi/mod.rs (a test checks it).
const ABI: u32 = 1;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    startup_order(&os);
    static_unwinder(&os);
    if os != "linux" {
        // Android packages keep the plain lib*.so name; Apple and Windows name
        // libraries their own way
        return;
    }
    let soname = format!("libappfunctions.so.{ABI}");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
    println!("cargo:rustc-env=AF_SONAME={soname}");
    // OUT_DIR is target/<profile>/build/appfunctions-<hash>/out
    let Some(profile_dir) = std::env::var_os("OUT_DIR")
        .map(std::path::PathBuf::from)
        .and_then(|p| p.ancestors().nth(3).map(|p| p.to_path_buf()))
    else {
        return;
    };
    let link = profile_dir.join(&soname);
    if std::fs::symlink_metadata(&link).is_err() {
        #[cfg(unix)]
        let _ = std::os::unix::fs::symlink("libappfunctions.so", &link);
    }
}

/// Links the shared library with `link/startup-order.ld` (the module docs say why) in release
/// profiles (cargo's `PROFILE` is `release` for every profile that inherits it) where lld
/// links it (x86_64 Linux, Android), unless `APPFUNCTIONS_STARTUP_ORDER=0`.
fn startup_order(os: &str) {
    println!("cargo:rerun-if-env-changed=APPFUNCTIONS_STARTUP_ORDER");
    println!("cargo:rerun-if-changed=link/startup-order.ld");
    let release = std::env::var("PROFILE").is_ok_and(|p| p == "release");
    let off = std::env::var("APPFUNCTIONS_STARTUP_ORDER").is_ok_and(|v| v == "0");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let lld = os == "android" || (os == "linux" && arch == "x86_64");
    if !release || off || !lld {
        return;
    }
    let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") else {
        return;
    };
    let script = std::path::Path::new(&dir).join("link/startup-order.ld");
    if script.is_file() {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-T,{}", script.display());
    }
}

/// Links the unwinder into the shared library (GNU/Linux, native builds): the module docs say
/// why. Rust's standard library asks the linker for `-lgcc_s`; the library's link searches
/// first a directory holding a `libgcc_s.so` linker script that names the C compiler's
/// `libgcc_eh.a` (the same unwinder, as `gcc -static-libgcc` links it into a shared object),
/// so the library needs no `libgcc_s.so.1` beside `libc`. Its symbols stay hidden: a process
/// that loads `libgcc_s.so.1` for itself keeps its own unwinder, and no panic leaves the
/// library (docs/abi.md). `APPFUNCTIONS_STATIC_UNWINDER=0` links `libgcc_s.so.1` as before;
/// so does a cross build, and a compiler without `libgcc_eh.a` (with a cargo warning).
fn static_unwinder(os: &str) {
    println!("cargo:rerun-if-env-changed=APPFUNCTIONS_STATIC_UNWINDER");
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let off = std::env::var("APPFUNCTIONS_STATIC_UNWINDER").is_ok_and(|v| v == "0");
    if os != "linux" || env != "gnu" || off {
        return;
    }
    let (Ok(host), Ok(target)) = (std::env::var("HOST"), std::env::var("TARGET")) else {
        return;
    };
    if host != target {
        // the host's compiler would name the host's libgcc_eh.a
        return;
    }
    let Some(out) = std::env::var_os("OUT_DIR").map(std::path::PathBuf::from) else {
        return;
    };
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    println!("cargo:rerun-if-env-changed=CC");
    let archive = std::process::Command::new(&cc)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|p| std::path::Path::new(p).is_absolute() && std::path::Path::new(p).is_file());
    let Some(archive) = archive else {
        println!(
            "cargo:warning=`{cc} -print-file-name=libgcc_eh.a` names no file: the shared \
             library links libgcc_s.so.1 (APPFUNCTIONS_STATIC_UNWINDER)"
        );
        return;
    };
    let dir = out.join("static-unwinder");
    let script = format!(
        "/* written by build.rs (static_unwinder): the unwinder linked into libappfunctions.so */\nINPUT({archive})\n"
    );
    if std::fs::create_dir_all(&dir).is_err()
        || std::fs::write(dir.join("libgcc_s.so"), script).is_err()
    {
        return;
    }
    println!("cargo:rustc-cdylib-link-arg=-L{}", dir.display());
}
