//! Each registry entry's tool object written straight as JSON text from its descriptor,
//! in every JSON format: the bytes `export` makes of the function's JSON Schemas
//! (serde_json trees it copies and rewrites for the vendor, then serialises), without the
//! trees. The vendor's rewrites are done while writing: OpenAI strict mode's (required
//! lists, constraints moved into descriptions, `$schema` dropped), MCP's output schema
//! (the object a `$ref` names inlined, other results wrapped), Gemini's OpenAPI subset
//! (references inlined, nullability, formats and bounds).
//!
//! A named type's schema is the same in every function that uses it: a [`Pass`] (one
//! export, or one view's tool list) writes it once per form and splices it into each
//! function's `$defs` (Gemini: inlines it).
//!
//! What this writes must stay byte-identical to `export` over the schemas of
//! `crate::model::schema` (key order included, even where serde_json's `remove` moves the last
//! key of an object into the removed one's place): `tests/export_bytes.rs` compares the
//! two over descriptors that use every type, constraint, default and text the core
//! accepts (the fuzz target `roundtrip` over generated ones), and `listing` falls back to
//! `export` where this declines (a name the format refuses, a schema Gemini cannot
//! express: the error is `export`'s).

use crate::export::{self, Format, ToolSpec};
use crate::model::condition;
use crate::model::constraints::{Bound, Constraints};
use crate::model::descriptor::{FunctionDescriptor, FunctionKind};
use crate::model::schema::DRAFT_2020_12;
use crate::model::types::{Field, Parameter, Type, TypeSet};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt::Write as _;

// ---------------------------------------------------------------------------------------
// JSON text
// ---------------------------------------------------------------------------------------

/// `s` as a JSON string, escaped as serde_json escapes it (`"`, `\`, the short escapes
/// of `\b \f \n \r \t`, other control characters as `\u00xx`).
pub(super) fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    push_json_str_contents(out, s);
    out.push('"');
}

/// The inside of [`push_json_str`] (no quotes).
fn push_json_str_contents(out: &mut String, s: &str) {
    let bytes = s.as_bytes();
    // most texts need no escape: one pass without branches says so
    if !bytes.iter().fold(false, |any, &b| {
        any | (b < 0x20) | (b == b'"') | (b == b'\\')
    }) {
        out.push_str(s);
        return;
    }
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if esc.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xf)]));
        } else {
            out.push_str(esc);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
}

/// A JSON array of strings.
fn push_str_array<'s>(out: &mut String, items: impl IntoIterator<Item = &'s str>) {
    out.push('[');
    for (i, s) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_json_str(out, s);
    }
    out.push(']');
}

/// A JSON value (defaults, bounds) as serde_json writes it.
fn push_value(out: &mut String, v: &Value) {
    let _ = write!(out, "{v}");
}

/// The top-level members of a JSON object's text (`{"a":1,"b":[2]}` → `"a":1`, `"b":[2]`).
fn top_members(obj: &str) -> Vec<&str> {
    let b = obj.as_bytes();
    let (mut depth, mut in_str, mut esc) = (0usize, false, false);
    let mut start = 1;
    let mut out = Vec::new();
    for (i, &c) in b.iter().enumerate() {
        if in_str {
            match (esc, c) {
                (true, _) => esc = false,
                (false, b'\\') => esc = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => in_str = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 && i > start {
                    out.push(&obj[start..i]);
                }
            }
            b',' if depth == 1 => {
                out.push(&obj[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Texts rendered with the metadata
// ---------------------------------------------------------------------------------------

/// Renders `{metadata.X}` placeholders as `condition::render` does, noting whether any text
/// held one (what shows then depends on the metadata, so it is not kept).
pub(super) struct Render<'m> {
    metadata: &'m Value,
    pub templated: bool,
}

impl<'m> Render<'m> {
    pub(super) fn new(metadata: &'m Value) -> Render<'m> {
        Render {
            metadata,
            templated: false,
        }
    }

    pub(super) fn text<'t>(&mut self, t: &'t str) -> Cow<'t, str> {
        if t.as_bytes().contains(&b'{') && t.contains("{metadata.") {
            self.templated = true;
            Cow::Owned(condition::render(t, self.metadata))
        } else {
            Cow::Borrowed(t)
        }
    }

    fn fresh(&self) -> Render<'m> {
        Render::new(self.metadata)
    }
}

// ---------------------------------------------------------------------------------------
// Named types, written once per pass
// ---------------------------------------------------------------------------------------

/// A named type that goes into `$defs` (ordered as `schema` orders them: enums, records,
/// entities, each by index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum DefKey {
    Enum(usize),
    Record(usize),
    Entity(usize),
}

/// What a pass keeps of one named type: each form written once, with whether a text in
/// it held a placeholder.
#[derive(Default)]
struct Def<'a> {
    refs: Option<Vec<DefKey>>,
    standard: Option<(String, bool)>,
    /// `Some(None)`: this type keeps a function from OpenAI strict mode.
    strict: Option<Option<(String, bool)>>,
    /// With how many named types it inlines, itself included.
    gemini: Option<(Node<'a>, bool, usize)>,
}

#[cfg(test)]
thread_local! {
    /// The work `Pass::closure` did on this thread: references followed.
    static CLOSURE_STEPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// One export (or one view's tool list): the metadata texts render with, and the named
/// types' texts written so far.
pub(crate) struct Pass<'a> {
    types: &'a TypeSet,
    metadata: &'a Value,
    defs: Vec<Def<'a>>,
    /// Named types the Gemini declaration being written has inlined, each repeat counted.
    gemini_inlined: usize,
    /// Where each tool object is written before it is copied out at its size (one buffer,
    /// warm in the cache, rather than a new one grown and shrunk per function).
    scratch: String,
}

/// Where a type appears: as a parameter an entity is given by id; as a value, in full.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Parameters,
    Values,
}

/// A parameter or field as the schema shows it.
#[derive(Clone, Copy)]
struct Slot<'t> {
    name: &'t str,
    ty: &'t Type,
    cons: Option<&'t Constraints>,
    description: Option<&'t str>,
    optional: bool,
    default: Option<&'t Value>,
}

impl<'t> Slot<'t> {
    fn param(p: &'t Parameter) -> Slot<'t> {
        Slot {
            name: &p.name,
            ty: &p.ty,
            cons: p.constraints.as_deref(),
            description: p.description.as_deref(),
            optional: p.optional,
            default: p.default_value(),
        }
    }

    /// A parameter as a field of an output function's result (its bound arguments).
    fn output(p: &'t Parameter) -> Slot<'t> {
        Slot {
            optional: p.optional && p.default_json().is_none(),
            default: None,
            ..Slot::param(p)
        }
    }

    fn field(f: &'t Field) -> Slot<'t> {
        Slot {
            name: &f.name,
            ty: &f.ty,
            cons: f.constraints.as_deref(),
            description: f.description.as_deref(),
            optional: f.optional,
            default: None,
        }
    }
}

/// The named type a type refers to by `$ref` on `side`, if it is one.
fn ref_key(ty: &Type, side: Side) -> Option<DefKey> {
    match ty {
        Type::Enum(i) => Some(DefKey::Enum(*i)),
        Type::Record(i) => Some(DefKey::Record(*i)),
        Type::Entity(i) if side == Side::Values => Some(DefKey::Entity(*i)),
        _ => None,
    }
}

/// Whether the schema of `ty` is typed (a `"type"` string, no `$ref`), so that its
/// nullable form is `"type": [T, "null"]` rather than an `anyOf`.
fn is_typed(ty: &Type, side: Side) -> bool {
    !matches!(ty, Type::Nullable(_)) && ref_key(ty, side).is_none()
}

/// The named types a type's schema refers to.
fn collect_refs(ty: &Type, side: Side, out: &mut Vec<DefKey>) {
    match ty {
        Type::Array(t) | Type::Nullable(t) => collect_refs(t, side, out),
        t => {
            if let Some(k) = ref_key(t, side) {
                if let Err(at) = out.binary_search(&k) {
                    out.insert(at, k);
                }
            }
        }
    }
}

/// How many arrays a type nests (OpenAI strict mode's depth).
fn arrays(ty: &Type) -> usize {
    match ty {
        Type::Array(t) => 1 + arrays(t),
        Type::Nullable(t) => arrays(t),
        _ => 0,
    }
}

/// Whether a parameter or field keeps OpenAI strict mode: an optional one must accept
/// null (it becomes required, the model sends null), no default but null, not nested
/// deeper than strict mode takes.
fn slot_is_strict(s: &Slot<'_>) -> bool {
    (!s.optional || matches!(s.ty, Type::Nullable(_)))
        && s.default.is_none_or(Value::is_null)
        // the slot's own level is 1, each array's items one more
        && arrays(s.ty) < export::MAX_DEPTH
}

/// The description of an enum as the schema states it: its own, then its members'.
fn enum_description(e: &crate::model::types::EnumDef) -> String {
    let mut desc = e.description.clone().unwrap_or_default();
    let mut first = true;
    for m in &e.members {
        if let Some(d) = &m.description {
            if first {
                if !desc.is_empty() {
                    if !desc.ends_with('.') {
                        desc.push('.');
                    }
                    desc.push(' ');
                }
                first = false;
            } else {
                desc.push_str("; ");
            }
            let _ = write!(desc, "{}: {d}", m.name);
        }
    }
    desc
}

/// The description of an entity parameter (its id).
fn entity_id_text(types: &TypeSet, i: usize) -> String {
    let e = &types.entities[i];
    format!(
        "The id of a {} entity.",
        e.title.as_deref().unwrap_or(&e.name)
    )
}

fn put_bound(out: &mut String, key: &str, b: &Option<Bound>) {
    if let Some(b) = b {
        out.push_str(",\"");
        out.push_str(key);
        out.push_str("\":");
        let _ = write!(out, "{}", b.json);
    }
}

/// A member `,"key":` (never the first of its object).
fn key(out: &mut String, k: &str) {
    out.push_str(",\"");
    out.push_str(k);
    out.push_str("\":");
}

impl<'a> Pass<'a> {
    pub(crate) fn new(types: &'a TypeSet, metadata: &'a Value) -> Pass<'a> {
        Pass {
            types,
            metadata,
            defs: Vec::new(),
            gemini_inlined: 0,
            scratch: String::new(),
        }
    }

    pub(crate) fn types(&self) -> &'a TypeSet {
        self.types
    }

    pub(crate) fn metadata(&self) -> &'a Value {
        self.metadata
    }

    fn def(&mut self, k: DefKey) -> &mut Def<'a> {
        let at = self.def_index(k);
        if self.defs.len() <= at {
            let n = self.def_count();
            self.defs.resize_with(n.max(at + 1), Def::default);
        }
        &mut self.defs[at]
    }

    /// Where a named type's texts are kept in `defs`.
    fn def_index(&self, k: DefKey) -> usize {
        let t = self.types;
        match k {
            DefKey::Enum(i) => i,
            DefKey::Record(i) => t.enums.len() + i,
            DefKey::Entity(i) => t.enums.len() + t.records.len() + i,
        }
    }

    fn def_count(&self) -> usize {
        let t = self.types;
        t.enums.len() + t.records.len() + t.entities.len()
    }

    fn name(&self, k: DefKey) -> &'a str {
        match k {
            DefKey::Enum(i) => &self.types.enums[i].name,
            DefKey::Record(i) => &self.types.records[i].name,
            DefKey::Entity(i) => &self.types.entities[i].name,
        }
    }

    /// The fields of a record or entity (none for an enum).
    fn fields(&self, k: DefKey) -> &'a [Field] {
        match k {
            DefKey::Enum(_) => &[],
            DefKey::Record(i) => &self.types.records[i].fields,
            DefKey::Entity(i) => &self.types.entities[i].fields,
        }
    }

    fn def_description(&self, k: DefKey) -> Option<&'a str> {
        match k {
            DefKey::Enum(_) => None,
            DefKey::Record(i) => self.types.records[i].description.as_deref(),
            DefKey::Entity(i) => self.types.entities[i].description.as_deref(),
        }
    }

    /// The named types a named type's schema refers to.
    fn refs(&mut self, k: DefKey) -> &[DefKey] {
        if self.def(k).refs.is_none() {
            let mut r = Vec::new();
            for f in self.fields(k) {
                collect_refs(&f.ty, Side::Values, &mut r);
            }
            self.def(k).refs = Some(r);
        }
        self.def(k).refs.as_deref().expect("made above")
    }

    /// Every named type a schema needs in `$defs`, in `schema`'s order: those it refers to
    /// (sorted), then in rounds those they refer to that are not in yet (each round sorted).
    /// Linear in the types it reaches (a chain of 4,000 records once took seconds here).
    fn closure(&mut self, direct: Vec<DefKey>) -> Vec<DefKey> {
        let mut order = direct;
        let mut seen = vec![false; self.def_count()];
        for &k in &order {
            seen[self.def_index(k)] = true;
        }
        let mut start = 0;
        loop {
            let mut round: Vec<DefKey> = Vec::new();
            for &k in &order[start..] {
                for n in 0..self.refs(k).len() {
                    #[cfg(test)]
                    CLOSURE_STEPS.with(|c| c.set(c.get() + 1));
                    let r = self.refs(k)[n];
                    let at = self.def_index(r);
                    if !std::mem::replace(&mut seen[at], true) {
                        round.push(r);
                    }
                }
            }
            if round.is_empty() {
                return order;
            }
            round.sort_unstable();
            start = order.len();
            order.extend(round);
        }
    }

    // ---- JSON Schema 2020-12, as crate::model::schema makes it --------------------------------

    /// The schema of one slot (`schema::Builder::schema` with the description and default
    /// attached). `strict`: in OpenAI strict form (a null default dropped; `minLength`,
    /// `maxLength` and `uniqueItems` stated in the description instead).
    #[allow(clippy::too_many_arguments)]
    fn write_slot(
        &mut self,
        out: &mut String,
        r: &mut Render<'_>,
        ty: &Type,
        cons: Option<&Constraints>,
        side: Side,
        description: Option<&str>,
        default: Option<&Value>,
        strict: bool,
    ) {
        out.push('{');
        let mut notes: Vec<String> = Vec::new();
        let mut described = false;
        match ty {
            Type::Nullable(inner) if is_typed(inner, side) => {
                described = self.typed(
                    out,
                    r,
                    inner,
                    cons,
                    side,
                    true,
                    description,
                    strict,
                    &mut notes,
                )
            }
            Type::Nullable(inner) => {
                out.push_str("\"anyOf\":[");
                self.write_slot(out, r, inner, cons, side, None, None, false);
                out.push_str(",{\"type\":\"null\"}]");
            }
            t => match ref_key(t, side) {
                Some(k) => {
                    out.push_str("\"$ref\":\"#/$defs/");
                    push_json_str_contents(out, self.name(k));
                    out.push('"');
                }
                None => {
                    described = self.typed(
                        out,
                        r,
                        t,
                        cons,
                        side,
                        false,
                        description,
                        strict,
                        &mut notes,
                    )
                }
            },
        }
        if !described {
            let mut text = description.map(|d| r.text(d));
            for n in &notes {
                text = Some(Cow::Owned(export::with_note(text.as_deref(), n)));
            }
            if let Some(d) = text {
                key(out, "description");
                push_json_str(out, &d);
            }
        }
        if let Some(d) = default {
            if !(strict && d.is_null()) {
                key(out, "default");
                push_value(out, d);
            }
        }
        out.push('}');
    }

    /// The members of a typed schema (`"type"` first); `null`: nullable (`[T, "null"]`).
    /// Returns whether it wrote the description (an entity id's, which the slot's own
    /// description replaces in place).
    #[allow(clippy::too_many_arguments)]
    fn typed(
        &mut self,
        out: &mut String,
        r: &mut Render<'_>,
        ty: &Type,
        cons: Option<&Constraints>,
        side: Side,
        null: bool,
        description: Option<&str>,
        strict: bool,
        notes: &mut Vec<String>,
    ) -> bool {
        let t = match ty {
            Type::String | Type::DateTime | Type::Date | Type::Uuid | Type::Entity(_) => "string",
            Type::Boolean => "boolean",
            Type::Int32 | Type::Int64 => "integer",
            Type::Double => "number",
            Type::Array(_) => "array",
            _ => unreachable!("named types are references"),
        };
        out.push_str("\"type\":");
        if null {
            out.push_str("[\"");
            out.push_str(t);
            out.push_str("\",\"null\"]");
        } else {
            out.push('"');
            out.push_str(t);
            out.push('"');
        }
        match ty {
            Type::String => self.other(out, cons, strict, notes),
            Type::Int32 | Type::Int64 => {
                let (lo, hi) = if matches!(ty, Type::Int32) {
                    (",\"minimum\":-2147483648", ",\"maximum\":2147483647")
                } else {
                    (
                        ",\"minimum\":-9223372036854775808",
                        ",\"maximum\":9223372036854775807",
                    )
                };
                match cons {
                    Some(c) if c.has_lower() => {
                        put_bound(out, "minimum", &c.minimum);
                        put_bound(out, "exclusiveMinimum", &c.exclusive_minimum);
                    }
                    _ => out.push_str(lo),
                }
                match cons {
                    Some(c) if c.has_upper() => {
                        put_bound(out, "maximum", &c.maximum);
                        put_bound(out, "exclusiveMaximum", &c.exclusive_maximum);
                    }
                    _ => out.push_str(hi),
                }
            }
            Type::Double => {
                if let Some(c) = cons {
                    put_bound(out, "minimum", &c.minimum);
                    put_bound(out, "exclusiveMinimum", &c.exclusive_minimum);
                    put_bound(out, "maximum", &c.maximum);
                    put_bound(out, "exclusiveMaximum", &c.exclusive_maximum);
                }
            }
            Type::DateTime => out.push_str(",\"format\":\"date-time\""),
            Type::Date => out.push_str(",\"format\":\"date\""),
            Type::Uuid => out.push_str(",\"format\":\"uuid\""),
            Type::Array(item) => {
                key(out, "items");
                self.write_slot(out, r, item, None, side, None, None, false);
                self.other(out, cons, strict, notes);
            }
            Type::Entity(i) => {
                key(out, "description");
                match description {
                    Some(d) => push_json_str(out, &r.text(d)),
                    None => push_json_str(out, &r.text(&entity_id_text(self.types, *i))),
                }
                return true;
            }
            _ => {}
        }
        false
    }

    /// `Constraints::write_other`: lengths, pattern, item counts, uniqueness (in strict
    /// form the keywords strict mode refuses become notes).
    fn other(
        &self,
        out: &mut String,
        cons: Option<&Constraints>,
        strict: bool,
        notes: &mut Vec<String>,
    ) {
        let Some(c) = cons else { return };
        let mut count = |out: &mut String, k: &str, v: Option<u64>| {
            if let Some(v) = v {
                if strict && export::STRICT_MOVED.contains(&k) {
                    notes.extend(export::constraint_note(k, &Value::from(v)));
                } else {
                    let _ = write!(out, ",\"{k}\":{v}");
                }
            }
        };
        count(out, "minLength", c.min_length);
        count(out, "maxLength", c.max_length);
        if let Some(p) = &c.pattern {
            key(out, "pattern");
            push_json_str(out, p.source());
        }
        count(out, "minItems", c.min_items);
        count(out, "maxItems", c.max_items);
        if c.unique_items {
            if strict {
                notes.extend(export::constraint_note("uniqueItems", &Value::Bool(true)));
            } else {
                out.push_str(",\"uniqueItems\":true");
            }
        }
    }

    /// `{"a":{…},"b":{…}}` of slots.
    fn properties(
        &mut self,
        out: &mut String,
        r: &mut Render<'_>,
        slots: &[Slot<'_>],
        side: Side,
        strict: bool,
    ) {
        out.push('{');
        for (i, s) in slots.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_json_str(out, s.name);
            out.push(':');
            self.write_slot(out, r, s.ty, s.cons, side, s.description, s.default, strict);
        }
        out.push('}');
    }

    /// The members of an object schema after `"type":"object"` (`schema::Builder::object`):
    /// description, properties, required, `additionalProperties`. In strict form every
    /// property is required (in place, or last when the list was empty).
    fn object_rest(
        &mut self,
        out: &mut String,
        r: &mut Render<'_>,
        slots: &[Slot<'_>],
        description: Option<&str>,
        side: Side,
        strict: bool,
    ) {
        if let Some(d) = description {
            key(out, "description");
            push_json_str(out, &r.text(d));
        }
        key(out, "properties");
        self.properties(out, r, slots, side, strict);
        let required = slots.iter().filter(|s| !s.optional).map(|s| s.name);
        let any_required = slots.iter().any(|s| !s.optional);
        if any_required {
            key(out, "required");
            if strict {
                push_str_array(out, required.chain(optional_names(slots)));
            } else {
                push_str_array(out, required);
            }
        }
        out.push_str(",\"additionalProperties\":false");
        if strict && !any_required {
            key(out, "required");
            push_str_array(out, optional_names(slots));
        }
    }

    /// A named type's schema (standard form), written once per pass.
    fn standard_def(&mut self, k: DefKey, r: &mut Render<'_>) -> &str {
        if self.def(k).standard.is_none() {
            let mut own = r.fresh();
            let text = self.write_def(k, &mut own, false);
            self.def(k).standard = Some((text, own.templated));
        }
        let (text, t) = self.def(k).standard.as_ref().expect("written above");
        r.templated |= *t;
        text
    }

    /// A named type's schema in OpenAI strict form; `None` when it keeps a function out of
    /// strict mode.
    fn strict_def(&mut self, k: DefKey, r: &mut Render<'_>) -> Option<&str> {
        if self.def(k).strict.is_none() {
            let fields = self.fields(k);
            let made = if fields.iter().all(|f| slot_is_strict(&Slot::field(f))) {
                let mut own = r.fresh();
                let text = self.write_def(k, &mut own, true);
                Some((text, own.templated))
            } else {
                None
            };
            self.def(k).strict = Some(made);
        }
        let (text, t) = self
            .def(k)
            .strict
            .as_ref()
            .expect("written above")
            .as_ref()?;
        r.templated |= *t;
        Some(text)
    }

    fn write_def(&mut self, k: DefKey, r: &mut Render<'_>, strict: bool) -> String {
        let mut out = String::with_capacity(256);
        match k {
            DefKey::Enum(i) => {
                let e = &self.types.enums[i];
                out.push_str("{\"type\":\"string\",\"enum\":");
                push_str_array(&mut out, e.members.iter().map(|m| m.name.as_str()));
                let desc = enum_description(e);
                if !desc.is_empty() {
                    key(&mut out, "description");
                    push_json_str(&mut out, &r.text(&desc));
                }
                out.push('}');
            }
            _ => {
                let slots: Vec<Slot<'_>> = self.fields(k).iter().map(Slot::field).collect();
                out.push_str("{\"type\":\"object\"");
                let description = self.def_description(k);
                self.object_rest(&mut out, r, &slots, description, Side::Values, strict);
                out.push('}');
            }
        }
        out
    }

    /// `,"$defs":{…}` of these named types (nothing when there are none).
    fn defs_member(
        &mut self,
        out: &mut String,
        r: &mut Render<'_>,
        keys: &[DefKey],
        strict: bool,
    ) -> Option<()> {
        if keys.is_empty() {
            return Some(());
        }
        out.push_str("\"$defs\":{");
        for (i, k) in keys.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_json_str(out, self.name(*k));
            out.push(':');
            let text = if strict {
                self.strict_def(*k, r)?
            } else {
                self.standard_def(*k, r)
            };
            out.push_str(text);
        }
        out.push('}');
        Some(())
    }

    /// The named types a set of slots needs, in `$defs` order.
    fn defs_of(&mut self, slots: &[Slot<'_>], side: Side) -> Vec<DefKey> {
        let mut direct = Vec::new();
        for s in slots {
            collect_refs(s.ty, side, &mut direct);
        }
        self.closure(direct)
    }

    // ---- the parameters schema, per format ---------------------------------------------

    /// The parameters schema as `schema::parameters_schema` makes it (MCP, Anthropic).
    fn parameters(&mut self, out: &mut String, r: &mut Render<'_>, d: &FunctionDescriptor) {
        let slots: Vec<Slot<'_>> = d.parameters.iter().map(Slot::param).collect();
        let defs = self.defs_of(&slots, Side::Parameters);
        out.push_str("{\"$schema\":\"");
        out.push_str(DRAFT_2020_12);
        out.push('"');
        if let Some(t) = &d.title {
            key(out, "title");
            push_json_str(out, &r.text(t));
        }
        out.push_str(",\"type\":\"object\"");
        self.object_rest(out, r, &slots, None, Side::Parameters, false);
        if !defs.is_empty() {
            out.push(',');
            self.defs_member(out, r, &defs, false);
        }
        out.push('}');
    }

    /// OpenAI's `parameters` and `strict` (`export::openai_parameters`): `$schema` dropped
    /// (serde_json's `remove` moves the last key, `$defs` or `additionalProperties`, into
    /// its place), in strict form when the schema can be made strict.
    fn openai_parameters(
        &mut self,
        out: &mut String,
        r: &mut Render<'_>,
        d: &FunctionDescriptor,
    ) -> bool {
        let slots: Vec<Slot<'_>> = d.parameters.iter().map(Slot::param).collect();
        let defs = self.defs_of(&slots, Side::Parameters);
        let mut strict = slots.iter().all(slot_is_strict);
        if strict {
            let fields: usize = defs.iter().map(|k| self.fields(*k).len()).sum();
            strict = slots.len() + fields <= export::MAX_PROPERTIES;
        }
        let mut defs_text = String::new();
        if strict && !defs.is_empty() {
            // a named type may keep it out of strict mode: then nothing it rendered counts
            let mut own = r.fresh();
            strict = self
                .defs_member(&mut defs_text, &mut own, &defs, true)
                .is_some();
            if strict {
                r.templated |= own.templated;
            } else {
                defs_text.clear();
            }
        }
        if !strict && !defs.is_empty() {
            self.defs_member(&mut defs_text, r, &defs, false);
        }
        out.push('{');
        if defs.is_empty() {
            out.push_str("\"additionalProperties\":false");
        } else {
            out.push_str(&defs_text);
        }
        if let Some(t) = &d.title {
            key(out, "title");
            push_json_str(out, &r.text(t));
        }
        out.push_str(",\"type\":\"object\"");
        key(out, "properties");
        self.properties(out, r, &slots, Side::Parameters, strict);
        let any_required = slots.iter().any(|s| !s.optional);
        let required = slots.iter().filter(|s| !s.optional).map(|s| s.name);
        if any_required {
            key(out, "required");
            if strict {
                push_str_array(out, required.chain(optional_names(&slots)));
            } else {
                push_str_array(out, required);
            }
        }
        if !defs.is_empty() {
            out.push_str(",\"additionalProperties\":false");
        }
        if strict && !any_required {
            key(out, "required");
            push_str_array(out, optional_names(&slots));
        }
        out.push('}');
        strict
    }

    /// MCP's `outputSchema` (`export::mcp_output_schema` of `schema::result_schema`).
    fn mcp_output(
        &mut self,
        out: &mut String,
        r: &mut Render<'_>,
        d: &FunctionDescriptor,
    ) -> Option<()> {
        let schema_member = |out: &mut String| {
            out.push_str("\"$schema\":\"");
            out.push_str(DRAFT_2020_12);
            out.push('"');
        };
        match (&d.result, d.kind) {
            (None, FunctionKind::Output) => {
                // an object already: as is
                let slots: Vec<Slot<'_>> = d.parameters.iter().map(Slot::output).collect();
                let defs = self.defs_of(&slots, Side::Values);
                out.push('{');
                schema_member(out);
                out.push_str(",\"type\":\"object\"");
                self.object_rest(out, r, &slots, None, Side::Values, false);
                if !defs.is_empty() {
                    out.push(',');
                    self.defs_member(out, r, &defs, false);
                }
                out.push('}');
            }
            (None, _) => return None,
            (Some(ty), _) => {
                let mut direct = Vec::new();
                collect_refs(ty, Side::Values, &mut direct);
                let defs = self.closure(direct);
                match ref_key(ty, Side::Values) {
                    Some(k @ (DefKey::Record(_) | DefKey::Entity(_))) => {
                        // a reference to an object: the object inlined at the root
                        let body = self.standard_def(k, r);
                        out.push_str(&body[..body.len() - 1]);
                        out.push(',');
                        schema_member(out);
                        out.push(',');
                        self.defs_member(out, r, &defs, false);
                        out.push('}');
                    }
                    _ => {
                        // wrapped as {"result": …}; removing `$schema` and `$defs` from
                        // the result's schema moved its last member first
                        let mut root = String::with_capacity(128);
                        self.write_slot(
                            &mut root,
                            r,
                            ty,
                            d.result_constraints.as_deref(),
                            Side::Values,
                            None,
                            None,
                            false,
                        );
                        let members = top_members(&root);
                        out.push('{');
                        schema_member(out);
                        if !defs.is_empty() {
                            out.push(',');
                            self.defs_member(out, r, &defs, false);
                        }
                        out.push_str(",\"type\":\"object\",\"properties\":{\"result\":{");
                        if let Some((last, rest)) = members.split_last() {
                            out.push_str(last);
                            for m in rest {
                                out.push(',');
                                out.push_str(m);
                            }
                        }
                        out.push_str(
                            "}},\"required\":[\"result\"],\"additionalProperties\":false}",
                        );
                    }
                }
            }
        }
        Some(())
    }

    // ---- Gemini's OpenAPI subset (export::gemini_schema) -------------------------------

    /// A named type converted (references inlined); `None` when Gemini cannot express it.
    fn gemini_def(
        &mut self,
        k: DefKey,
        r: &mut Render<'_>,
        stack: &mut Vec<DefKey>,
    ) -> Option<Node<'a>> {
        if stack.contains(&k) || stack.len() >= export::GEMINI_MAX_INLINE_DEPTH {
            return None;
        }
        if let Some((n, t, weight)) = &self.def(k).gemini {
            let (n, t, weight) = (n.clone(), *t, *weight);
            self.gemini_inlined += weight;
            if self.gemini_inlined > export::GEMINI_MAX_INLINED_TYPES {
                return None;
            }
            r.templated |= t;
            return Some(n);
        }
        let before = self.gemini_inlined;
        self.gemini_inlined += 1;
        if self.gemini_inlined > export::GEMINI_MAX_INLINED_TYPES {
            return None;
        }
        let mut own = r.fresh();
        stack.push(k);
        let node = self.gemini_def_new(k, &mut own, stack);
        stack.pop();
        let node = node?;
        r.templated |= own.templated;
        let weight = self.gemini_inlined - before;
        self.def(k).gemini = Some((node.clone(), own.templated, weight));
        Some(node)
    }

    fn gemini_def_new(
        &mut self,
        k: DefKey,
        r: &mut Render<'_>,
        stack: &mut Vec<DefKey>,
    ) -> Option<Node<'a>> {
        let mut n = Node::new();
        let types = self.types;
        if let DefKey::Enum(i) = k {
            let e = &types.enums[i];
            n.json("type", quoted("STRING"));
            let desc = enum_description(e);
            let desc = match r.text(&desc) {
                Cow::Borrowed(_) => desc,
                Cow::Owned(rendered) => rendered,
            };
            if !desc.is_empty() {
                n.text("description", desc);
            }
            let mut values = String::new();
            push_str_array(&mut values, e.members.iter().map(|m| m.name.as_str()));
            n.json("enum", values);
            return Some(n);
        }
        let fields = self.fields(k);
        if fields.is_empty() {
            return None;
        }
        n.json("type", quoted("OBJECT"));
        if let Some(d) = self.def_description(k) {
            let d = r.text(d);
            if !d.is_empty() {
                n.text("description", d);
            }
        }
        let slots: Vec<Slot<'_>> = fields.iter().map(Slot::field).collect();
        self.gemini_object(&mut n, r, &slots, Side::Values, stack)?;
        Some(n)
    }

    /// `properties` and `required` of an object.
    fn gemini_object<'d>(
        &mut self,
        n: &mut Node<'d>,
        r: &mut Render<'_>,
        slots: &[Slot<'d>],
        side: Side,
        stack: &mut Vec<DefKey>,
    ) -> Option<()> {
        let mut props = String::with_capacity(160 * slots.len() + 2);
        props.push('{');
        for (i, s) in slots.iter().enumerate() {
            if i > 0 {
                props.push(',');
            }
            push_json_str(&mut props, s.name);
            props.push(':');
            self.gemini_slot(r, s.ty, s.cons, side, s.description, s.default, stack)?
                .write(&mut props);
        }
        props.push('}');
        n.json("properties", props);
        if slots.iter().any(|s| !s.optional) {
            let mut req = String::new();
            push_str_array(
                &mut req,
                slots.iter().filter(|s| !s.optional).map(|s| s.name),
            );
            n.json("required", req);
        }
        Some(())
    }

    /// One slot's schema converted (`Ctx::convert` of what `write_slot` writes).
    #[allow(clippy::too_many_arguments)]
    fn gemini_slot<'d>(
        &mut self,
        r: &mut Render<'_>,
        ty: &'d Type,
        cons: Option<&'d Constraints>,
        side: Side,
        description: Option<&'d str>,
        default: Option<&'d Value>,
        stack: &mut Vec<DefKey>,
    ) -> Option<Node<'d>>
    where
        'a: 'd,
    {
        let (mut n, siblings) = match ty {
            Type::Nullable(inner) if is_typed(inner, side) => (
                self.gemini_typed(r, inner, cons, side, true, description, default, stack)?,
                false,
            ),
            // anyOf [T, null]: T converted, nullable
            Type::Nullable(inner) => {
                let mut n = self.gemini_def(ref_key(inner, side)?, r, stack)?;
                n.json("nullable", "true");
                (n, true)
            }
            t => match ref_key(t, side) {
                Some(k) => (self.gemini_def(k, r, stack)?, true),
                None => (
                    self.gemini_typed(r, t, cons, side, false, description, default, stack)?,
                    false,
                ),
            },
        };
        if siblings {
            // `apply_siblings`: the description and default written beside the reference
            if let Some(d) = description {
                let d = r.text(d);
                if !d.trim().is_empty() {
                    let text = match n.get_text("description") {
                        Some(own) if n.has("enum") => Cow::Owned(export::with_note(Some(&d), own)),
                        _ => d,
                    };
                    n.text("description", text);
                }
            }
            if let Some(d) = default.filter(|d| !d.is_null()) {
                n.note(&format!("Default: {d}."));
            }
        }
        Some(n)
    }

    /// `Ctx::convert_typed` of a typed slot.
    #[allow(clippy::too_many_arguments)]
    fn gemini_typed<'d>(
        &mut self,
        r: &mut Render<'_>,
        ty: &'d Type,
        cons: Option<&'d Constraints>,
        side: Side,
        nullable: bool,
        description: Option<&'d str>,
        default: Option<&'d Value>,
        stack: &mut Vec<DefKey>,
    ) -> Option<Node<'d>>
    where
        'a: 'd,
    {
        let g = match ty {
            Type::String | Type::DateTime | Type::Date | Type::Uuid | Type::Entity(_) => "STRING",
            Type::Boolean => "BOOLEAN",
            Type::Int32 | Type::Int64 => "INTEGER",
            Type::Double => "NUMBER",
            Type::Array(_) => "ARRAY",
            _ => return None,
        };
        let mut n = Node::new();
        n.json("type", quoted(g));
        let own = match (ty, description) {
            (_, Some(d)) => Some(r.text(d)),
            (Type::Entity(i), None) => Some(Cow::Owned(
                r.text(&entity_id_text(self.types, *i)).into_owned(),
            )),
            _ => None,
        };
        if let Some(d) = own.filter(|d| !d.is_empty()) {
            n.text("description", d);
        }
        if nullable {
            n.json("nullable", "true");
        }
        match ty {
            Type::DateTime => n.json("format", "\"date-time\""),
            Type::Date => n.note(&export::format_note("date")),
            Type::Uuid => n.note(&export::format_note("uuid")),
            _ => {}
        }
        match ty {
            Type::Int32 | Type::Int64 if cons.is_none() => {
                let w = if matches!(ty, Type::Int32) {
                    "int32"
                } else {
                    "int64"
                };
                n.json("format", quoted(w));
            }
            Type::Int32 | Type::Int64 | Type::Double => {
                let integer = !matches!(ty, Type::Double);
                let bound = |b: fn(&Constraints) -> &Option<Bound>| {
                    cons.and_then(|c| b(c).as_ref())
                        .map(|b| Value::Number(b.json.clone()))
                };
                let (mut min, mut max) = (bound(|c| &c.minimum), bound(|c| &c.maximum));
                if integer {
                    let (lo, hi) = if matches!(ty, Type::Int32) {
                        export::INT32
                    } else {
                        export::INT64
                    };
                    if !cons.is_some_and(Constraints::has_lower) {
                        min = Some(Value::from(lo));
                    }
                    if !cons.is_some_and(Constraints::has_upper) {
                        max = Some(Value::from(hi));
                    }
                }
                let mut notes = Vec::new();
                if let Some(x) = bound(|c| &c.exclusive_minimum) {
                    match (integer, x.as_f64()) {
                        (true, Some(f)) => min = export::tighter(min, f.floor() + 1.0, true),
                        _ => notes.extend(export::constraint_note("exclusiveMinimum", &x)),
                    }
                }
                if let Some(x) = bound(|c| &c.exclusive_maximum) {
                    match (integer, x.as_f64()) {
                        (true, Some(f)) => max = export::tighter(max, f.ceil() - 1.0, false),
                        _ => notes.extend(export::constraint_note("exclusiveMaximum", &x)),
                    }
                }
                let bounds = (
                    min.as_ref().and_then(Value::as_i64),
                    max.as_ref().and_then(Value::as_i64),
                );
                let width = match bounds {
                    (Some(lo), Some(hi)) if integer && (lo, hi) == export::INT32 => Some("int32"),
                    (Some(lo), Some(hi)) if integer && (lo, hi) == export::INT64 => Some("int64"),
                    _ => None,
                };
                match width {
                    Some(w) if !n.has("format") => n.json("format", quoted(w)),
                    Some(_) => {}
                    None => {
                        for (k, v) in [("minimum", min), ("maximum", max)] {
                            if let Some(v) = v {
                                n.json(k, v.to_string());
                            }
                        }
                    }
                }
                for note in notes {
                    n.note(&note);
                }
            }
            _ => {}
        }
        if let (Type::String, Some(c)) = (ty, cons) {
            if let Some(v) = c.min_length {
                n.json("minLength", v.to_string());
            }
            if let Some(v) = c.max_length {
                n.json("maxLength", v.to_string());
            }
            if let Some(p) = &c.pattern {
                let mut s = String::new();
                push_json_str(&mut s, p.source());
                n.json("pattern", s);
            }
        }
        if let Type::Array(item) = ty {
            let items = self.gemini_slot(r, item, None, side, None, None, stack)?;
            let mut s = String::new();
            items.write(&mut s);
            n.json("items", s);
            if let Some(c) = cons {
                if let Some(v) = c.min_items {
                    n.json("minItems", v.to_string());
                }
                if let Some(v) = c.max_items {
                    n.json("maxItems", v.to_string());
                }
                if c.unique_items {
                    n.note(&export::constraint_note("uniqueItems", &Value::Bool(true))?);
                }
            }
        }
        if let Some(d) = default.filter(|d| !d.is_null()) {
            n.note(&format!("Default: {d}."));
        }
        Some(n)
    }

    // ---- tool objects ------------------------------------------------------------------

    /// The tool object of `d` in a JSON format (Gemini: its declaration), as `export`
    /// makes it of the function's schemas rendered with the pass's metadata, and whether
    /// a text it shows holds a placeholder. `None` where `export` must answer: a name the
    /// format refuses, a schema Gemini's subset cannot express.
    pub(crate) fn tool(
        &mut self,
        format: Format,
        d: &FunctionDescriptor,
    ) -> Option<(String, bool)> {
        export::name_rule(format)?
            .violation(&d.id)
            .is_none()
            .then_some(())?;
        let mut r = Render::new(self.metadata);
        let title = d.title.as_deref().map(|t| r.text(t));
        let description = r.text(d.description.as_deref().unwrap_or(""));
        let null = Value::Null;
        let spec = ToolSpec {
            name: &d.id,
            title: title.as_deref(),
            description: &description,
            input_schema: &null,
            output_schema: None,
            hints: d.hints,
            deprecated: d.deprecated,
        };
        let model_description = export::model_description(&spec);
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        out.push('{');
        let written = self.write_tool(
            &mut out,
            &mut r,
            format,
            d,
            &spec,
            &title,
            &model_description,
        );
        let text = written.map(|()| out.as_str().to_owned());
        self.scratch = out;
        Some((text?, r.templated))
    }

    #[allow(clippy::too_many_arguments)]
    fn write_tool(
        &mut self,
        out: &mut String,
        r: &mut Render<'_>,
        format: Format,
        d: &FunctionDescriptor,
        spec: &ToolSpec<'_>,
        title: &Option<Cow<'_, str>>,
        model_description: &str,
    ) -> Option<()> {
        match format {
            Format::Mcp => {
                out.push_str("\"name\":");
                push_json_str(out, &d.id);
                if let Some(t) = &title {
                    key(out, "title");
                    push_json_str(out, t);
                }
                if !model_description.is_empty() {
                    key(out, "description");
                    push_json_str(out, model_description);
                }
                key(out, "inputSchema");
                self.parameters(out, r, d);
                if d.result.is_some() || d.kind == FunctionKind::Output {
                    key(out, "outputSchema");
                    self.mcp_output(out, r, d)?;
                }
                let h = spec.hints;
                let hints = [
                    ("readOnlyHint", h.read_only),
                    ("destructiveHint", h.destructive),
                    ("idempotentHint", h.idempotent),
                    ("openWorldHint", h.open_world),
                ];
                if title.is_some() || hints.iter().any(|(_, v)| v.is_some()) {
                    out.push_str(",\"annotations\":{");
                    let mut first = true;
                    if let Some(t) = &title {
                        out.push_str("\"title\":");
                        push_json_str(out, t);
                        first = false;
                    }
                    for (k, v) in hints {
                        if let Some(v) = v {
                            if !first {
                                out.push(',');
                            }
                            first = false;
                            let _ = write!(out, "\"{k}\":{v}");
                        }
                    }
                    out.push('}');
                }
            }
            Format::Anthropic => {
                out.push_str("\"name\":");
                push_json_str(out, &d.id);
                if !model_description.is_empty() {
                    key(out, "description");
                    push_json_str(out, model_description);
                }
                key(out, "input_schema");
                self.parameters(out, r, d);
            }
            Format::OpenAi | Format::OpenAiChat => {
                out.push_str("\"type\":\"function\"");
                if format == Format::OpenAiChat {
                    out.push_str(",\"function\":{");
                } else {
                    out.push(',');
                }
                out.push_str("\"name\":");
                push_json_str(out, &d.id);
                if !model_description.is_empty() {
                    key(out, "description");
                    push_json_str(out, model_description);
                }
                key(out, "parameters");
                let strict = self.openai_parameters(out, r, d);
                let _ = write!(out, ",\"strict\":{strict}");
                if format == Format::OpenAiChat {
                    out.push('}');
                }
            }
            Format::Gemini => {
                out.push_str("\"name\":");
                push_json_str(out, &d.id);
                key(out, "description");
                push_json_str(out, model_description);
                if !d.parameters.is_empty() {
                    let slots: Vec<Slot<'_>> = d.parameters.iter().map(Slot::param).collect();
                    let mut n = Node::new();
                    n.json("type", quoted("OBJECT"));
                    self.gemini_inlined = 0;
                    self.gemini_object(&mut n, r, &slots, Side::Parameters, &mut Vec::new())?;
                    key(out, "parameters");
                    n.write(out);
                }
            }
            _ => return None,
        }
        out.push('}');
        Some(())
    }
}

/// The names of the optional slots (OpenAI strict mode makes them required).
fn optional_names<'s>(slots: &'s [Slot<'_>]) -> impl Iterator<Item = &'s str> + 's {
    slots.iter().filter(|s| s.optional).map(|s| s.name)
}

// ---------------------------------------------------------------------------------------
// A Gemini schema node: members in order, as the serde_json map of `export::gemini` holds
// them (an inserted key replaces in place, a new one goes last)
// ---------------------------------------------------------------------------------------

#[derive(Clone, Default)]
struct Node<'t> {
    members: Vec<(&'static str, Val<'t>)>,
}

#[derive(Clone)]
enum Val<'t> {
    /// Text, escaped when written.
    Text(Cow<'t, str>),
    /// JSON text.
    Json(Cow<'t, str>),
}

impl<'t> Node<'t> {
    fn new() -> Node<'t> {
        Node {
            members: Vec::with_capacity(6),
        }
    }

    fn set(&mut self, k: &'static str, v: Val<'t>) {
        match self.members.iter_mut().find(|(key, _)| *key == k) {
            Some(m) => m.1 = v,
            None => self.members.push((k, v)),
        }
    }

    fn json(&mut self, k: &'static str, v: impl Into<Cow<'t, str>>) {
        self.set(k, Val::Json(v.into()));
    }

    fn text(&mut self, k: &'static str, v: impl Into<Cow<'t, str>>) {
        self.set(k, Val::Text(v.into()));
    }

    fn has(&self, k: &str) -> bool {
        self.members.iter().any(|(key, _)| *key == k)
    }

    fn get_text(&self, k: &str) -> Option<&str> {
        self.members.iter().find_map(|(key, v)| match v {
            Val::Text(t) if *key == k => Some(&**t),
            _ => None,
        })
    }

    /// `export::append_note`: a sentence after the description (made when absent).
    fn note(&mut self, note: &str) {
        let text = export::with_note(self.get_text("description"), note);
        self.text("description", text);
    }

    fn write(&self, out: &mut String) {
        out.push('{');
        for (i, (k, v)) in self.members.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push('"');
            out.push_str(k);
            out.push_str("\":");
            match v {
                Val::Text(t) => push_json_str(out, t),
                Val::Json(j) => out.push_str(j),
            }
        }
        out.push('}');
    }
}

/// A Gemini type name or format as JSON.
fn quoted(name: &str) -> &'static str {
    match name {
        "STRING" => "\"STRING\"",
        "BOOLEAN" => "\"BOOLEAN\"",
        "INTEGER" => "\"INTEGER\"",
        "NUMBER" => "\"NUMBER\"",
        "ARRAY" => "\"ARRAY\"",
        "OBJECT" => "\"OBJECT\"",
        "int32" => "\"int32\"",
        "int64" => "\"int64\"",
        _ => unreachable!("a Gemini type or integer format"),
    }
}

#[cfg(test)]
mod tests {
    use super::CLOSURE_STEPS;
    use crate::export::Format;

    #[test]
    fn the_defs_of_a_chain_of_records_cost_work_linear_in_its_length() {
        let n = 2_000;
        let records: Vec<String> = (0..n)
            .map(|i| {
                let next = if i + 1 < n {
                    format!(
                        r#",{{"name":"next","type":{{"record":"R{}"}},"optional":true}}"#,
                        i + 1
                    )
                } else {
                    String::new()
                };
                format!(r#"{{"name":"R{i}","fields":[{{"name":"label","type":"string"}}{next}]}}"#)
            })
            .collect();
        let d = crate::Dispatcher::new();
        d.define_types(&format!(r#"{{"records":[{}]}}"#, records.join(",")))
            .unwrap();
        d.register_function(
            r#"{"id":"take","kind":"output","parameters":[{"name":"root","type":{"record":"R0"}}]}"#,
            None,
        )
        .unwrap();
        for format in [Format::Mcp, Format::OpenAi, Format::Anthropic] {
            CLOSURE_STEPS.with(|c| c.set(0));
            let text = d.export(format).unwrap();
            assert!(text.contains("\"R1999\""));
            // one reference followed per record and schema (the rounds once rescanned every
            // record found so far: n^3/3 steps, seconds for 4,000 records)
            let steps = CLOSURE_STEPS.with(|c| c.get());
            assert!(steps <= 2 * n, "{format}: {steps} steps for {n} records");
        }
    }
}
