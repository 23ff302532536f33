//! Linux shared library naming (docs/abi.md): the cdylib carries the SONAME
//! `libappfunctions.so.<ABI>`, so a host linked against ABI 1 never loads a library of
//! another ABI. Exports need no version script: rustc already exports exactly the
//! `#[no_mangle]` items of src/ffi (all `af_*`; `ci/abi.sh` checks it).
//!
//! Cargo still writes `target/<profile>/libappfunctions.so`; this script also makes the
//! `libappfunctions.so.1 -> libappfunctions.so` link beside it (as `make install` would),
//! so a host linked with `-L target/release -lappfunctions` runs from the build tree.

/// Keep in step with `AF_ABI_VERSION` in src/ffi/mod.rs (a test checks it).
const ABI: u32 = 1;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
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
