//! The OS bridges: what one platform's assistant integration needs beyond the exports.
//! [`android`]: AppFunctions assets and the GenericDocument conversion; [`apple`]: App
//! Intents. They sit above [`export`](crate::export) and below the C ABI.
//!
//! [`Dispatcher::export`] lives here, the one entry of every export format: the tool
//! lists and Android XML from [`export`](crate::export), the platforms' sources from
//! their bridges.

pub mod android;
pub(crate) mod apple;

use crate::engine::dispatcher::Dispatcher;
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
            Format::AndroidXml => text::android_xml(&self.snapshot()),
            Format::SwiftAppIntents => Ok(self.swift_app_intents()),
            Format::AndroidLegacyXml => {
                let s = self.snapshot();
                Ok(android::assets::legacy_xml(
                    s.entries().map(|e| (e.desc.id.as_str(), e.is_enabled())),
                ))
            }
            Format::AndroidSchema => Ok(android::assets::SCHEMA_XSD.to_owned()),
            Format::AndroidManifest => Ok(android::assets::manifest()),
            _ => text::tool_list(&self.snapshot(), format),
        }
    }

    /// The registry as App Intents Swift: every declared function, enabled or not (an
    /// intent is compiled into the app; a disabled function answers `Disabled` when it
    /// runs). Each function left out, and each entity field Shortcuts cannot show, is a
    /// warning in the dispatcher's log as well as a line of the file's header.
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

/// An export without a running app: what `bundle::load(bundle_json)?.export(format)`
/// gives ([`crate::bundle`]), every format included. The error names the bundle's item and
/// path, or the export's refusal.
pub fn export_bundle(bundle_json: &str, format: Format) -> std::result::Result<String, String> {
    let d = crate::engine::bundle::load(bundle_json).map_err(|e| format!("bundle: {e}"))?;
    d.export(format).map_err(|e| e.to_string())
}
