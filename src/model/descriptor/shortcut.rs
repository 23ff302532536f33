//! A function's optional App Shortcut (`"appShortcut"`): the spoken phrases that run it
//! from Siri and Spotlight without any setup, for the Swift App Intents export.

use crate::model::error::{Error, Result};
use crate::model::types::{check_keys, describe_json};
use serde_json::Value;

/// The token a phrase writes where the app's name goes (App Intents'
/// `\(.applicationName)`; the same spelling as Apple's AppShortcuts.strings keys).
pub const APPLICATION_NAME_TOKEN: &str = "${applicationName}";

/// The most phrases one App Shortcut takes here (App Intents sets no lower bound; more
/// than a handful only makes Siri's matching worse).
pub(crate) const MAX_PHRASES: usize = 20;

/// `"appShortcut": {"phrases": [...], "shortTitle"?: "...", "systemImageName"?: "..."}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppShortcut {
    /// Each contains the application-name token `${applicationName}` at least once.
    pub phrases: Vec<String>,
    /// The title the Shortcuts app shows (default: the function's title).
    pub short_title: Option<String>,
    /// An SF Symbols name (default: `"bolt"`).
    pub system_image_name: Option<String>,
}

impl AppShortcut {
    /// Parses and validates the `appShortcut` of function `fid`.
    pub fn parse(v: &Value, fid: &str) -> Result<AppShortcut> {
        let path = format!("{fid}.appShortcut");
        let o = v.as_object().ok_or_else(|| {
            Error::descriptor(
                &path,
                format!(
                    "expected {{\"phrases\": [...], \"shortTitle\"?: \"...\", \"systemImageName\"?: \"...\"}}, got {}",
                    describe_json(v)
                ),
            )
        })?;
        check_keys(o, &path, &["phrases", "shortTitle", "systemImageName"])?;
        let items = match o.get("phrases") {
            Some(Value::Array(a)) if !a.is_empty() => a,
            Some(Value::Array(_)) | None | Some(Value::Null) => {
                return Err(Error::descriptor(
                    format!("{path}.phrases"),
                    format!("an App Shortcut needs at least one phrase, each containing {APPLICATION_NAME_TOKEN}"),
                ))
            }
            Some(other) => {
                return Err(Error::descriptor(
                    format!("{path}.phrases"),
                    format!("expected an array of phrases, got {}", describe_json(other)),
                ))
            }
        };
        if items.len() > MAX_PHRASES {
            return Err(Error::descriptor(
                format!("{path}.phrases"),
                format!(
                    "{} phrases, more than the {MAX_PHRASES} allowed",
                    items.len()
                ),
            ));
        }
        let mut phrases = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let at = format!("{path}.phrases[{i}]");
            let Value::String(p) = item else {
                return Err(Error::descriptor(
                    at,
                    format!("expected a phrase string, got {}", describe_json(item)),
                ));
            };
            check_phrase(p).map_err(|why| Error::descriptor(&at, why))?;
            if phrases.contains(p) {
                return Err(Error::descriptor(at, format!("duplicate phrase {p:?}")));
            }
            phrases.push(p.clone());
        }
        let text = |key: &str| -> Result<Option<String>> {
            match o.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s))
                    if !s.trim().is_empty() && !s.chars().any(char::is_control) =>
                {
                    Ok(Some(s.clone()))
                }
                Some(other) => Err(Error::descriptor(
                    format!("{path}.{key}"),
                    format!(
                        "expected non-empty text on one line, got {}",
                        describe_json(other)
                    ),
                )),
            }
        };
        Ok(AppShortcut {
            phrases,
            short_title: text("shortTitle")?,
            system_image_name: text("systemImageName")?,
        })
    }

    /// The normalised JSON form (as the registry lists it).
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "phrases": self.phrases,
            "shortTitle": self.short_title,
            "systemImageName": self.system_image_name,
        })
    }
}

/// Why a phrase cannot be an App Shortcut phrase, if it cannot.
fn check_phrase(p: &str) -> std::result::Result<(), String> {
    if !p.contains(APPLICATION_NAME_TOKEN) {
        return Err(format!(
            "the phrase {p:?} does not contain the application-name token {APPLICATION_NAME_TOKEN}: Siri runs an App Shortcut only from a phrase that names the app, so write it where the app's name goes (\"Create an order in {APPLICATION_NAME_TOKEN}\")"
        ));
    }
    if p.chars().any(char::is_control) {
        return Err("a phrase is one line of text: it holds a control character".into());
    }
    let rest = p.replace(APPLICATION_NAME_TOKEN, "");
    if rest.contains("${") {
        return Err(format!(
            "the phrase {p:?} holds a token other than {APPLICATION_NAME_TOKEN} (the only token a phrase may hold)"
        ));
    }
    if rest.trim().is_empty() {
        return Err(format!(
            "the phrase {p:?} is only the app's name: say what the shortcut does too"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<AppShortcut> {
        AppShortcut::parse(&v, "create_order")
    }

    #[test]
    fn a_shortcut_takes_phrases_naming_the_app_and_optional_texts() {
        let s = parse(json!({"phrases": ["Create an order in ${applicationName}", "${applicationName} new order"],
                             "shortTitle": "New order", "systemImageName": "cart"}))
        .unwrap();
        assert_eq!(s.phrases.len(), 2);
        assert_eq!(s.short_title.as_deref(), Some("New order"));
        assert_eq!(s.system_image_name.as_deref(), Some("cart"));
        let s = parse(json!({"phrases": ["Order with ${applicationName}"]})).unwrap();
        assert_eq!(s.short_title, None);
        assert_eq!(s.to_json()["shortTitle"], Value::Null);
    }

    #[test]
    fn a_phrase_without_the_application_name_token_is_refused_saying_so() {
        let e = parse(json!({"phrases": ["Create an order"]}))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("create_order.appShortcut.phrases[0]: the phrase \"Create an order\" does not contain the application-name token ${applicationName}"),
            "{e}"
        );
        let e =
            parse(json!({"phrases": ["Order in ${applicationName}", "Order in $applicationName"]}))
                .unwrap_err()
                .to_string();
        assert!(e.starts_with("create_order.appShortcut.phrases[1]:"), "{e}");
    }

    #[test]
    fn bad_shortcuts_are_refused_naming_the_path() {
        for (v, start) in [
            (json!("x"), "create_order.appShortcut: expected {"),
            (json!({}), "create_order.appShortcut.phrases: an App Shortcut needs at least one phrase"),
            (json!({"phrases": []}), "create_order.appShortcut.phrases: an App Shortcut needs at least one phrase"),
            (json!({"phrases": "a ${applicationName}"}), "create_order.appShortcut.phrases: expected an array"),
            (json!({"phrases": [1]}), "create_order.appShortcut.phrases[0]: expected a phrase string"),
            (json!({"phrases": ["${applicationName}"]}), "create_order.appShortcut.phrases[0]: the phrase \"${applicationName}\" is only the app's name"),
            (json!({"phrases": ["Order ${item} in ${applicationName}"]}), "create_order.appShortcut.phrases[0]: the phrase \"Order ${item} in ${applicationName}\" holds a token other than"),
            (json!({"phrases": ["a\n${applicationName}"]}), "create_order.appShortcut.phrases[0]: a phrase is one line"),
            (json!({"phrases": ["a ${applicationName}", "a ${applicationName}"]}), "create_order.appShortcut.phrases[1]: duplicate phrase"),
            (json!({"phrases": ["a ${applicationName}"], "shortTitle": ""}), "create_order.appShortcut.shortTitle: expected non-empty text"),
            (json!({"phrases": ["a ${applicationName}"], "systemImageName": 3}), "create_order.appShortcut.systemImageName: expected non-empty text"),
            (json!({"phrases": ["a ${applicationName}"], "image": "x"}), "create_order.appShortcut.image: unknown field"),
        ] {
            let e = parse(v.clone()).unwrap_err().to_string();
            assert!(e.starts_with(start), "{v}: {e}");
        }
        let many: Vec<String> = (0..21)
            .map(|i| format!("{i} ${{applicationName}}"))
            .collect();
        let e = parse(json!({"phrases": many})).unwrap_err().to_string();
        assert!(e.contains("21 phrases, more than the 20 allowed"), "{e}");
    }
}
