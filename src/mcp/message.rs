//! Reading a message without building a tree of its text: the members of a JSON-RPC
//! message and of the params we read, as raw slices of the input; ids in canonical form;
//! batches.

use super::*;

/// Reads the members named in `$field => "$key"` of a JSON object as raw text borrowed
/// from the input; other members are skipped without allocating, and of a repeated
/// member the last one counts (as a JSON parser building an object keeps it).
macro_rules! raw_members {
    ($(#[$doc:meta])* $name:ident { $($field:ident => $key:literal),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Default)]
        pub(super) struct $name<'a> {
            $(pub(super) $field: Option<&'a RawValue>,)*
        }
        impl<'de: 'a, 'a> Deserialize<'de> for $name<'a> {
            fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> de::Visitor<'de> for V {
                    type Value = $name<'de>;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str("a JSON object")
                    }
                    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                        let mut out = $name::default();
                        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                            match &*key {
                                $($key => out.$field = Some(map.next_value::<&'de RawValue>()?),)*
                                _ => {
                                    map.next_value::<IgnoredAny>()?;
                                }
                            }
                        }
                        Ok(out)
                    }
                }
                d.deserialize_map(V)
            }
        }
    };
}

raw_members!(
    /// The members of a JSON-RPC message we read.
    Message {
        jsonrpc => "jsonrpc",
        id => "id",
        method => "method",
        params => "params",
        result => "result",
        error => "error",
    }
);

raw_members!(
    /// The params members any method of ours reads.
    RawParams {
        meta => "_meta",
        protocol_version => "protocolVersion",
        cursor => "cursor",
        name => "name",
        arguments => "arguments",
        request_id => "requestId",
        notifications => "notifications",
    }
);

raw_members!(
    /// The request envelope of 2026-07-28.
    Meta {
        version => "io.modelcontextprotocol/protocolVersion",
        capabilities => "io.modelcontextprotocol/clientCapabilities",
    }
);

/// A request's params: what [`RawParams`] read, and whether they were an object at all
/// (anything else reads as no params).
#[derive(Default)]
pub(super) struct Params<'a> {
    pub(super) raw: RawParams<'a>,
    pub(super) object: bool,
}

impl<'a> std::ops::Deref for Params<'a> {
    type Target = RawParams<'a>;
    fn deref(&self) -> &RawParams<'a> {
        &self.raw
    }
}

#[derive(Deserialize, Default)]
pub(super) struct Filter {
    #[serde(rename = "toolsListChanged", default)]
    pub(super) tools_list_changed: Option<IgnoredValueOr<bool>>,
}

/// A value of type `T`, or anything else (ignored): a filter field of the wrong type
/// subscribes to nothing rather than failing the request.
pub(super) enum IgnoredValueOr<T> {
    Value(T),
    Other,
}

impl<'de> Deserialize<'de> for IgnoredValueOr<bool> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&RawValue>::deserialize(d)?;
        Ok(match raw.get() {
            "true" => IgnoredValueOr::Value(true),
            "false" => IgnoredValueOr::Value(false),
            _ => IgnoredValueOr::Other,
        })
    }
}

/// What kind of JSON value `text` (valid JSON) is, for messages.
pub(super) fn json_kind(text: &str) -> &'static str {
    match text.as_bytes().first() {
        Some(b'[') => "an array",
        Some(b'{') => "an object",
        Some(b'"') => "a string",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
    }
}

/// The members every method shares: `_meta`, when present, is an object (the request
/// envelope of 2026-07-28 lives there).
pub(super) fn validate_params(p: &Params<'_>) -> Result<(), String> {
    match p.meta {
        Some(m) if !is_object(m) => Err(format!(
            "params._meta must be an object, not {}",
            json_kind(m.get())
        )),
        _ => Ok(()),
    }
}

pub(super) fn is_object(raw: &RawValue) -> bool {
    raw.get().starts_with('{')
}

pub(super) fn as_string<'a>(raw: &'a RawValue) -> Option<Cow<'a, str>> {
    if raw.get().starts_with('"') {
        serde_json::from_str::<Cow<'a, str>>(raw.get()).ok()
    } else {
        None
    }
}

/// A request id as canonical JSON text: a string or an integer; `None` for anything else.
pub(super) fn canonical_id(raw: &RawValue) -> Option<String> {
    let t = raw.get();
    if t.starts_with('"') {
        let s: String = serde_json::from_str(t).ok()?;
        return serde_json::to_string(&s).ok();
    }
    if t.starts_with(|c: char| c == '-' || c.is_ascii_digit())
        && t.bytes().all(|b| b == b'-' || b.is_ascii_digit())
    {
        if let Ok(n) = t.parse::<i64>() {
            return Some(n.to_string());
        }
        if let Ok(n) = t.parse::<u64>() {
            return Some(n.to_string());
        }
    }
    None
}

/// A batch's items, at most [`MAX_BATCH`] of them, borrowed.
pub(super) struct Batch<'a>(pub(super) Vec<&'a RawValue>);

impl<'de: 'a, 'a> Deserialize<'de> for Batch<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> de::Visitor<'de> for V {
            type Value = Batch<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "an array of at most {MAX_BATCH} messages")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<&'de RawValue>()? {
                    if items.len() == MAX_BATCH {
                        return Err(de::Error::custom(format!(
                            "a batch holds at most {MAX_BATCH} messages"
                        )));
                    }
                    items.push(item);
                }
                Ok(Batch(items))
            }
        }
        d.deserialize_seq(V)
    }
}

/// Whether `text` is well-formed JSON (checked without building anything).
pub(super) fn well_formed(text: &str) -> Result<(), serde_json::Error> {
    serde_json::from_str::<IgnoredAny>(text).map(|_| ())
}

/// The deepest nesting of arrays and objects an MCP message may have: checked over the
/// whole message before it is parsed, so it holds for members the server skips as well.
pub(crate) const MAX_NESTING: usize = 128;

/// The byte offset where `text` nests arrays and objects deeper than `limit`, if it does
/// (brackets inside strings do not count; the text need not be valid JSON).
pub(super) fn nests_deeper(text: &str, limit: usize) -> Option<usize> {
    let b = text.as_bytes();
    let (mut depth, mut i) = (0usize, 0usize);
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() {
                    match b[i] {
                        b'\\' => i += 1,
                        b'"' => break,
                        _ => {}
                    }
                    i += 1;
                }
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return Some(i);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// `T` read from a JSON object only: serde's derived structs also take an array,
/// positionally, which no JSON-RPC message or MCP params may be.
pub(super) struct ObjectOnly<T>(pub(super) T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ObjectOnly<T> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> de::Visitor<'de> for V<T> {
            type Value = T;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
            .map(ObjectOnly)
    }
}
