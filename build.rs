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

/// Keep in step with `AF_ABI_VERSION` in src/ffi/mod.rs (a test checks it).
const ABI: u32 = 1;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    startup_order(&os);
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
