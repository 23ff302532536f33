//! `appfunctions`: the core's exports for build tools, from a descriptor bundle, without
//! a running app (Gradle, MSBuild, SwiftPM and Xcode build steps run it).
//!
//! ```text
//! appfunctions export --bundle app.bundle.json --format android-xml [--out app_functions_v2.xml]
//! appfunctions formats
//! ```

use appfunctions::export::Format;
use std::io::Write;
use std::process::ExitCode;

const USAGE: &str = "\
usage:
  appfunctions export --bundle FILE --format FORMAT [--out FILE]
      writes FORMAT made from the descriptor bundle FILE (`-` reads standard input) to
      --out (written only when it changes) or standard output
  appfunctions formats
      lists the export formats
  appfunctions --version | --help
A bundle is what af_dispatcher_bundle_json writes (docs/descriptors.md, \"Bundles\").";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("appfunctions: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    match args.first().map(String::as_str) {
        None | Some("--help" | "-h" | "help") => {
            println!("{USAGE}");
            Ok(())
        }
        Some("--version") => {
            println!("appfunctions {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        Some("formats") => {
            for f in Format::ALL {
                println!("{}", f.name());
            }
            Ok(())
        }
        Some("export") => export(&args[1..]),
        Some(other) => Err(format!("unknown command \"{other}\"\n{USAGE}")),
    }
}

fn export(args: &[String]) -> Result<(), String> {
    let (mut bundle, mut format, mut out) = (None, None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let slot = match a.as_str() {
            "--bundle" => &mut bundle,
            "--format" => &mut format,
            "--out" => &mut out,
            other => return Err(format!("export: unknown option \"{other}\"\n{USAGE}")),
        };
        *slot = Some(
            it.next()
                .ok_or_else(|| format!("export: {a} needs a value"))?
                .clone(),
        );
    }
    let bundle = bundle.ok_or("export: --bundle FILE is required")?;
    let format: Format = format
        .ok_or("export: --format FORMAT is required (see `appfunctions formats`)")?
        .parse()
        .map_err(|e| format!("export: {e}"))?;
    let text = if bundle == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|e| format!("reading the bundle from standard input: {e}"))?;
        s
    } else {
        std::fs::read_to_string(&bundle).map_err(|e| format!("reading {bundle}: {e}"))?
    };
    let made = appfunctions::export_bundle(&text, format).map_err(|e| format!("{bundle}: {e}"))?;
    match out {
        None => std::io::stdout()
            .write_all(made.as_bytes())
            .map_err(|e| format!("writing standard output: {e}")),
        Some(path) => {
            // unchanged files keep their time stamps, so incremental builds stay incremental
            if std::fs::read_to_string(&path).ok().as_deref() == Some(made.as_str()) {
                return Ok(());
            }
            if let Some(dir) = std::path::Path::new(&path).parent() {
                if !dir.as_os_str().is_empty() {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| format!("creating {}: {e}", dir.display()))?;
                }
            }
            std::fs::write(&path, made).map_err(|e| format!("writing {path}: {e}"))
        }
    }
}
