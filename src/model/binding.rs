//! Argument binding: checks a JSON text against a function's parameters (or a value
//! against a type) while parsing it, and writes the normalised JSON in the same pass.
//!
//! There is no intermediate tree: a serde `DeserializeSeed` walks the descriptor alongside
//! the parser, so a bound call costs about one parse. Errors name the parameter (and the
//! path inside it) and the reason: `quantity: expected int32, got string "two"`.

use crate::model::constraints::Constraints;
use crate::model::decimal::{Decimal, Integer};
use crate::model::types::{quote_short, Parameter, Type, TypeSet};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt::{self, Write as _};
use std::ops::Range;

/// Limits applied to one input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest accepted input, in bytes (default 1 MiB).
    pub max_input_bytes: usize,
    /// Deepest accepted nesting of arrays and objects, the arguments object included
    /// (default 64).
    pub max_depth: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_input_bytes: 1 << 20,
            max_depth: 64,
        }
    }
}

/// What an entity-typed position holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Arguments: an entity is given by its id (a string).
    Arguments,
    /// Values (results, defaults, entities): an entity is the full object.
    Values,
}

/// A failure to bind, naming where and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindError {
    /// `quantity`, `lines[2].sku`; empty for the whole input.
    pub path: String,
    /// What is wrong there.
    pub reason: String,
}

impl fmt::Display for BindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.reason)
        } else {
            write!(f, "{}: {}", self.path, self.reason)
        }
    }
}

/// An entity id found while binding arguments, to be resolved before the handler runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntityRef {
    pub entity: usize,
    /// Where it is, for messages (`order`, `orders[1]`).
    pub path: String,
    /// The bytes of the quoted id in the bound JSON, replaced by the entity when resolved.
    pub range: Range<usize>,
}

impl EntityRef {
    /// The id, read from the bound JSON `json` the ref is in.
    pub fn id<'j>(&self, json: &'j str) -> Cow<'j, str> {
        id_text(json, &self.range)
    }
}

/// The string a JSON string of bound JSON stands for, given the bytes of it with its quotes
/// (an entity's id in bound arguments or a lookup's answer): its text between the quotes
/// when it holds no escape (the common id, borrowed), `""` for an empty range (an id left
/// out, or not a string).
pub fn id_text<'j>(json: &'j str, quoted: &Range<usize>) -> Cow<'j, str> {
    if quoted.len() < 2 {
        return Cow::Borrowed("");
    }
    let text = &json[quoted.start + 1..quoted.end - 1];
    if text.contains('\\') {
        // bound JSON: a valid string
        serde_json::from_str(&json[quoted.clone()]).map_or(Cow::Borrowed(text), Cow::Owned)
    } else {
        Cow::Borrowed(text)
    }
}

/// The result of binding: normalised JSON plus the entity ids it holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bound {
    /// The arguments as normalised JSON text.
    pub json: String,
    /// Each entity id the arguments hold, with where.
    pub entity_refs: Vec<EntityRef>,
}

/// Binds an arguments object against `params`. `None` means no arguments (`{}`).
pub fn bind_arguments(
    types: &TypeSet,
    params: &[Parameter],
    args_json: Option<&str>,
    limits: &Limits,
) -> Result<Bound, BindError> {
    let text = args_json.unwrap_or("{}");
    if text.len() > limits.max_input_bytes {
        return Err(BindError {
            path: String::new(),
            reason: format!(
                "the arguments are {} bytes, more than the limit of {} bytes",
                text.len(),
                limits.max_input_bytes
            ),
        });
    }
    if let Some(entity_refs) = normal_arguments(types, params, text, limits) {
        // compact arguments already in the binder's normal form bind to themselves: one
        // pass over their bytes, no parse (room for the terminator the call appends)
        let mut json = String::with_capacity(text.len() + 1);
        json.push_str(text);
        let bound = Bound { json, entity_refs };
        debug_assert_eq!(
            bind_arguments_parsed(types, params, text, limits).as_ref(),
            Ok(&bound)
        );
        return Ok(bound);
    }
    bind_arguments_parsed(types, params, text, limits)
}

/// [`bind_arguments`] by the parser: whatever the text, with its messages.
pub(crate) fn bind_arguments_parsed(
    types: &TypeSet,
    params: &[Parameter],
    text: &str,
    limits: &Limits,
) -> Result<Bound, BindError> {
    let mut ctx = Ctx::new(types, Mode::Arguments, limits.max_depth, text.len());
    let mut de = serde_json::Deserializer::from_str(text);
    let res = ArgsSeed {
        ctx: &mut ctx,
        params,
    }
    .deserialize(&mut de)
    .and_then(|()| de.end());
    finish(ctx, res)
}

/// Each element of a bound entity list: the bytes of its quoted id ([`id_text`]) and its own.
pub type Listed = Vec<(Range<usize>, Range<usize>)>;

/// Binds a lookup's answer, an array of entities of type `entity`, and returns its
/// normalised JSON with each element's id and bytes in it (one pass, no tree). An answer
/// already in normal form is returned as it is, not copied.
pub fn bind_entity_list(
    types: &TypeSet,
    entity: usize,
    json: String,
    limits: &Limits,
) -> Result<(String, Listed), BindError> {
    if let Some(items) = normal_entity_list(types, entity, &json, limits) {
        // already its own bound JSON (checked against the parser in debug builds)
        debug_assert_eq!(
            bind_entity_list_parsed(types, entity, &json, limits),
            Ok((json.clone(), items.clone()))
        );
        return Ok((json, items));
    }
    bind_entity_list_parsed(types, entity, &json, limits)
}

/// [`bind_entity_list`] by the parser: whatever the text, with its messages.
fn bind_entity_list_parsed(
    types: &TypeSet,
    entity: usize,
    json: &str,
    limits: &Limits,
) -> Result<(String, Listed), BindError> {
    let ty = types.entity_list(entity);
    let mut ctx = Ctx::new(types, Mode::Values, limits.max_depth, json.len());
    ctx.collect = Some(Collect {
        id_field: &types.entities[entity].id_field,
        current_id: None,
        items: Vec::new(),
    });
    let mut de = serde_json::Deserializer::from_str(json);
    let res = ValueSeed {
        ctx: &mut ctx,
        ty,
        cons: None,
    }
    .deserialize(&mut de)
    .and_then(|()| de.end());
    let items = ctx.collect.take().map(|c| c.items).unwrap_or_default();
    finish(ctx, res).map(|b| (b.json, items))
}

/// Binds one value of type `ty` (a result, a default, an entity) and returns its
/// normalised JSON.
pub fn bind_value(
    types: &TypeSet,
    ty: &Type,
    json: &str,
    mode: Mode,
    limits: &Limits,
) -> Result<Bound, BindError> {
    bind_value_with(types, ty, None, json, mode, limits)
}

/// [`bind_value`] with the value constraints of the slot (a result's, a default's).
pub fn bind_value_with(
    types: &TypeSet,
    ty: &Type,
    cons: Option<&Constraints>,
    json: &str,
    mode: Mode,
    limits: &Limits,
) -> Result<Bound, BindError> {
    if json.len() > limits.max_input_bytes {
        return Err(BindError {
            path: String::new(),
            reason: format!(
                "the value is {} bytes, more than the limit of {} bytes",
                json.len(),
                limits.max_input_bytes
            ),
        });
    }
    let mut ctx = Ctx::new(types, mode, limits.max_depth, json.len());
    let mut de = serde_json::Deserializer::from_str(json);
    let res = ValueSeed {
        ctx: &mut ctx,
        ty,
        cons,
    }
    .deserialize(&mut de)
    .and_then(|()| de.end());
    finish(ctx, res)
}

#[inline(always)]
fn finish(ctx: Ctx<'_>, res: Result<(), serde_json::Error>) -> Result<Bound, BindError> {
    match res {
        Ok(()) => Ok(Bound {
            json: ctx.out,
            entity_refs: ctx.refs,
        }),
        Err(e) => Err(match ctx.err {
            Some(mut pe) => {
                pe.segments.reverse();
                BindError {
                    path: join_path(&pe.segments),
                    reason: pe.reason,
                }
            }
            None => BindError {
                path: String::new(),
                reason: json_error_reason(&e),
            },
        }),
    }
}

fn json_error_reason(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    if msg.contains("recursion limit exceeded") {
        return "the input nests deeper than the parser allows".into();
    }
    format!("invalid JSON: {msg}")
}

fn join_path(segments: &[Seg]) -> String {
    let mut s = String::new();
    for seg in segments {
        match seg {
            Seg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Seg::Index(i) => {
                let _ = write!(s, "[{i}]");
            }
        }
    }
    s
}

enum Seg {
    Key(String),
    Index(usize),
}

/// An error being unwound; segments are pushed innermost first.
struct PendingError {
    segments: Vec<Seg>,
    reason: String,
}

struct Ctx<'t> {
    types: &'t TypeSet,
    out: String,
    err: Option<PendingError>,
    depth: u32,
    max_depth: u32,
    mode: Mode,
    /// The entity ids bound so far, each named by the segments that hold it as binding
    /// returns through them (`name_refs`).
    refs: Vec<EntityRef>,
    /// For [`bind_entity_list`]: each top-level element's id and bytes.
    collect: Option<Collect<'t>>,
}

struct Collect<'t> {
    id_field: &'t str,
    /// The current element's id, when a string: its bytes in the output.
    current_id: Option<Range<usize>>,
    items: Listed,
}

impl<'t> Ctx<'t> {
    fn new(types: &'t TypeSet, mode: Mode, max_depth: u32, input_len: usize) -> Self {
        Ctx {
            types,
            out: String::with_capacity(input_len + 16),
            err: None,
            depth: 0,
            max_depth,
            mode,
            refs: Vec::new(),
            collect: None,
        }
    }

    fn fail<E: de::Error>(&mut self, reason: String) -> E {
        self.err = Some(PendingError {
            segments: Vec::new(),
            reason,
        });
        E::custom("bind error")
    }

    /// Called when a child failed: adds this level's segment to the error path.
    fn wrap<E: de::Error>(&mut self, e: E, seg: Seg) -> E {
        match &mut self.err {
            Some(pe) => pe.segments.push(seg),
            None => {
                let reason = e.to_string();
                let reason = if reason.contains("recursion limit exceeded") {
                    "the input nests deeper than the parser allows".to_string()
                } else {
                    format!("invalid JSON: {reason}")
                };
                self.err = Some(PendingError {
                    segments: vec![seg],
                    reason,
                });
            }
        }
        e
    }

    fn enter<E: de::Error>(&mut self) -> Result<(), E> {
        self.depth += 1;
        if self.depth > self.max_depth {
            let limit = self.max_depth;
            return Err(self.fail(format!(
                "the input nests deeper than the limit of {limit} levels"
            )));
        }
        Ok(())
    }
}

/// Whether two names are equal: compared a word at a time in place, as names are short
/// (`==` on `str` calls the C library's `memcmp` for every name of the same length).
#[inline]
/// Where `key` is among `items` (named by `name_of`): scanned in a short list, looked up in
/// `index` (made on the first call) in a longer one.
fn find_name<'i, T>(
    items: &'i [T],
    name_of: impl Fn(&'i T) -> &'i String,
    index: &mut Option<std::collections::HashMap<&'i str, usize>>,
    key: &str,
) -> Option<usize> {
    if items.len() <= 16 {
        #[cfg(test)]
        NAME_PROBES.with(|c| c.set(c.get() + items.len()));
        return items.iter().position(|x| same_name(name_of(x), key));
    }
    #[cfg(test)]
    NAME_PROBES.with(|c| c.set(c.get() + 1));
    index
        .get_or_insert_with(|| {
            #[cfg(test)]
            NAME_PROBES.with(|c| c.set(c.get() + items.len()));
            items
                .iter()
                .enumerate()
                .map(|(i, x)| (name_of(x).as_str(), i))
                .collect()
        })
        .get(key)
        .copied()
}

#[cfg(test)]
thread_local! {
    /// The work [`find_name`] did on this thread: names compared, hashed or looked up.
    static NAME_PROBES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn same_name(a: &str, b: &str) -> bool {
    same_bytes(a.as_bytes(), b.as_bytes())
}

/// [`same_name`] of bytes.
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut ca = a.chunks_exact(8);
    let mut cb = b.chunks_exact(8);
    for (x, y) in (&mut ca).zip(&mut cb) {
        if u64::from_ne_bytes(x.try_into().expect("8 bytes"))
            != u64::from_ne_bytes(y.try_into().expect("8 bytes"))
        {
            return false;
        }
    }
    ca.remainder()
        .iter()
        .zip(cb.remainder())
        .all(|(x, y)| x == y)
}

/// Writes a validated parameter or field name (letters, digits, `_`: nothing to escape).
fn write_name(out: &mut String, name: &str) {
    debug_assert!(name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
    out.push('"');
    out.push_str(name);
    out.push('"');
}

/// The length of what [`write_json_str`] writes for `s`.
pub(crate) fn json_str_len(s: &str) -> usize {
    2 + s
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' => 2,
            0..=0x1f => 6,
            _ => 1,
        })
        .sum::<usize>()
}

/// Writes `s` as a JSON string; `escape_free` when it holds nothing to escape (a string the
/// parser lent from its input), written as it is.
fn write_str(out: &mut String, s: &str, escape_free: bool) {
    if escape_free {
        debug_assert!(!s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\'));
        out.reserve(s.len() + 2);
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        write_json_str(out, s);
    }
}

/// What each byte becomes in a JSON string: 0 itself, `u` the `\u00XX` form, else the
/// letter after the backslash.
static ESCAPES: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = b'u';
        b += 1;
    }
    t[b'\n' as usize] = b'n';
    t[b'\r' as usize] = b'r';
    t[b'\t' as usize] = b't';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t
};

/// Writes `s` as a JSON string.
///
/// Text with quotes in it (a JSON text carried as a string, as MCP's text content of a
/// record result) is escaped byte by byte into a buffer on the stack, a chunk of whole
/// characters at a time: one copy per chunk rather than two per escape.
pub(crate) fn write_json_str(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    /// Input bytes per chunk (then up to 3 more, to end on a character boundary), each
    /// at most 6 bytes escaped.
    const CHUNK: usize = 64;
    out.reserve(s.len() + 2);
    out.push('"');
    // the common case: nothing to escape
    let bytes = s.as_bytes();
    let Some(first) = bytes.iter().position(|&b| ESCAPES[b as usize] != 0) else {
        out.push_str(s);
        out.push('"');
        return;
    };
    out.push_str(&s[..first]);
    let mut buf = [0u8; (CHUNK + 3) * 6];
    let mut rest = &bytes[first..];
    while !rest.is_empty() {
        let mut end = rest.len().min(CHUNK);
        while end < rest.len() && (0x80..0xc0).contains(&rest[end]) {
            end += 1;
        }
        let (chunk, tail) = rest.split_at(end);
        let mut n = 0;
        for &b in chunk {
            match ESCAPES[b as usize] {
                0 => {
                    buf[n] = b;
                    n += 1;
                }
                b'u' => {
                    buf[n..n + 6].copy_from_slice(&[
                        b'\\',
                        b'u',
                        b'0',
                        b'0',
                        HEX[(b >> 4) as usize],
                        HEX[(b & 0xf) as usize],
                    ]);
                    n += 6;
                }
                e => {
                    buf[n] = b'\\';
                    buf[n + 1] = e;
                    n += 2;
                }
            }
        }
        push_utf8(out, &buf[..n]);
        rest = tail;
    }
    out.push('"');
}

/// Appends bytes cut from a `str` at character boundaries (with ASCII escapes put in).
fn push_utf8(out: &mut String, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(t) => out.push_str(t),
        // unreachable: whole characters of a str and ASCII only
        Err(_) => out.push_str(&String::from_utf8_lossy(bytes)),
    }
}

struct ArgsSeed<'c, 't, 'p> {
    ctx: &'c mut Ctx<'t>,
    params: &'p [Parameter],
}

impl<'de> DeserializeSeed<'de> for ArgsSeed<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ArgsSeed<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object keyed by parameter names")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let ctx = self.ctx;
        let params = self.params;
        ctx.enter()?;
        let mut seen_small: u64 = 0;
        let mut seen_large: Vec<bool> = if params.len() > 64 {
            vec![false; params.len()]
        } else {
            Vec::new()
        };
        ctx.out.push('{');
        let mut first = true;
        // arguments mostly come in the order the parameters are declared: the one after
        // the last found is tried first; a long list is then looked up in an index made on
        // its first miss (arguments in another order stay linear)
        let mut next = 0;
        let mut index: Option<std::collections::HashMap<&str, usize>> = None;
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let found = match params.get(next) {
                Some(p) if same_name(&p.name, &key) => Some(next),
                _ => find_name(params, |p| &p.name, &mut index, &key),
            };
            let Some(index) = found else {
                let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
                let close =
                    crate::model::types::closest(params.iter().map(|p| p.name.as_str()), &key)
                        .map(|n| format!(" (did you mean \"{n}\"?)"))
                        .unwrap_or_default();
                let reason = if names.is_empty() {
                    "unknown parameter; this function takes no parameters".to_string()
                } else {
                    format!(
                        "unknown parameter{close}; expected one of: {}",
                        names.join(", ")
                    )
                };
                let e = ctx.fail(reason);
                return Err(ctx.wrap(e, Seg::Key(key.into_owned())));
            };
            let dup = if params.len() > 64 {
                std::mem::replace(&mut seen_large[index], true)
            } else {
                let bit = 1u64 << index;
                let was = seen_small & bit != 0;
                seen_small |= bit;
                was
            };
            if dup {
                let e = ctx.fail("given more than once".into());
                return Err(ctx.wrap(e, Seg::Key(key.into_owned())));
            }
            next = index + 1;
            let p = &params[index];
            if !first {
                ctx.out.push(',');
            }
            first = false;
            write_name(&mut ctx.out, &p.name);
            ctx.out.push(':');
            let refs_before = ctx.refs.len();
            if let Err(e) = map.next_value_seed(ValueSeed {
                ctx: &mut *ctx,
                ty: &p.ty,
                cons: p.constraints.as_deref(),
            }) {
                return Err(ctx.wrap(e, Seg::Key(p.name.clone())));
            }
            name_refs(ctx, refs_before, SegRef::Key(&p.name));
        }
        for (i, p) in params.iter().enumerate() {
            let seen = if params.len() > 64 {
                seen_large[i]
            } else {
                seen_small & (1u64 << i) != 0
            };
            if seen {
                continue;
            }
            if let Some(default) = p.default_json() {
                if !first {
                    ctx.out.push(',');
                }
                first = false;
                write_name(&mut ctx.out, &p.name);
                ctx.out.push(':');
                ctx.out.push_str(default);
            } else if !p.optional {
                let tn = ctx.types.type_name(&p.ty);
                let e: A::Error = ctx.fail(format!("missing required value ({tn})"));
                return Err(ctx.wrap(e, Seg::Key(p.name.clone())));
            }
        }
        ctx.out.push('}');
        ctx.depth -= 1;
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Err(self
            .ctx
            .fail("the arguments must be a JSON object keyed by parameter names, got null".into()))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        Err(self.ctx.fail(format!(
            "the arguments must be a JSON object keyed by parameter names, got boolean {v}"
        )))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        Err(self.ctx.fail(format!(
            "the arguments must be a JSON object keyed by parameter names, got number {v}"
        )))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.visit_i64(v as i64)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        Err(self.ctx.fail(format!(
            "the arguments must be a JSON object keyed by parameter names, got number {v}"
        )))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        Err(self.ctx.fail(format!(
            "the arguments must be a JSON object keyed by parameter names, got string {}",
            quote_short(v)
        )))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _seq: A) -> Result<(), A::Error> {
        Err(self.ctx.fail(
            "the arguments must be a JSON object keyed by parameter names, got an array".into(),
        ))
    }
}

/// Puts `seg` in front of the path of each entity ref bound since `from` (binding
/// returns through a ref's segments innermost first). Each path is written once per
/// segment straight into its text (`order`, `orders[1]`, `lines[0].order`, as `join_path`
/// writes an error's): a ref at a parameter costs one allocation, its path.
fn name_refs(ctx: &mut Ctx<'_>, from: usize, seg: SegRef<'_>) {
    for r in &mut ctx.refs[from..] {
        let mut s = String::with_capacity(r.path.len() + 24);
        match seg {
            SegRef::Key(k) => s.push_str(k),
            SegRef::Index(i) => {
                let _ = write!(s, "[{i}]");
            }
        }
        // a key after another segment takes a dot, an index none
        if !r.path.is_empty() && !r.path.starts_with('[') {
            s.push('.');
        }
        s.push_str(&r.path);
        r.path = s;
    }
}

/// A segment of an entity ref's path, borrowed from the descriptor.
#[derive(Clone, Copy)]
enum SegRef<'a> {
    Key(&'a str),
    Index(usize),
}

struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string key")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
}

struct ValueSeed<'c, 't, 'y> {
    ctx: &'c mut Ctx<'t>,
    ty: &'y Type,
    /// The slot's value constraints (not passed on to array items or record fields).
    cons: Option<&'y Constraints>,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if matches!(self.base().0, Type::Int32 | Type::Int64 | Type::Double) {
            // Numbers are read from their text, exactly (no rounding through f64).
            let raw =
                <&'de serde_json::value::RawValue as serde::Deserialize<'de>>::deserialize(d)?;
            return self.number(raw.get().trim());
        }
        d.deserialize_any(self)
    }
}

impl<'y> ValueSeed<'_, '_, 'y> {
    /// Binds a string; `escape_free`: it holds nothing JSON escapes (written as it is).
    fn string<E: de::Error>(self, v: &str, escape_free: bool) -> Result<(), E> {
        let types = self.ctx.types;
        match self.base().0 {
            Type::String => {
                if let Some(c) = self.cons {
                    c.check_string(v).map_err(|why| self.ctx.fail(why))?;
                }
                write_str(&mut self.ctx.out, v, escape_free);
                Ok(())
            }
            Type::DateTime => match crate::model::formats::check_date_time(v) {
                Ok(()) => {
                    write_str(&mut self.ctx.out, v, escape_free);
                    Ok(())
                }
                Err(why) => Err(self.ctx.fail(format!(
                    "{} is not a date-time: {why} (a date-time is ISO 8601 with an offset, such as \"2025-06-01T17:00:00+02:00\")",
                    quote_short(v)
                ))),
            },
            Type::Date => match crate::model::formats::check_date(v) {
                Ok(()) => {
                    write_str(&mut self.ctx.out, v, escape_free);
                    Ok(())
                }
                Err(why) => Err(self.ctx.fail(format!(
                    "expected a date such as \"2025-06-01\", got {} ({why})",
                    quote_short(v)
                ))),
            },
            Type::Uuid => {
                if crate::model::formats::is_uuid(v) {
                    write_str(&mut self.ctx.out, v, escape_free);
                    Ok(())
                } else {
                    Err(self.ctx.fail(format!(
                        "expected a UUID such as \"123e4567-e89b-12d3-a456-426614174000\", got {}",
                        quote_short(v)
                    )))
                }
            }
            Type::Enum(i) => {
                let def = &types.enums[*i];
                if def.members.iter().any(|m| same_name(&m.name, v)) {
                    write_str(&mut self.ctx.out, v, escape_free);
                    Ok(())
                } else {
                    let names: Vec<&str> = def.members.iter().map(|m| m.name.as_str()).collect();
                    let close = def
                        .members
                        .iter()
                        .find(|m| m.name.eq_ignore_ascii_case(v))
                        .map(|m| format!(" (did you mean \"{}\"?)", m.name))
                        .unwrap_or_default();
                    Err(self.ctx.fail(format!(
                        "{} is not a member of enum {}{close}; expected one of: {}",
                        quote_short(v),
                        def.name,
                        names.join(", ")
                    )))
                }
            }
            Type::Entity(i) if self.ctx.mode == Mode::Arguments => {
                let start = self.ctx.out.len();
                write_str(&mut self.ctx.out, v, escape_free);
                let end = self.ctx.out.len();
                self.ctx.refs.push(EntityRef {
                    entity: *i,
                    path: String::new(),
                    range: start..end,
                });
                Ok(())
            }
            _ => Err(self.mismatch(format!("string {}", quote_short(v)))),
        }
    }

    /// The type with one level of `Nullable` removed, and whether null is allowed.
    fn base(&self) -> (&'y Type, bool) {
        match self.ty {
            Type::Nullable(inner) => (inner, true),
            t => (t, false),
        }
    }

    fn mismatch<E: de::Error>(self, got: String) -> E {
        let name = self.ctx.types.type_name(self.ty);
        self.ctx.fail(format!("expected {name}, got {got}"))
    }

    /// Binds a value at an int32, int64 or double position from its JSON text.
    fn number<E: de::Error>(self, raw: &str) -> Result<(), E> {
        let (ty, nullable) = self.base();
        match raw.as_bytes().first() {
            Some(b'n') if nullable => {
                self.ctx.out.push_str("null");
                return Ok(());
            }
            Some(b'n') => return Err(self.mismatch("null".into())),
            Some(b't' | b'f') => return Err(self.mismatch(format!("boolean {raw}"))),
            Some(b'"') => {
                let s: String = serde_json::from_str(raw).unwrap_or_default();
                return Err(self.mismatch(format!("string {}", quote_short(&s))));
            }
            Some(b'[') => return Err(self.mismatch("an array".into())),
            Some(b'{') => return Err(self.mismatch("an object".into())),
            _ => {}
        }
        if matches!(ty, Type::Int32 | Type::Int64) && self.cons.is_none() {
            // the common case, a plain integer within range: written as given
            if let Some(v) = small_integer(raw) {
                if *ty == Type::Int64 || i32::try_from(v).is_ok() {
                    self.ctx.out.push_str(raw);
                    return Ok(());
                }
            }
        }
        let Some(value) = Decimal::parse(raw) else {
            return Err(self
                .ctx
                .fail(format!("invalid JSON number {}", quote_number(raw))));
        };
        match ty {
            Type::Int32 | Type::Int64 => {
                let (lo, hi, name) = if *ty == Type::Int32 {
                    (i32::MIN as i128, i32::MAX as i128, "int32")
                } else {
                    (i64::MIN as i128, i64::MAX as i128, "int64")
                };
                match value.integer() {
                    Integer::Exact(v) if (lo..=hi).contains(&v) => {
                        if let Some(c) = self.cons {
                            c.check_number(&value, raw)
                                .map_err(|why| self.ctx.fail(why))?;
                        }
                        if is_canonical_integer(raw) {
                            // written as given: the text is the number's normal form
                            self.ctx.out.push_str(raw);
                        } else {
                            let _ = write!(self.ctx.out, "{v}");
                        }
                        Ok(())
                    }
                    Integer::Exact(_) | Integer::Huge { .. } => Err(self.ctx.fail(format!(
                        "number {} is out of range for {name} ({lo} to {hi})",
                        quote_number(raw)
                    ))),
                    Integer::Fraction => Err(self.ctx.fail(format!(
                        "expected {name}, got number {} with a fraction",
                        quote_number(raw)
                    ))),
                }
            }
            _ => {
                // serde_json's reader (exact, `float_roundtrip`) rather than `str::parse`,
                // whose own exact algorithm and tables would be linked for this alone
                let v: f64 = serde_json::from_str(raw).unwrap_or(f64::INFINITY);
                if !v.is_finite() {
                    return Err(self.ctx.fail(format!(
                        "number {} is out of range for double",
                        quote_number(raw)
                    )));
                }
                if let Some(c) = self.cons {
                    c.check_number(&value, raw)
                        .map_err(|why| self.ctx.fail(why))?;
                }
                let plain_integer = raw.len() <= 20
                    && raw
                        .bytes()
                        .enumerate()
                        .all(|(i, b)| b.is_ascii_digit() || (i == 0 && b == b'-'));
                if plain_integer {
                    self.ctx.out.push_str(raw);
                } else {
                    let _ = write!(self.ctx.out, "{v:?}");
                }
                Ok(())
            }
        }
    }
}

/// The value of a canonical integer ([`is_canonical_integer`]) of at most 18 digits
/// (within `i64` whatever they are), without the general number parser.
fn small_integer(raw: &str) -> Option<i64> {
    small_integer_of(raw.as_bytes())
}

/// [`small_integer`] of the text's bytes.
fn small_integer_of(raw: &[u8]) -> Option<i64> {
    let digits = raw.strip_prefix(b"-").unwrap_or(raw);
    if digits.len() > 18 || !is_canonical_integer_of(raw) {
        return None;
    }
    let v = digits
        .iter()
        .fold(0i64, |v, b| v * 10 + i64::from(b - b'0'));
    Some(if digits.len() < raw.len() { -v } else { v })
}

/// `-?(0|[1-9][0-9]*)` but not `-0`: an integer as the binder writes it.
fn is_canonical_integer(raw: &str) -> bool {
    is_canonical_integer_of(raw.as_bytes())
}

/// [`is_canonical_integer`] of the text's bytes.
fn is_canonical_integer_of(raw: &[u8]) -> bool {
    let digits = raw.strip_prefix(b"-").unwrap_or(raw);
    match digits {
        [] => false,
        [b'0'] => raw.len() == 1,
        [b'1'..=b'9', rest @ ..] => rest.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

/// Whether `text` is a value of type `ty` already in the binder's normal form, trivially
/// (an escape-free string for a string, `true`/`false` for a boolean, a canonical integer
/// within range for an integer, `null` where null is allowed) and with no constraint to
/// check: then binding it would give back the same text. `false` when the full binder must
/// decide. Handlers' results are mostly such values: this spares them a parse.
pub(crate) fn is_normal_form(ty: &Type, cons: Option<&Constraints>, text: &str) -> bool {
    if cons.is_some() {
        return false;
    }
    let (base, nullable) = match ty {
        Type::Nullable(inner) => (&**inner, true),
        t => (t, false),
    };
    if text == "null" {
        return nullable;
    }
    match base {
        Type::String => {
            let b = text.as_bytes();
            b.len() >= 2
                && b[0] == b'"'
                && b[b.len() - 1] == b'"'
                && !b[1..b.len() - 1]
                    .iter()
                    .any(|&c| c < 0x20 || c == b'"' || c == b'\\')
        }
        Type::Boolean => text == "true" || text == "false",
        Type::Int32 | Type::Int64 => {
            is_canonical_integer(text)
                && text.len() <= 20
                && match text.parse::<i64>() {
                    Ok(v) => *base == Type::Int64 || i32::try_from(v).is_ok(),
                    Err(_) => false,
                }
        }
        _ => false,
    }
}

/// [`is_normal_form`] for the types a handler's result most often has, a record above all
/// (an app's `Order`): whether `text` is a value of type `ty` that the binder would give back
/// unchanged, decided in one pass over its bytes without a parse. A record is in normal form
/// when it is compact JSON (no white space) whose keys are its fields' exact names, each once,
/// in any order (the binder keeps the order it is given), every required and every nullable
/// field present (the binder writes an omitted nullable field as `null`), and each value in
/// normal form of its field's type; an array is when it is compact and each item is;
/// enum members by their exact names; strings, booleans and integers as [`is_normal_form`]
/// takes them, a string's or an integer's constraints checked by the binder's own checks.
/// Anything else (numbers of type double, dates, entities, escapes, another type's
/// constraint such as an array's, nesting beyond `limits`, a text above its size) is
/// `false`: the full binder decides, with its messages.
pub(crate) fn is_normal_value(
    types: &TypeSet,
    ty: &Type,
    cons: Option<&Constraints>,
    text: &str,
    limits: &Limits,
) -> bool {
    if text.len() > limits.max_input_bytes {
        return false;
    }
    let mut scan = NormalScan::new(types, text, limits, true);
    scan.value(ty, cons) && scan.at == scan.b.len()
}

/// [`is_normal_value`] for a call's arguments: whether `text` is an object the binder would
/// give back unchanged for `params`, decided in one pass over its bytes. It is when it is
/// compact, its keys are parameters' exact names, each once, in any order (the binder keeps
/// the order it is given), each value is in normal form of its parameter's type (as for a
/// record's field), and every parameter left out is one the binder leaves out too: optional,
/// with no default and not nullable (the binder writes a default, or `null` for a nullable
/// parameter). An entity parameter's id is in normal form as an escape-free string; an
/// entity deeper down (in a list, a record) leaves the text to the parsing binder.
#[cfg(test)]
pub(crate) fn is_normal_arguments(
    types: &TypeSet,
    params: &[Parameter],
    text: &str,
    limits: &Limits,
) -> bool {
    normal_arguments(types, params, text, limits).is_some()
}

/// [`is_normal_arguments`] with the entity ids the text holds, as the parsing binder finds
/// them (`None`: not in normal form).
fn normal_arguments(
    types: &TypeSet,
    params: &[Parameter],
    text: &str,
    limits: &Limits,
) -> Option<Vec<EntityRef>> {
    if text.len() > limits.max_input_bytes {
        return None;
    }
    let mut scan = NormalScan::new(types, text, limits, false);
    let normal = scan.object(
        params,
        |p| (&p.name, &p.ty, p.constraints.as_deref()),
        |p| p.optional && p.default_json().is_none(),
    ) && scan.at == scan.b.len();
    normal.then_some(scan.refs)
}

/// [`bind_entity_list`] without a parse when a lookup's answer is already in normal form: a
/// compact array of the entity's objects, each as [`is_normal_value`] takes a record, with a
/// string id. Then the answer is its own bound JSON, and this gives each element's id and
/// bytes in it; `None` when the parsing binder must decide.
fn normal_entity_list(
    types: &TypeSet,
    entity: usize,
    json: &str,
    limits: &Limits,
) -> Option<Listed> {
    let def = &types.entities[entity];
    // an id of another type is read by the parsing binder (which gives it as "")
    let id = def.fields.iter().find(|f| f.name == def.id_field)?;
    if id.ty != Type::String || json.len() > limits.max_input_bytes {
        return None;
    }
    let mut scan = NormalScan::new(types, json, limits, true);
    scan.id_field = Some(&def.id_field);
    scan.depth = 1;
    if scan.depth > scan.max_depth || !scan.eat(b"[") {
        return None;
    }
    let mut items = Vec::new();
    let read = scan.items(b']', |scan| {
        let start = scan.at;
        scan.id = 0..0;
        if !scan.record(&def.fields) {
            return false;
        }
        // a normal string (none: an optional id left out, which the parsing binder gives
        // as "")
        if scan.id.len() < 2 {
            return false;
        }
        items.push((scan.id.clone(), start..scan.at));
        true
    });
    if !read {
        return None;
    }
    (scan.at == json.len()).then_some(items)
}

/// The cursor of [`is_normal_value`], [`is_normal_arguments`] and [`normal_entity_list`].
struct NormalScan<'a> {
    types: &'a TypeSet,
    b: &'a [u8],
    at: usize,
    depth: u32,
    max_depth: u32,
    /// Values (results, lookups' answers): an entity is the object of its fields. Arguments:
    /// an entity is an id to resolve, never kept.
    entities: bool,
    /// For [`normal_entity_list`]: the id field's name, and the bytes of the last value of
    /// that name seen at depth 2 (an element's own id).
    id_field: Option<&'a str>,
    id: Range<usize>,
    /// For [`normal_arguments`]: the entity ids of the parameters read so far, and the last
    /// one read (its entity, its quoted bytes) until its parameter names it.
    refs: Vec<EntityRef>,
    entity_id: Option<(usize, Range<usize>)>,
}

impl<'a> NormalScan<'a> {
    /// A cursor at the start of `text`; `entities` as the field says.
    fn new(types: &'a TypeSet, text: &'a str, limits: &Limits, entities: bool) -> Self {
        NormalScan {
            types,
            b: text.as_bytes(),
            at: 0,
            depth: 0,
            max_depth: limits.max_depth,
            entities,
            id_field: None,
            id: 0..0,
            refs: Vec::new(),
            entity_id: None,
        }
    }

    fn eat(&mut self, lit: &[u8]) -> bool {
        if self.b[self.at..].starts_with(lit) {
            self.at += lit.len();
            true
        } else {
            false
        }
    }

    /// An escape-free string; its contents.
    fn string(&mut self) -> Option<&'a [u8]> {
        if self.b.get(self.at) != Some(&b'"') {
            return None;
        }
        let b: &'a [u8] = self.b;
        let start = self.at + 1;
        // eight bytes at a time up to the word that holds the end (or an escape)
        let mut end = start;
        loop {
            let Some(w) = b.get(end..end + 8) else {
                // the last few bytes of the text, one at a time
                end += b[end..]
                    .iter()
                    .position(|&c| c == b'"' || c == b'\\' || c < 0x20)?;
                break;
            };
            let m = string_ends(u64::from_le_bytes(w.try_into().expect("8 bytes")));
            if m != 0 {
                end += m.trailing_zeros() as usize / 8;
                break;
            }
            end += 8;
        }
        if b[end] != b'"' {
            return None;
        }
        self.at = end + 1;
        Some(&b[start..end])
    }

    fn value(&mut self, ty: &Type, cons: Option<&Constraints>) -> bool {
        let base = match ty {
            Type::Nullable(inner) => {
                if self.eat(b"null") {
                    // the binder checks no constraint of a null
                    return true;
                }
                &**inner
            }
            t => t,
        };
        if cons.is_some() && !matches!(base, Type::String | Type::Int32 | Type::Int64) {
            return false;
        }
        match base {
            Type::String => match (self.string(), cons) {
                (None, _) => false,
                (Some(_), None) => true,
                // escape-free: the text between the quotes is the string the binder checks
                (Some(v), Some(c)) => {
                    std::str::from_utf8(v).is_ok_and(|v| c.check_string(v).is_ok())
                }
            },
            Type::Boolean => self.eat(b"true") || self.eat(b"false"),
            Type::Int32 | Type::Int64 => {
                let start = self.at;
                let sign = usize::from(self.b.get(start) == Some(&b'-'));
                let digits = self.b[start + sign..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                let raw = &self.b[start..start + sign + digits];
                self.at = start + sign + digits;
                if cons.is_none() {
                    // the common case, at most 18 digits: read here, without a parser
                    if let Some(v) = small_integer_of(raw) {
                        return *base == Type::Int64 || i32::try_from(v).is_ok();
                    }
                }
                // ASCII digits and a sign: a str
                let raw = std::str::from_utf8(raw).unwrap_or("");
                is_normal_form(base, None, raw)
                    && cons.is_none_or(|c| {
                        Decimal::parse(raw).is_some_and(|v| c.check_number(&v, raw).is_ok())
                    })
            }
            Type::Enum(i) => match self.string() {
                Some(v) => self.types.enums[*i]
                    .members
                    .iter()
                    .any(|m| same_bytes(m.name.as_bytes(), v)),
                None => false,
            },
            Type::Record(i) => {
                let types: &'a TypeSet = self.types;
                self.record(&types.records[*i].fields)
            }
            Type::Entity(i) if self.entities => {
                let types: &'a TypeSet = self.types;
                self.record(&types.entities[*i].fields)
            }
            // an argument's entity id, a parameter's own value: kept as the binder keeps it
            Type::Entity(i) if self.depth == 1 => {
                let start = self.at;
                let read = self.string().is_some();
                self.entity_id = read.then_some((*i, start..self.at));
                read
            }
            // (an array's own constraints, such as uniqueItems, are declined above)
            Type::Array(item) => self.array(item),
            _ => false,
        }
    }

    /// An array whose items are each in normal form of `item` (the binder checks no
    /// constraint of an item).
    fn array(&mut self, item: &Type) -> bool {
        self.depth += 1;
        if self.depth > self.max_depth || !self.eat(b"[") {
            return false;
        }
        if !self.items(b']', |scan| scan.value(item, None)) {
            return false;
        }
        self.depth -= 1;
        true
    }

    /// The items of a container up to its `close` byte, its opening one eaten already: each
    /// read by `item`, separated by commas, none after the last.
    fn items(&mut self, close: u8, mut item: impl FnMut(&mut Self) -> bool) -> bool {
        if self.eat(&[close]) {
            return true;
        }
        loop {
            if !item(self) {
                return false;
            }
            if self.eat(&[close]) {
                return true;
            }
            if !self.eat(b",") {
                return false;
            }
        }
    }

    fn record(&mut self, fields: &[crate::model::types::Field]) -> bool {
        // an omitted field is normal only when the binder leaves it out too
        self.object(
            fields,
            |f| (&f.name, &f.ty, f.constraints.as_deref()),
            |f| f.optional && !matches!(f.ty, Type::Nullable(_)),
        )
    }

    /// An object of `members` (a record's fields, a call's parameters), each named,
    /// typed and constrained as `slot` says, each one left out as `may_omit` says.
    fn object<M>(
        &mut self,
        members: &[M],
        slot: impl Fn(&M) -> (&String, &Type, Option<&Constraints>),
        may_omit: impl Fn(&M) -> bool,
    ) -> bool {
        self.depth += 1;
        if self.depth > self.max_depth || members.len() > 64 || !self.eat(b"{") {
            return false;
        }
        let mut seen: u64 = 0;
        let mut next = 0;
        let read = self.items(b'}', |scan| {
            let Some(key) = scan.string() else {
                return false;
            };
            // keys mostly come in the members' order: the next one is tried first
            let found = match members.get(next) {
                Some(m) if same_bytes(slot(m).0.as_bytes(), key) => Some(next),
                _ => members
                    .iter()
                    .position(|m| same_bytes(slot(m).0.as_bytes(), key)),
            };
            let Some(i) = found else {
                return false;
            };
            next = i + 1;
            let (name, ty, cons) = slot(&members[i]);
            if seen & (1 << i) != 0 || !scan.eat(b":") {
                return false;
            }
            seen |= 1 << i;
            let start = scan.at;
            if !scan.value(ty, cons) {
                return false;
            }
            if scan.depth == 2 && scan.id_field == Some(name.as_str()) {
                scan.id = start..scan.at;
            }
            if let Some((entity, range)) = scan.entity_id.take() {
                scan.refs.push(EntityRef {
                    entity,
                    path: name.clone(),
                    range,
                });
            }
            true
        });
        if !read {
            return false;
        }
        self.depth -= 1;
        members
            .iter()
            .enumerate()
            .all(|(i, m)| seen & (1 << i) != 0 || may_omit(m))
    }
}

/// The bytes of `w` (eight bytes of text, the first in the lowest) that end or escape a
/// JSON string, a quote, a backslash or a control character (which JSON refuses unescaped),
/// each marked by its high bit. The lowest mark is exact, the first such byte; marks above
/// it may be spurious (a borrow carried from it), so only the lowest is read.
#[inline]
fn string_ends(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    zero(w ^ (ONES * u64::from(b'"')))
        | zero(w ^ (ONES * u64::from(b'\\')))
        | (w.wrapping_sub(ONES * 0x20) & !w & HIGH)
}

/// The first two equal items (by JSON Schema's equality: numbers by value, objects
/// whatever their key order) among the bound items at `ranges` of `out`.
fn first_duplicate(out: &str, ranges: &[Range<usize>]) -> Option<(usize, usize)> {
    let mut seen: std::collections::HashMap<String, usize> =
        std::collections::HashMap::with_capacity(ranges.len());
    for (i, r) in ranges.iter().enumerate() {
        let v: serde_json::Value = serde_json::from_str(&out[r.clone()]).ok()?;
        let mut key = String::new();
        canonical(&v, &mut key);
        if let Some(first) = seen.insert(key, i) {
            return Some((first, i));
        }
    }
    None
}

/// A text equal for equal JSON values: object keys sorted, numbers by value.
fn canonical(v: &serde_json::Value, out: &mut String) {
    use serde_json::Value;
    match v {
        Value::Null | Value::Bool(_) | Value::String(_) => out.push_str(&v.to_string()),
        Value::Number(n) => match Decimal::parse(&n.to_string()) {
            Some(d) => d.write_key(out),
            None => out.push_str(&n.to_string()),
        },
        Value::Array(a) => {
            out.push('[');
            for x in a {
                canonical(x, out);
                out.push(',');
            }
            out.push(']');
        }
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            out.push('{');
            for k in keys {
                out.push_str(&serde_json::Value::String(k.clone()).to_string());
                out.push(':');
                canonical(&o[k], out);
                out.push(',');
            }
            out.push('}');
        }
    }
}

/// A number's text as the caller wrote it, cut at 40 characters for a message.
fn quote_number(raw: &str) -> String {
    if raw.len() <= 40 {
        raw.to_owned()
    } else {
        format!("{}…", &raw[..40])
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a value of the declared type")
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        if self.base().1 {
            self.ctx.out.push_str("null");
            Ok(())
        } else {
            Err(self.mismatch("null".into()))
        }
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        if matches!(self.base().0, Type::Boolean) {
            self.ctx.out.push_str(if v { "true" } else { "false" });
            Ok(())
        } else {
            Err(self.mismatch(format!("boolean {v}")))
        }
    }

    // Int32, Int64 and Double positions never get here (see `number`).
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        Err(self.mismatch(format!("number {v}")))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        Err(self.mismatch(format!("number {v}")))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        Err(self.mismatch(format!("number {v}")))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.string(v, false)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<(), E> {
        // borrowed from the input as it is: the parser found no escape in it and refuses
        // control characters, so there is nothing to escape when it is written back
        self.string(v, true)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Type::Array(item) = self.base().0 else {
            return Err(self.mismatch("an array".into()));
        };
        let ctx = self.ctx;
        let cons = self.cons;
        let unique = cons.is_some_and(|c| c.unique_items);
        let mut items: Vec<Range<usize>> = Vec::new();
        ctx.enter()?;
        ctx.out.push('[');
        let mut i = 0usize;
        loop {
            if i > 0 {
                // a comma before the next element; removed again if there is none
                ctx.out.push(',');
            }
            let refs_before = ctx.refs.len();
            let start = ctx.out.len();
            match seq.next_element_seed(ValueSeed {
                ctx: &mut *ctx,
                ty: item,
                cons: None,
            }) {
                Ok(Some(())) => {
                    name_refs(ctx, refs_before, SegRef::Index(i));
                    if unique {
                        items.push(start..ctx.out.len());
                    }
                    if ctx.depth == 1 {
                        let end = ctx.out.len();
                        if let Some(c) = &mut ctx.collect {
                            let id = c.current_id.take().unwrap_or(0..0);
                            c.items.push((id, start..end));
                        }
                    }
                }
                Ok(None) => {
                    if i > 0 {
                        ctx.out.pop();
                    }
                    break;
                }
                Err(e) => return Err(ctx.wrap(e, Seg::Index(i))),
            }
            i += 1;
        }
        ctx.out.push(']');
        ctx.depth -= 1;
        if let Some(c) = cons {
            c.check_items(i as u64).map_err(|why| ctx.fail(why))?;
            if unique {
                if let Some((a, b)) = first_duplicate(&ctx.out, &items) {
                    return Err(ctx.fail(format!(
                        "items [{a}] and [{b}] are equal, but the items must be unique (uniqueItems)"
                    )));
                }
            }
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let types = self.ctx.types;
        let (base, _) = self.base();
        let fields = match base {
            Type::Record(i) => &types.records[*i].fields,
            Type::Entity(i) if self.ctx.mode == Mode::Values => &types.entities[*i].fields,
            _ => return Err(self.mismatch("an object".into())),
        };
        let ctx = self.ctx;
        ctx.enter()?;
        // the fields seen: a bit each (a vector for records of more than 64 fields)
        let mut seen_small: u64 = 0;
        let mut seen_large: Vec<bool> = if fields.len() > 64 {
            vec![false; fields.len()]
        } else {
            Vec::new()
        };
        let mut seen = |i: usize| -> bool {
            if fields.len() > 64 {
                std::mem::replace(&mut seen_large[i], true)
            } else {
                let was = seen_small & (1 << i) != 0;
                seen_small |= 1 << i;
                was
            }
        };
        ctx.out.push('{');
        let mut first = true;
        let mut next = 0;
        let mut by_name: Option<std::collections::HashMap<&str, usize>> = None;
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let found = match fields.get(next) {
                Some(f) if same_name(&f.name, &key) => Some(next),
                _ => find_name(fields, |f| &f.name, &mut by_name, &key),
            };
            let Some(index) = found else {
                let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
                let e = ctx.fail(format!(
                    "unknown field of {}; expected one of: {}",
                    types.type_name(base),
                    names.join(", ")
                ));
                return Err(ctx.wrap(e, Seg::Key(key.into_owned())));
            };
            if seen(index) {
                let e = ctx.fail("given more than once".into());
                return Err(ctx.wrap(e, Seg::Key(key.into_owned())));
            }
            next = index + 1;
            let f = &fields[index];
            if !first {
                ctx.out.push(',');
            }
            first = false;
            write_name(&mut ctx.out, &f.name);
            ctx.out.push(':');
            let refs_before = ctx.refs.len();
            let start = ctx.out.len();
            if let Err(e) = map.next_value_seed(ValueSeed {
                ctx: &mut *ctx,
                ty: &f.ty,
                cons: f.constraints.as_deref(),
            }) {
                return Err(ctx.wrap(e, Seg::Key(f.name.clone())));
            }
            name_refs(ctx, refs_before, SegRef::Key(&f.name));
            if ctx.depth == 2 {
                if let Some(c) = &mut ctx.collect {
                    if c.id_field == f.name {
                        // (an id of another type is "")
                        c.current_id = ctx.out[start..]
                            .starts_with('"')
                            .then_some(start..ctx.out.len());
                    }
                }
            }
        }
        for (i, f) in fields.iter().enumerate() {
            let was_seen = if fields.len() > 64 {
                seen_large[i]
            } else {
                seen_small & (1 << i) != 0
            };
            if was_seen {
                continue;
            }
            if matches!(f.ty, Type::Nullable(_)) {
                // an omitted nullable field binds as null
                if !first {
                    ctx.out.push(',');
                }
                first = false;
                write_name(&mut ctx.out, &f.name);
                ctx.out.push_str(":null");
            } else if !f.optional {
                let tn = types.type_name(&f.ty);
                let e: A::Error = ctx.fail(format!("missing required field ({tn})"));
                return Err(ctx.wrap(e, Seg::Key(f.name.clone())));
            }
        }
        ctx.out.push('}');
        ctx.depth -= 1;
        Ok(())
    }
}

/// Deterministic mutations of each of `texts` (a byte changed to one of JSON's, dropped or
/// doubled), `per_text` of each, for the fast paths' tests: `keeps` gets the text's index and
/// each mutation that is still UTF-8, and answers whether the fast path under test kept it
/// (asserting what it must of a kept one). Returns how many were kept and tried.
#[cfg(test)]
pub(crate) fn mutate_each(
    texts: &[&str],
    per_text: usize,
    mut seed: u64,
    mut keeps: impl FnMut(usize, &str) -> bool,
) -> (usize, usize) {
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 33) as usize) % n
    };
    let alphabet = br#"{}[]":,.-+0129eEntrufalsNHLow\ "#;
    let (mut kept, mut tried) = (0, 0);
    for (k, text) in texts.iter().enumerate() {
        for _ in 0..per_text {
            let mut b = text.as_bytes().to_vec();
            let at = next(b.len());
            match next(3) {
                0 => b[at] = alphabet[next(alphabet.len())],
                1 => {
                    b.remove(at);
                }
                _ => b.insert(at, b[at]),
            }
            let Ok(m) = String::from_utf8(b) else {
                continue;
            };
            tried += 1;
            if keeps(k, &m) {
                kept += 1;
            }
        }
    }
    (kept, tried)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::types::ParameterDefault;
    use serde_json::json;

    #[test]
    fn small_integers_are_read_without_the_number_parser_and_only_they() {
        assert_eq!(small_integer("0"), Some(0));
        assert_eq!(small_integer("-42"), Some(-42));
        assert_eq!(
            small_integer("999999999999999999"),
            Some(999_999_999_999_999_999)
        );
        assert_eq!(
            small_integer("-999999999999999999"),
            Some(-999_999_999_999_999_999)
        );
        for other in [
            "-0",
            "01",
            "1.0",
            "1e2",
            "",
            "-",
            "9223372036854775807",
            "1000000000000000000",
        ] {
            assert_eq!(small_integer(other), None, "{other}");
        }
        let t = TypeSet::default();
        let bind = |ty: Type, text: &str| {
            bind_value(&t, &ty, text, Mode::Values, &Limits::default()).map(|b| b.json)
        };
        assert_eq!(bind(Type::Int32, "2147483647").unwrap(), "2147483647");
        assert!(bind(Type::Int32, "2147483648")
            .unwrap_err()
            .reason
            .contains("out of range"));
        assert_eq!(bind(Type::Int64, "-2147483649").unwrap(), "-2147483649");
        assert_eq!(
            bind(Type::Int64, "9223372036854775807").unwrap(),
            "9223372036854775807"
        );
        assert_eq!(bind(Type::Int32, "-0").unwrap(), "0");
        assert_eq!(bind(Type::Int32, "2.0").unwrap(), "2");
    }

    fn types() -> TypeSet {
        let mut t = TypeSet::default();
        t.define(&json!({
            "enums": [{"name": "Priority", "members": ["Low", "Normal", "High"]}],
            "records": [{"name": "Line", "fields": [{"name": "sku", "type": "string"}, {"name": "qty", "type": "int32", "optional": true}]}]
        }))
        .unwrap();
        t
    }

    fn param(name: &str, ty: Type) -> Parameter {
        Parameter {
            name: name.into(),
            ty,
            description: None,
            optional: false,
            default: None,
            constraints: None,
        }
    }

    fn order_params() -> Vec<Parameter> {
        let mut priority = param("priority", Type::Enum(0));
        priority.optional = true;
        priority.default = Some(Box::new(ParameterDefault {
            value: json!("Normal"),
            json: "\"Normal\"".into(),
        }));
        vec![
            param("customer", Type::String),
            param("quantity", Type::Int32),
            priority,
        ]
    }

    fn bind(args: &str) -> Result<String, String> {
        bind_arguments(&types(), &order_params(), Some(args), &Limits::default())
            .map(|b| b.json)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn arguments_in_any_order_cost_work_linear_in_their_number() {
        let n = 2_000;
        let params: Vec<Parameter> = (0..n)
            .map(|i| param(&format!("p{i}"), Type::Int32))
            .collect();
        let mut args = String::from("{");
        for i in (0..n).rev() {
            if i + 1 < n {
                args.push(',');
            }
            args.push_str(&format!("\"p{i}\":{i}"));
        }
        args.push('}');
        NAME_PROBES.with(|c| c.set(0));
        let b = bind_arguments(&types(), &params, Some(&args), &Limits::default()).unwrap();
        assert!(b.json.starts_with("{\"p1999\":1999,\"p1998\":1998"));
        // reversed, every key missed the guess: a scan each would have been n^2/2 (2,000,000)
        let work = NAME_PROBES.with(|c| c.get());
        assert!(work <= 3 * n, "{work} probes for {n} arguments");
    }

    #[test]
    fn binds_the_seed_call_and_applies_defaults() {
        assert_eq!(
            bind(r#"{"customer":"acme","quantity":2,"priority":"Normal"}"#).unwrap(),
            r#"{"customer":"acme","quantity":2,"priority":"Normal"}"#
        );
        assert_eq!(
            bind(r#"{"quantity":2.0,"customer":"a\"b"}"#).unwrap(),
            r#"{"quantity":2,"customer":"a\"b","priority":"Normal"}"#
        );
    }

    #[test]
    fn refusals_name_the_parameter_and_the_reason() {
        assert_eq!(
            bind(r#"{"customer":"acme","quantity":"two"}"#).unwrap_err(),
            r#"quantity: expected int32, got string "two""#
        );
        assert_eq!(
            bind(r#"{"customer":"acme"}"#).unwrap_err(),
            "quantity: missing required value (int32)"
        );
        assert_eq!(
            bind(r#"{"customer":"acme","quantity":1,"prio":"Low"}"#).unwrap_err(),
            r#"prio: unknown parameter (did you mean "priority"?); expected one of: customer, quantity, priority"#
        );
        assert_eq!(
            bind(r#"{"customer":"acme","quantity":1,"priority":"normal"}"#).unwrap_err(),
            r#"priority: "normal" is not a member of enum Priority (did you mean "Normal"?); expected one of: Low, Normal, High"#
        );
        assert_eq!(
            bind(r#"{"customer":"acme","quantity":3000000000}"#).unwrap_err(),
            "quantity: number 3000000000 is out of range for int32 (-2147483648 to 2147483647)"
        );
        assert_eq!(
            bind(r#"{"customer":"acme","quantity":1.5}"#).unwrap_err(),
            "quantity: expected int32, got number 1.5 with a fraction"
        );
        assert_eq!(
            bind(r#"{"customer":null,"quantity":1}"#).unwrap_err(),
            "customer: expected string, got null"
        );
        assert_eq!(
            bind(r#"{"customer":"a","customer":"b","quantity":1}"#).unwrap_err(),
            "customer: given more than once"
        );
        assert_eq!(
            bind("[1]").unwrap_err(),
            "the arguments must be a JSON object keyed by parameter names, got an array"
        );
        assert!(bind(r#"{"customer":"a","quantity":1"#)
            .unwrap_err()
            .starts_with("invalid JSON"));
        assert!(bind(r#"{"customer":"a","quantity":1} x"#)
            .unwrap_err()
            .starts_with("invalid JSON: trailing characters"));
    }

    #[test]
    fn integers_are_exact_at_both_ends_of_every_width() {
        let t = types();
        let l = Limits::default();
        let one = |ty: Type, text: &str| {
            let params = vec![param("n", ty)];
            bind_arguments(&t, &params, Some(&format!("{{\"n\":{text}}}")), &l)
                .map(|b| b.json)
                .map_err(|e| e.to_string())
        };
        let i32r = "(-2147483648 to 2147483647)";
        let i64r = "(-9223372036854775808 to 9223372036854775807)";
        for (ty, ok, bad, range) in [
            (
                Type::Int32,
                ["-2147483648", "2147483647"],
                ["-2147483649", "2147483648"],
                i32r,
            ),
            (
                Type::Int64,
                ["-9223372036854775808", "9223372036854775807"],
                ["-9223372036854775809", "9223372036854775808"],
                i64r,
            ),
        ] {
            for v in ok {
                assert_eq!(one(ty.clone(), v).unwrap(), format!("{{\"n\":{v}}}"));
            }
            for v in bad {
                assert_eq!(
                    one(ty.clone(), v).unwrap_err(),
                    format!(
                        "n: number {v} is out of range for {} {range}",
                        t.type_name(&ty)
                    )
                );
            }
        }
        // values just past the end that an f64 cannot tell from it are refused as written
        for v in [
            "-9223372036854776000",
            "-9223372036854775808.5",
            "9223372036854775807.0000001e0",
        ] {
            let e = one(Type::Int64, v).unwrap_err();
            assert!(e.contains(v), "{e}");
        }
        assert_eq!(
            one(Type::Int64, "-9223372036854776000").unwrap_err(),
            format!("n: number -9223372036854776000 is out of range for int64 {i64r}")
        );
        assert_eq!(
            one(Type::Int64, "1e400").unwrap_err(),
            format!("n: number 1e400 is out of range for int64 {i64r}")
        );
        // JSON Schema's integers: a number whose value has no fraction, however written
        assert_eq!(one(Type::Int32, "2.0").unwrap(), r#"{"n":2}"#);
        assert_eq!(one(Type::Int32, "1e2").unwrap(), r#"{"n":100}"#);
        assert_eq!(one(Type::Int32, "-0.0").unwrap(), r#"{"n":0}"#);
        assert_eq!(
            one(Type::Int64, "9007199254740993.0").unwrap(),
            r#"{"n":9007199254740993}"#
        );
        assert_eq!(
            one(Type::Int64, "-9.223372036854775808e18").unwrap(),
            r#"{"n":-9223372036854775808}"#
        );
        assert_eq!(
            one(Type::Int32, "1e-1").unwrap_err(),
            "n: expected int32, got number 1e-1 with a fraction"
        );
        assert_eq!(
            one(Type::Int32, "2147483647.5").unwrap_err(),
            "n: expected int32, got number 2147483647.5 with a fraction"
        );
        // results and defaults take the same path
        let e = bind_value(&t, &Type::Int64, "-9223372036854775809", Mode::Values, &l).unwrap_err();
        assert_eq!(
            e.reason,
            format!("number -9223372036854775809 is out of range for int64 {i64r}")
        );
        // doubles keep their value; beyond the double range is refused
        assert_eq!(one(Type::Double, "1").unwrap(), r#"{"n":1}"#);
        assert_eq!(one(Type::Double, "2.50").unwrap(), r#"{"n":2.5}"#);
        assert_eq!(
            one(Type::Double, "1e400").unwrap_err(),
            "n: number 1e400 is out of range for double"
        );
        assert_eq!(
            one(Type::Double, r#""1""#).unwrap_err(),
            r#"n: expected double, got string "1""#
        );
        // a double's normal form is read by serde_json's exact reader and written as `{:?}`
        // writes it: the same value as `str::parse` reads, at the edges of the range too
        for raw in [
            "0.1",
            "-0.0",
            "1e-400",
            "4.9e-324",
            "2.2250738585072011e-308",
            "1.7976931348623157e308",
            "9007199254740993",
            "9007199254740993.0",
            "123456789012345678901234567890",
            "1e16",
            "1.0000000000000002",
            "3.141592653589793238462643383279",
            "0.30000000000000004",
            "1E+2",
            "7e-5",
        ] {
            let want: f64 = raw.parse().unwrap();
            let plain = raw.len() <= 20
                && raw
                    .bytes()
                    .enumerate()
                    .all(|(i, b)| b.is_ascii_digit() || (i == 0 && b == b'-'));
            let want = if plain {
                raw.to_string()
            } else {
                format!("{want:?}")
            };
            assert_eq!(
                one(Type::Double, raw).unwrap(),
                format!(r#"{{"n":{want}}}"#),
                "{raw}"
            );
        }
        assert_eq!(
            one(Type::Nullable(Box::new(Type::Int32)), "null").unwrap(),
            r#"{"n":null}"#
        );
        assert_eq!(
            one(Type::Int32, "null").unwrap_err(),
            "n: expected int32, got null"
        );
        assert_eq!(
            one(Type::Int32, "true").unwrap_err(),
            "n: expected int32, got boolean true"
        );
        assert_eq!(
            one(Type::Int32, "[1]").unwrap_err(),
            "n: expected int32, got an array"
        );
        assert!(one(Type::Int32, "01")
            .unwrap_err()
            .starts_with("n: invalid JSON"));
    }

    #[test]
    fn nested_errors_carry_their_path() {
        let t = types();
        let params = vec![param("lines", Type::Array(Box::new(Type::Record(0))))];
        let l = Limits::default();
        let e = bind_arguments(
            &t,
            &params,
            Some(r#"{"lines":[{"sku":"a"},{"sku":"b","qty":"x"}]}"#),
            &l,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"lines[1].qty: expected int32, got string "x""#
        );
        let e = bind_arguments(&t, &params, Some(r#"{"lines":[{"qty":1}]}"#), &l).unwrap_err();
        assert_eq!(
            e.to_string(),
            "lines[0].sku: missing required field (string)"
        );
        let ok = bind_arguments(&t, &params, Some(r#"{"lines":[ ]}"#), &l).unwrap();
        assert_eq!(ok.json, r#"{"lines":[]}"#);
    }

    #[test]
    fn limits_refuse_oversize_and_deep_input() {
        let t = types();
        let params = vec![param(
            "x",
            Type::Array(Box::new(Type::Array(Box::new(Type::Int32)))),
        )];
        let l = Limits {
            max_input_bytes: 64,
            max_depth: 2,
        };
        let e = bind_arguments(&t, &params, Some(r#"{"x":[[1]]}"#), &l).unwrap_err();
        assert_eq!(
            e.to_string(),
            "x[0]: the input nests deeper than the limit of 2 levels"
        );
        let big = format!("{{\"x\":\"{}\"}}", "a".repeat(100));
        assert!(bind_arguments(&t, &params, Some(&big), &l)
            .unwrap_err()
            .to_string()
            .contains("more than the limit of 64 bytes"));
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(bind_arguments(
            &t,
            &params,
            Some(&format!("{{\"x\":{deep}}}")),
            &Limits::default()
        )
        .is_err());
    }

    #[test]
    fn entity_ids_are_found_with_their_paths() {
        let mut t = types();
        t.add_entity(crate::model::types::EntityDef {
            name: "order".into(),
            title: None,
            description: None,
            id_field: "id".into(),
            fields: vec![],
        });
        t.define(&json!({"records": [{"name": "Pick", "fields": [
            {"name": "note", "type": "string"},
            {"name": "order", "type": {"entity": "order"}}
        ]}]}))
        .unwrap();
        let pick = Type::Record(t.records.iter().position(|r| r.name == "Pick").unwrap());
        let entity_grid = Type::Array(Box::new(Type::Array(Box::new(Type::Entity(0)))));
        let params = vec![
            param("order", Type::Entity(0)),
            param("others", Type::Array(Box::new(Type::Entity(0)))),
            param("picks", Type::Array(Box::new(pick))),
            param("grid", entity_grid),
        ];
        let b = bind_arguments(
            &t,
            &params,
            Some(
                r#"{"order":"o-1","others":["o-2","o-3"],"picks":[{"note":"a","order":"o-4"}],"grid":[[],["o-5"]]}"#,
            ),
            &Limits::default(),
        )
        .unwrap();
        let found: Vec<String> = b
            .entity_refs
            .iter()
            .map(|r| format!("{} at {}", r.id(&b.json), r.path))
            .collect();
        // as an error's path is written (`nested_errors_carry_their_path`)
        assert_eq!(
            found,
            [
                "o-1 at order",
                "o-2 at others[0]",
                "o-3 at others[1]",
                "o-4 at picks[0].order",
                "o-5 at grid[1][0]"
            ]
        );
        assert_eq!(&b.json[b.entity_refs[1].range.clone()], "\"o-2\"");
    }

    #[test]
    fn strings_are_escaped_on_output() {
        let mut s = String::new();
        write_json_str(&mut s, "a\u{1}\n\"é");
        assert_eq!(s, "\"a\\u0001\\n\\\"é\"");
        assert_eq!(serde_json::from_str::<String>(&s).unwrap(), "a\u{1}\n\"é");
    }

    #[test]
    fn long_strings_are_escaped_as_serde_json_does_across_the_buffer() {
        // every length around the stack buffer's flushes, multi-byte characters and
        // escapes landing on each side of them, appended after text already there
        let pieces = [
            "\"",
            "é",
            "✓",
            "😀",
            "\\",
            "\u{1f}",
            "\t",
            "ab",
            "{\"k\":1}",
        ];
        for len in [0usize, 1, 60, 61, 62, 63, 64, 65, 127, 128, 129, 600] {
            for (i, p) in pieces.iter().enumerate() {
                let mut text = "x".repeat(len);
                for j in 0..40 {
                    text.push_str(pieces[(i + j) % pieces.len()]);
                    text.push_str(p);
                }
                let mut out = String::from("[");
                write_json_str(&mut out, &text);
                assert_eq!(out[1..], serde_json::to_string(&text).unwrap(), "{len} {p}");
                assert_eq!(json_str_len(&text), out.len() - 1, "{len} {p}");
            }
        }
    }

    /// Records as a handler returns them: an `Order` with an enum, a nullable note, an
    /// optional (not nullable) coupon, a nested record and a nullable record; a constrained one.
    fn result_types() -> TypeSet {
        let mut t = TypeSet::default();
        t.define(&json!({
            "enums": [{"name": "Priority", "members": ["Low", "Normal", "High"]}],
            "records": [
                {"name": "Money", "fields": [{"name": "units", "type": "int64"}, {"name": "currency", "type": "string"}]},
                {"name": "Order", "fields": [
                    {"name": "id", "type": "string"},
                    {"name": "quantity", "type": "int32"},
                    {"name": "priority", "type": {"enum": "Priority"}},
                    {"name": "paid", "type": "boolean"},
                    {"name": "note", "type": {"nullable": "string"}},
                    {"name": "coupon", "type": "string", "optional": true},
                    {"name": "total", "type": {"record": "Money"}},
                    {"name": "refund", "type": {"nullable": {"record": "Money"}}}]},
                {"name": "Bounded", "fields": [{"name": "n", "type": "int32", "minimum": 1}]},
                {"name": "Empty", "fields": []},
                {"name": "Tag", "fields": [
                    {"name": "code", "type": "string", "minLength": 2, "maxLength": 3},
                    {"name": "n", "type": {"nullable": "int64"}, "maximum": 10, "exclusiveMinimum": -3}]}
            ]
        }))
        .unwrap();
        t
    }

    /// `is_normal_value` may only keep a text the binder would give back unchanged: checked on
    /// hand-picked cases and on 32,000 deterministic mutations of normal ones (a byte changed,
    /// dropped or doubled), and the fast path is taken for the plain cases.
    #[test]
    fn a_normal_value_is_exactly_what_the_binder_gives_back() {
        let t = result_types();
        let l = Limits::default();
        let order = Type::Record(1);
        let base = r#"{"id":"o-1","quantity":2,"priority":"Normal","paid":true,"note":null,"total":{"units":1250,"currency":"EUR"},"refund":null}"#;
        let taken: Vec<(Type, &str)> = vec![
            (order.clone(), base),
            (
                order.clone(),
                r#"{"quantity":-7,"id":"é ✓/","total":{"currency":"","units":-9223372036854775808},"priority":"High","paid":false,"note":"n","coupon":"c","refund":{"units":0,"currency":"USD"}}"#,
            ),
            (Type::Nullable(Box::new(order.clone())), "null"),
            (Type::Record(3), "{}"),
            (Type::Record(2), r#"{"n":5}"#),
            (Type::Record(4), r#"{"code":"ééé","n":10}"#),
            (Type::Enum(0), r#""Low""#),
            (Type::String, r#""ok""#),
            (Type::Int32, "-2147483648"),
            (Type::Array(Box::new(Type::Int32)), "[1]"),
            (Type::Array(Box::new(Type::Int32)), "[]"),
            (
                Type::Array(Box::new(order.clone())),
                r#"[{"id":"o-2","quantity":1,"priority":"Low","paid":false,"note":null,"total":{"units":5,"currency":"EUR"},"refund":null},{"id":"o-3","quantity":3,"priority":"High","paid":true,"note":"x","total":{"units":7,"currency":"USD"},"refund":{"units":7,"currency":"USD"}}]"#,
            ),
        ];
        for (ty, text) in &taken {
            assert!(is_normal_value(&t, ty, None, text, &l), "not taken: {text}");
            let bound = bind_value(&t, ty, text, Mode::Values, &l).map(|b| b.json);
            assert_eq!(bound.as_deref(), Ok(*text));
        }
        let declined: Vec<(Type, String)> = vec![
            // the binder changes these (order kept, but white space, a nullable field
            // omitted and so written as null, an integer's form) or refuses them
            (order.clone(), base.replace(',', ", ")),
            (order.clone(), base.replace(r#","note":null"#, "")),
            (
                order.clone(),
                base.replace("\"quantity\":2", "\"quantity\":2.0"),
            ),
            (
                order.clone(),
                base.replace("\"quantity\":2", "\"quantity\":02"),
            ),
            (
                order.clone(),
                base.replace("\"quantity\":2", "\"quantity\":-0"),
            ),
            (
                order.clone(),
                base.replace("\"quantity\":2", "\"quantity\":2147483648"),
            ),
            (order.clone(), base.replace("Normal", "normal")),
            (order.clone(), base.replace("o-1", "o\\u002d1")),
            (order.clone(), base.replace(r#""paid":true,"#, "")),
            (
                order.clone(),
                base.replace(r#""paid":true"#, r#""paid":true,"paid":true"#),
            ),
            (
                order.clone(),
                base.replace(r#""paid":true"#, r#""paid":true,"extra":1"#),
            ),
            (order.clone(), base.replace(r#""id":"o-1""#, r#""id":null"#)),
            (order.clone(), format!(" {base}")),
            (Type::Record(2), r#"{"n":0}"#.into()),
            (Type::Record(4), r#"{"code":"éééé","n":10}"#.into()),
            (Type::Record(4), r#"{"code":"AB","n":11}"#.into()),
            (Type::Record(4), r#"{"code":"AB","n":-3}"#.into()),
            (Type::Array(Box::new(Type::Int32)), "[1 ]".into()),
            (Type::Array(Box::new(Type::Int32)), "[1,]".into()),
            (Type::Array(Box::new(Type::Int32)), "[1,2.0]".into()),
            (Type::Array(Box::new(Type::Double)), "[1]".into()),
        ];
        for (ty, text) in &declined {
            assert!(!is_normal_value(&t, ty, None, text, &l), "taken: {text}");
        }
        // over the depth limit (the nested Money), over the size limit
        for (max_depth, max_input_bytes) in [(1, 1 << 20), (64, 10)] {
            let over = Limits {
                max_depth,
                max_input_bytes,
            };
            assert!(!is_normal_value(&t, &order, None, base, &over));
        }
        // mutations: whatever the fast path keeps, the binder gives back unchanged
        let mutated = [&taken[0], &taken[1], &taken[5], &taken[11]];
        let texts: Vec<&str> = mutated.iter().map(|(_, text)| *text).collect();
        let (kept, tried) = mutate_each(&texts, 8_000, 0x9e37_79b9_7f4a_7c15, |k, m| {
            let ty = &mutated[k].0;
            let keep = is_normal_value(&t, ty, None, m, &l);
            if keep {
                let bound = bind_value(&t, ty, m, Mode::Values, &l).map(|b| b.json);
                assert_eq!(bound.as_deref(), Ok(m), "kept but changed: {m}");
            }
            keep
        });
        assert!(
            tried > 20_000 && kept > 100,
            "{kept} of {tried} mutations kept"
        );
    }

    /// `string_ends` against the byte-at-a-time rule: its lowest mark is the first byte that
    /// ends or escapes a string, with each byte value at each place of a word of plain bytes
    /// (ASCII and UTF-8's), and with a second such byte after or before it.
    #[test]
    fn a_words_first_string_end_is_the_first_byte_that_ends_it() {
        let ends = |c: &u8| *c == b'"' || *c == b'\\' || *c < 0x20;
        let first = |w: [u8; 8]| match string_ends(u64::from_le_bytes(w)) {
            0 => None,
            m => Some(m.trailing_zeros() as usize / 8),
        };
        for fill in [b'a', b' ', 0x7f, 0xc3, 0xff] {
            for at in 0..8 {
                for c in 0..=255u8 {
                    let mut w = [fill; 8];
                    w[at] = c;
                    assert_eq!(first(w), w.iter().position(ends), "{w:?}");
                    for c2 in [0u8, 0x01, 0x1f, 0x20, 0x21, b'"', b'\\', 0x80, 0xa2] {
                        for other in [(at + 3) % 8, (at + 7) % 8] {
                            let mut w2 = w;
                            w2[other] = c2;
                            assert_eq!(first(w2), w2.iter().position(ends), "{w2:?}");
                        }
                    }
                }
            }
        }
    }

    /// A lookup's answer kept by `normal_entity_list` is what the parsing binder gives back,
    /// ids and element bytes included: on hand-picked answers and on deterministic mutations.
    #[test]
    fn a_normal_entity_list_is_exactly_what_the_binder_gives_back() {
        use crate::model::types::{EntityDef, Field};
        let mut t = result_types();
        let field = |name: &str, ty: Type, optional: bool| Field {
            name: name.into(),
            ty,
            description: None,
            optional,
            constraints: None,
        };
        let order = t.add_entity(EntityDef {
            name: "order".into(),
            title: None,
            description: None,
            id_field: "id".into(),
            fields: vec![
                field("id", Type::String, false),
                field("customer", Type::String, false),
                field("note", Type::Nullable(Box::new(Type::String)), false),
                field("total", Type::Record(0), true),
                field("tags", Type::Array(Box::new(Type::String)), true),
            ],
        });
        let loose = t.add_entity(EntityDef {
            name: "loose".into(),
            title: None,
            description: None,
            id_field: "key".into(),
            fields: vec![
                field("key", Type::String, true),
                field("n", Type::Int32, false),
            ],
        });
        let l = Limits::default();
        let taken = [
            r#"[{"id":"o-1","customer":"acme","note":null}]"#,
            r#"[]"#,
            r#"[{"customer":"b","id":"o-2 ✓","note":"n","tags":["x"],"total":{"units":5,"currency":"EUR"}},{"id":"","customer":"","note":null}]"#,
        ];
        for text in taken {
            let items = normal_entity_list(&t, order, text, &l);
            assert!(items.is_some(), "not taken: {text}");
            let parsed = bind_entity_list_parsed(&t, order, text, &l);
            assert_eq!(parsed, Ok((text.to_owned(), items.unwrap())));
            assert_eq!(bind_entity_list(&t, order, text.into(), &l), parsed);
        }
        let base = taken[0];
        let declined = [
            base.replace(',', ", "),
            base.replace(r#","note":null"#, ""),
            base.replace("o-1", "o\\u002d1"),
            base.replace(r#""id":"o-1","#, ""),
            base.replace(r#""o-1""#, "1"),
            format!("{base} "),
            base.replace('[', "[1,"),
            "{}".into(),
        ];
        for text in &declined {
            assert!(
                normal_entity_list(&t, order, text, &l).is_none(),
                "taken: {text}"
            );
            assert_eq!(
                bind_entity_list(&t, order, text.clone(), &l),
                bind_entity_list_parsed(&t, order, text, &l)
            );
        }
        // a function's result of the entity's type is its object, as the binder takes it
        let one = r#"{"id":"o-1","customer":"acme","note":null}"#;
        assert!(is_normal_value(&t, &Type::Entity(order), None, one, &l));
        assert_eq!(
            bind_value(&t, &Type::Entity(order), one, Mode::Values, &l).map(|b| b.json),
            Ok(one.to_owned())
        );
        // an optional id left out: the parsing binder decides (and names it "")
        let no_key = r#"[{"n":1}]"#;
        assert!(normal_entity_list(&t, loose, no_key, &l).is_none());
        assert_eq!(
            bind_entity_list(&t, loose, no_key.into(), &l).unwrap().1,
            vec![(0..0, 1..8)]
        );
        let (kept, tried) = mutate_each(
            &[taken[0], taken[2]],
            12_000,
            0x5851_f42d_4c95_7f2d,
            |_, m| {
                let Some(items) = normal_entity_list(&t, order, m, &l) else {
                    return false;
                };
                let parsed = bind_entity_list_parsed(&t, order, m, &l);
                assert_eq!(parsed, Ok((m.to_owned(), items)), "kept but changed: {m}");
                true
            },
        );
        assert!(
            tried > 20_000 && kept > 100,
            "{kept} of {tried} mutations kept"
        );
    }

    #[test]
    fn normal_form_is_what_the_binder_gives_back() {
        let t = types();
        let l = Limits::default();
        let nullable = |ty: Type| Type::Nullable(Box::new(ty));
        let cases: Vec<(Type, &str)> = vec![
            (Type::String, r#""ok""#),
            (Type::String, r#""é ✓""#),
            (Type::String, r#""a\"b""#),
            (Type::String, r#""\u0041""#),
            (Type::String, "\"tab\there\""),
            (Type::String, r#" "padded" "#),
            (Type::String, "null"),
            (nullable(Type::String), "null"),
            (Type::String, "1"),
            (Type::Boolean, "true"),
            (Type::Boolean, "True"),
            (Type::Int32, "0"),
            (Type::Int32, "-0"),
            (Type::Int32, "01"),
            (Type::Int32, "-2147483648"),
            (Type::Int32, "2147483648"),
            (Type::Int64, "9223372036854775807"),
            (Type::Int64, "9223372036854775808"),
            (Type::Int32, "1e3"),
            (Type::Int32, "1.0"),
            (Type::Double, "1.5"),
            (Type::Enum(0), r#""Low""#),
        ];
        for (ty, text) in cases {
            let bound = bind_value(&t, &ty, text, Mode::Values, &l).map(|b| b.json);
            if is_normal_form(&ty, None, text) {
                assert_eq!(bound.as_deref(), Ok(text), "{ty:?} {text}");
            }
            if bound.is_err() {
                assert!(!is_normal_form(&ty, None, text), "{ty:?} {text}");
            }
        }
        assert!(is_normal_form(&Type::String, None, r#""ok""#));
        assert!(is_normal_form(&Type::Int32, None, "-12"));
        assert!(!is_normal_form(&Type::Int32, None, "-0"));
        assert!(
            !is_normal_form(&Type::Enum(0), None, r#""Low""#),
            "enums go to the binder"
        );
    }
}
