//! Swift identifiers and literals: every name the generator writes is a valid Swift
//! identifier that collides with nothing else in the file, and every text is a string
//! literal that means exactly that text.

use std::collections::HashSet;

/// Swift's reserved words (The Swift Programming Language, "Lexical Structure",
/// "Keywords and Punctuation"): usable as names only between backticks.
const KEYWORDS: &[&str] = &[
    "associatedtype",
    "borrowing",
    "class",
    "consuming",
    "deinit",
    "enum",
    "extension",
    "fileprivate",
    "func",
    "import",
    "init",
    "inout",
    "internal",
    "let",
    "nonisolated",
    "open",
    "operator",
    "private",
    "precedencegroup",
    "protocol",
    "public",
    "rethrows",
    "static",
    "struct",
    "subscript",
    "typealias",
    "var",
    "break",
    "case",
    "catch",
    "continue",
    "default",
    "defer",
    "do",
    "else",
    "fallthrough",
    "for",
    "guard",
    "if",
    "in",
    "repeat",
    "return",
    "throw",
    "switch",
    "where",
    "while",
    "Any",
    "as",
    "await",
    "false",
    "is",
    "nil",
    "super",
    "throws",
    "true",
    "try",
    "async",
    "some",
    "any",
    "actor",
    "macro",
    "package",
];

/// Names that even backticks do not make usable as a member, or that would shadow
/// what the generated code or App Intents itself uses (`self.title`, `systemContext`,
/// `perform`, an entity's `id`, ...): a member so named gets a suffix instead.
const TAKEN_MEMBERS: &[&str] = &[
    "self",
    "Self",
    "Type",
    "Protocol",
    "init",
    "super",
    "title",
    "description",
    "perform",
    "systemContext",
    "parameterSummary",
    "openAppWhenRun",
    "supportedModes",
    "authenticationPolicy",
    "isDiscoverable",
    "id",
    "displayRepresentation",
    "typeDisplayRepresentation",
    "caseDisplayRepresentations",
    "defaultQuery",
    "allCases",
    "rawValue",
    "hashValue",
    "arguments",
    "run",
    "fields",
];

/// Whether `s` must be written between backticks.
pub(crate) fn is_keyword(s: &str) -> bool {
    KEYWORDS.contains(&s)
}

/// `s` as written in Swift source (backticks around a keyword).
pub(crate) fn ident(s: &str) -> String {
    if is_keyword(s) {
        format!("`{s}`")
    } else {
        s.to_owned()
    }
}

/// The words of a name, in ASCII: split at `_`, at punctuation and spaces, and before an
/// upper-case letter that follows a lower-case one (`dueDate` → due, Date); other
/// letters and digits are left out (`très` → trs), so a name of none is empty.
fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in s.chars() {
        if !c.is_ascii() && c.is_alphanumeric() {
            continue;
        }
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn capitalized(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
        None => String::new(),
    }
}

/// `create_order` → `CreateOrder` (ASCII letters and digits only; `_` before a leading
/// digit; `fallback` when nothing is left).
pub(crate) fn upper_camel(s: &str, fallback: &str) -> String {
    let mut out: String = words(s).iter().map(|w| capitalized(w)).collect();
    if out.is_empty() {
        out = fallback.to_owned();
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// `Very urgent!` → `veryUrgent`, `HIGH` → `high`, `日本` → the fallback.
pub(crate) fn lower_camel(s: &str, fallback: &str) -> String {
    let ws = words(s);
    let mut out = String::new();
    for (i, w) in ws.iter().enumerate() {
        if i == 0 {
            // an all-caps first word reads as one word: HIGH → high, URLPath → urlpath
            out.push_str(&w.to_ascii_lowercase());
        } else {
            out.push_str(&capitalized(w));
        }
    }
    if out.is_empty() {
        out = fallback.to_owned();
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// A parameter or field name made into a title: `dueDate` → `Due date`.
pub(crate) fn title_of(name: &str) -> String {
    let ws = words(name);
    if ws.is_empty() {
        return name.to_owned();
    }
    let mut out = capitalized(&ws[0]);
    for w in &ws[1..] {
        out.push(' ');
        if w.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        {
            out.push_str(w);
        } else {
            out.push_str(&w.to_ascii_lowercase());
        }
    }
    out
}

/// Hands out names unique within one scope (the file's types, or one type's members):
/// the second `CreateOrderIntent` is `CreateOrder2Intent`.
#[derive(Default)]
pub(crate) struct Scope {
    used: HashSet<String>,
}

impl Scope {
    /// A scope where `taken` are already used.
    pub(crate) fn with(taken: &[&str]) -> Scope {
        Scope {
            used: taken.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// A member scope: the names App Intents and the generated code use are taken.
    pub(crate) fn members() -> Scope {
        Scope::with(TAKEN_MEMBERS)
    }

    /// `base + suffix`, or `base + n + suffix` for the first free n from 2.
    pub(crate) fn claim(&mut self, base: &str, suffix: &str) -> String {
        let first = format!("{base}{suffix}");
        if self.used.insert(first.clone()) {
            return first;
        }
        (2..)
            .map(|n| format!("{base}{n}{suffix}"))
            .find(|c| self.used.insert(c.clone()))
            .expect("some number is free")
    }

    /// A member name for `name` (already a valid identifier): itself unless taken, else
    /// `nameValue`, `nameValue2`, ...
    pub(crate) fn member(&mut self, name: &str) -> String {
        if self.used.insert(name.to_owned()) {
            return name.to_owned();
        }
        std::iter::once(format!("{name}Value"))
            .chain((2..).map(|n| format!("{name}Value{n}")))
            .find(|c| self.used.insert(c.clone()))
            .expect("some number is free")
    }
}

/// A Swift string literal meaning exactly `text`: `\` `"` and every character that is
/// not plainly visible text (controls, line and paragraph separators, bidirectional
/// and zero-width formatting characters, the BOM) escaped; other non-ASCII text as is
/// (Swift source is UTF-8). A `\(` in the text stays text, never an interpolation.
pub(crate) fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    push_escaped(&mut out, text);
    out.push('"');
    out
}

/// The body of a Swift string literal (see [`literal`]).
pub(crate) fn push_escaped(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c if needs_escape(c) => out.push_str(&format!("\\u{{{:X}}}", c as u32)),
            c => out.push(c),
        }
    }
}

fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(c as u32,
            0x00AD | 0x061C | 0x180E | 0x200B..=0x200F | 0x2028..=0x202E | 0x2060..=0x2069 | 0xFEFF | 0xFFF9..=0xFFFB)
}

/// A comment line's text: one line, no `*/`, nothing invisible.
pub(crate) fn comment(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '\n' | '\r' | '\u{2028}' | '\u{2029}' => out.push(' '),
            c if needs_escape(c) => out.push_str(&format!("\\u{{{:X}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.replace("*/", "* /")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_are_backticked_and_other_names_are_not() {
        assert_eq!(ident("default"), "`default`");
        assert_eq!(ident("in"), "`in`");
        assert_eq!(ident("protocol"), "`protocol`");
        assert_eq!(ident("customer"), "customer");
    }

    #[test]
    fn names_become_camel_case_from_ascii_words() {
        assert_eq!(upper_camel("create_order", "F"), "CreateOrder");
        assert_eq!(upper_camel("get_2fa_code", "F"), "Get2faCode");
        assert_eq!(upper_camel("Priority", "E"), "Priority");
        assert_eq!(upper_camel("日本", "Entity"), "Entity");
        assert_eq!(lower_camel("Very urgent!", "m"), "veryUrgent");
        assert_eq!(lower_camel("HIGH", "m"), "high");
        assert_eq!(lower_camel("Normal", "m"), "normal");
        assert_eq!(lower_camel("1st", "m"), "_1st");
        assert_eq!(lower_camel("très urgent", "m"), "trsUrgent");
        assert_eq!(lower_camel("日本", "member1"), "member1");
        assert_eq!(title_of("dueDate"), "Due date");
        assert_eq!(title_of("customer"), "Customer");
        assert_eq!(title_of("orderID"), "Order ID");
    }

    #[test]
    fn a_scope_never_hands_out_a_name_twice() {
        let mut s = Scope::default();
        assert_eq!(s.claim("CreateOrder", "Intent"), "CreateOrderIntent");
        assert_eq!(s.claim("CreateOrder", "Intent"), "CreateOrder2Intent");
        assert_eq!(s.claim("CreateOrder", "Intent"), "CreateOrder3Intent");
        let mut m = Scope::members();
        assert_eq!(m.member("customer"), "customer");
        assert_eq!(m.member("title"), "titleValue");
        assert_eq!(m.member("id"), "idValue");
        assert_eq!(m.member("self"), "selfValue");
        assert_eq!(m.member("title"), "titleValue2");
        assert_eq!(m.member("titleValue"), "titleValueValue");
        // the locals of the generated perform() and entity init
        for local in ["arguments", "run", "fields"] {
            assert_eq!(m.member(local), format!("{local}Value"));
        }
    }

    #[test]
    fn literals_mean_exactly_their_text() {
        assert_eq!(literal("plain"), "\"plain\"");
        assert_eq!(literal("say \"hi\""), "\"say \\\"hi\\\"\"");
        assert_eq!(literal("a\\b"), "\"a\\\\b\"");
        assert_eq!(literal("\\(evil)"), "\"\\\\(evil)\"");
        assert_eq!(literal("two\nlines\r\t"), "\"two\\nlines\\r\\t\"");
        assert_eq!(literal("nul\0"), "\"nul\\0\"");
        assert_eq!(literal("bell\u{7}"), "\"bell\\u{7}\"");
        assert_eq!(literal("ltr\u{202E}rtl"), "\"ltr\\u{202E}rtl\"");
        assert_eq!(literal("sep\u{2028}"), "\"sep\\u{2028}\"");
        assert_eq!(literal("zw\u{200B}"), "\"zw\\u{200B}\"");
        assert_eq!(literal("Crème brûlée 🍮 注文"), "\"Crème brûlée 🍮 注文\"");
        assert_eq!(literal("#\"raw\"#"), "\"#\\\"raw\\\"#\"");
    }

    #[test]
    fn comments_stay_one_line_and_closed() {
        assert_eq!(comment("a\nb */ c"), "a b * / c");
        assert_eq!(comment("x\u{202E}"), "x\\u{202E}");
    }
}
