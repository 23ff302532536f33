//! Exports: the registry as a tool list or Android XML.

use super::*;

/// Exports the registry (owned text): `"mcp"`, `"openai"`, `"openai-chat"`,
/// `"anthropic"`, `"gemini"` give a JSON tool list of every enabled function;
/// `"android-xml"` gives Android's AppFunctions schema XML (`app_functions_v2.xml`),
/// `"android-legacy-xml"` the legacy `app_functions.xml`, `"android-schema"` the
/// `app_functions_schema.xsd` the indexer reads, `"android-manifest"` the service's manifest
/// entries (docs/android.md); `"swift-app-intents"` the App Intents Swift source of every
/// declared function (docs/apple.md; what App Intents cannot express is left out, named in
/// the file's header and logged as a warning). NULL on error (unknown format, a name a
/// vendor refuses: `af_last_error`).
#[no_mangle]
pub unsafe extern "C" fn af_export_copy(
    d: *mut af_dispatcher,
    format: *const c_char,
) -> *mut c_char {
    boundary(|| {
        // SAFETY: checked by the helpers.
        let (Ok(d), Ok(f)) = (unsafe { af_dispatcher::get(d) }, unsafe {
            format_arg(format)
        }) else {
            return std::ptr::null_mut();
        };
        match d.export(f) {
            Ok(s) => out_string(&s),
            Err(e) => {
                set_last_error(&e.to_string());
                std::ptr::null_mut()
            }
        }
    })
}
