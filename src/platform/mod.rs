//! The OS bridges: what one platform's assistant integration needs beyond the exports.
//! [`android`]: AppFunctions assets and the GenericDocument conversion; [`apple`]: App
//! Intents. They sit above [`export`](crate::export) and below the C ABI.
//!
//! [`Dispatcher::export`] lives here, the one entry of every export format: the tool
//! lists and Android XML from [`export`](crate::export), the platforms' sources from
//! their bridges.

#[cfg(feature = "android")]
pub mod android;
// without the `android` feature: what the C ABI's `af_android_*` functions reach (their
// response is the error `2000` naming the feature)
#[cfg(not(feature = "android"))]
pub(crate) mod android {
    mod off;
    pub(crate) use off::*;
}
#[cfg(feature = "apple")]
pub(crate) mod apple;

use crate::engine::dispatcher::Dispatcher;
#[cfg(feature = "apple")]
use crate::engine::log::LogLevel;
use crate::export::{text, ExportError, Format};

impl Dispatcher {
    /// ```
    /// use appfunctions::{export::Format, sync_handler, Dispatcher};
    /// let d = Dispatcher::new();
    /// d.register_function(r#"{"id": "ping", "description": "Answers pong"}"#, Some(sync_handler(|_| Ok(None))))?;
    /// let tools: serde_json::Value = serde_json::from_str(&d.export(Format::Mcp).unwrap()).unwrap();
    /// assert_eq!(tools[0]["name"], "ping");
    /// assert_eq!(tools[0]["description"], "Answers pong");
    /// let swift = d.export(Format::SwiftAppIntents).unwrap();
    /// assert!(swift.contains("struct PingIntent: AppIntent, AppFunctionsIntent {"));
    /// # Ok::<(), appfunctions::Error>(())
    /// ```
    ///
    /// Exports every enabled function as a tool list (`mcp`, `openai`, `openai-chat`,
    /// `anthropic`, `gemini`), or the registry as Android's AppFunctions schema XML
    /// (`android-xml`, disabled functions included with `enabledByDefault` false) and its
    /// other assets (`android-legacy-xml`, `android-schema`, `android-manifest`;
    /// docs/android.md), or as App Intents Swift source (`swift-app-intents`,
    /// docs/apple.md).
    pub fn export(&self, format: Format) -> std::result::Result<String, ExportError> {
        match format {
            #[cfg(feature = "android")]
            Format::AndroidXml => text::android_xml(&self.snapshot()),
            #[cfg(feature = "apple")]
            Format::SwiftAppIntents => Ok(self.swift_app_intents()),
            #[cfg(feature = "android")]
            Format::AndroidLegacyXml => {
                let s = self.snapshot();
                Ok(android::assets::legacy_xml(
                    s.entries().map(|e| (e.desc.id.as_str(), e.is_enabled())),
                ))
            }
            #[cfg(feature = "android")]
            Format::AndroidSchema => Ok(android::assets::SCHEMA_XSD.to_owned()),
            #[cfg(feature = "android")]
            Format::AndroidManifest => Ok(android::assets::manifest()),
            #[cfg(not(feature = "android"))]
            Format::AndroidXml
            | Format::AndroidLegacyXml
            | Format::AndroidSchema
            | Format::AndroidManifest => Err(left_out(format, "Android's assets", "android")),
            #[cfg(not(feature = "apple"))]
            Format::SwiftAppIntents => {
                Err(left_out(format, "the App Intents Swift source", "apple"))
            }
            _ => text::tool_list(&self.snapshot(), format),
        }
    }

    /// The registry as App Intents Swift: every declared function, enabled or not (an
    /// intent is compiled into the app; a disabled function answers `Disabled` when it
    /// runs). Each function left out, and each entity field Shortcuts cannot show, is a
    /// warning in the dispatcher's log as well as a line of the file's header.
    #[cfg(feature = "apple")]
    fn swift_app_intents(&self) -> String {
        let s = self.snapshot();
        let out = apple::app_intents(&s.types, s.entries().map(|e| &e.desc), &s.metadata_defaults);
        for l in &out.left_out {
            self.log(
                LogLevel::Warn,
                &format!(
                    "swift-app-intents: function {} is left out: {}",
                    l.function, l.reason
                ),
            );
        }
        for n in &out.notes {
            self.log(LogLevel::Warn, &format!("swift-app-intents: {n}"));
        }
        out.text
    }
}

/// The refusal of a format whose writer this build leaves out (a cargo feature).
#[cfg(not(all(feature = "android", feature = "apple")))]
fn left_out(format: Format, what: &str, feature: &str) -> ExportError {
    ExportError::Unsupported {
        format,
        subject: "this build".into(),
        reason: crate::model::error::left_out(what, feature),
    }
}

/// An export without a running app: what `bundle::load(bundle_json)?.export(format)`
/// gives ([`crate::bundle`]), every format included. The error names the bundle's item and
/// path, or the export's refusal.
pub fn export_bundle(bundle_json: &str, format: Format) -> std::result::Result<String, String> {
    let d = crate::engine::bundle::load(bundle_json).map_err(|e| format!("bundle: {e}"))?;
    d.export(format).map_err(|e| e.to_string())
}
