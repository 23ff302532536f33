//! Short renderings of values for messages.

use serde_json::Value;

/// A short description of a JSON value for messages: `string "two"`, `number 2.5`.
pub fn describe_json(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) => format!("number {n}"),
        Value::String(s) => format!("string {}", quote_short(s)),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// Quotes text for a message, cut at 40 characters.
pub fn quote_short(s: &str) -> String {
    let mut cut: String = s.chars().take(40).collect();
    if cut.len() < s.len() {
        cut.push('…');
    }
    serde_json::to_string(&cut).unwrap_or_else(|_| "\"?\"".into())
}

/// A key of a descriptor object. Descriptor objects have a handful of keys, and most keys
/// looked for are absent: comparing the few there are costs less than hashing the one
/// looked for (serde_json's maps hash with SipHash).
pub(crate) fn field<'a>(o: &'a serde_json::Map<String, Value>, key: &str) -> Option<&'a Value> {
    if o.len() <= 16 {
        o.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    } else {
        o.get(key)
    }
}
