//! `pattern` constraints: ECMA-262 regular expressions (JSON Schema's dialect), checked
//! and translated into the `regex` crate's syntax so that the core enforces exactly what
//! the schema states.
//!
//! The dialect is ECMA-262 with the `u` flag (code points, as the JSON Schema test suite
//! requires) and no other flag; a pattern matches when it matches anywhere in the string
//! (`RegExp.prototype.test`). Every construct is parsed here and re-emitted in a form whose
//! meaning the `regex` crate shares:
//!
//! | ECMA-262 | meaning kept | emitted |
//! |---|---|---|
//! | literals, `\t \n \v \f \r \0 \cX \xHH \uHHHH \u{H…}`, surrogate pairs | one code point | `\x{H}` |
//! | `\^ \$ \\ \. \* \+ \? \( \) \[ \] \{ \} \| \/` | the character | `\x{H}` |
//! | `.` | any code point but `\n \r U+2028 U+2029` | `[^\n\r\x{2028}\x{2029}]` |
//! | `\d \D \w \W` | ASCII only: `[0-9]`, `[A-Za-z0-9_]` | those classes |
//! | `\s \S` | ECMA's WhiteSpace and LineTerminator (U+FEFF included, U+0085 not) | an explicit class |
//! | `[…] [^…]`, ranges, `\b` (backspace) inside a class, `[]`, `[^]` | as ECMA | a class of code points |
//! | `^ $` | start and end of the string (no `m` flag) | `^ $` |
//! | `\b` | ASCII word boundary | `(?-u:\b)` |
//! | `( )`, `(?: )`, `(?<name> )` | grouping (captures do not matter for a test) | `(?: )` |
//! | `* + ? {n} {n,} {n,m}`, lazy `?` | repetition | the same |
//! | `\|` | alternation | `\|` |
//!
//! Refused at registration, naming the construct and where it is: lookahead and lookbehind
//! (`(?=` `(?!` `(?<=` `(?<!`), backreferences (`\1`, `\k<name>`), `\B` (the engine's ASCII
//! `\B` also holds between the bytes of one character, so `\B` would match "x😀y"), group
//! names used twice, Unicode property escapes
//! (`\p{…}` `\P{…}`: the engines' Unicode tables and property names differ), inline
//! modifiers (`(?i:…)`), lone surrogates, and everything the `u` flag makes a syntax error
//! (a lone `{`, `}` or `]`, `\a` and other unknown escapes, octal escapes, a quantifier on an
//! assertion or on nothing, `{2,1}`, a range with a class escape or out of order).
//!
//! In a build without the `patterns` cargo feature there is no engine: [`Pattern::new`]
//! refuses every pattern naming the feature, so a descriptor with a `pattern` is refused at
//! registration rather than accepted and left unchecked.

#[cfg(feature = "patterns")]
use std::fmt::Write as _;

#[cfg(feature = "patterns")]
/// A checked pattern: its ECMA-262 source and the compiled equivalent.
#[derive(Clone, Debug)]
pub struct Pattern {
    source: String,
    regex: regex::Regex,
}

#[cfg(feature = "patterns")]
impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.source == other.source
    }
}

#[cfg(feature = "patterns")]
impl Pattern {
    /// Checks and compiles an ECMA-262 pattern; the error names the construct and its
    /// position (0-based, in characters).
    pub fn new(source: &str) -> Result<Pattern, String> {
        let chars: Vec<char> = source.chars().collect();
        if chars.len() > MAX_LEN {
            return Err(format!(
                "the pattern has {} characters, more than the {MAX_LEN} the core accepts",
                chars.len()
            ));
        }
        let mut t = Translator {
            chars: &chars,
            pos: 0,
            out: String::with_capacity(source.len() * 2 + 8),
            names: Vec::new(),
        };
        t.disjunction(0)?;
        if t.pos < chars.len() {
            // only a `)` stops a top-level disjunction
            return Err(format!(
                "an unmatched \")\" at position {} (write \\) for the character)",
                t.pos
            ));
        }
        let regex = regex::RegexBuilder::new(&t.out)
            .size_limit(1 << 22)
            .build()
            .map_err(|e| match e {
                regex::Error::CompiledTooBig(_) => {
                    "the pattern is too large for the core's regex engine (a repetition count is too big)".to_string()
                }
                other => format!("the core's regex engine refuses the pattern: {other}"),
            })?;
        Ok(Pattern {
            source: source.to_owned(),
            regex,
        })
    }

    /// The pattern as written (ECMA-262).
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether the pattern matches anywhere in `s`.
    pub fn is_match(&self, s: &str) -> bool {
        self.regex.is_match(s)
    }
}

#[cfg(feature = "patterns")]
const MAX_LEN: usize = 4096;
#[cfg(feature = "patterns")]
const MAX_NESTING: usize = 64;

#[cfg(feature = "patterns")]
/// ECMA-262 `\s`: WhiteSpace (TAB, VT, FF, SP, NBSP, ZWNBSP, category Zs) and
/// LineTerminator (LF, CR, LS, PS).
const SPACE_RANGES: &str = r"\x{9}-\x{D}\x{20}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";
#[cfg(feature = "patterns")]
const DIGIT_RANGES: &str = r"0-9";
#[cfg(feature = "patterns")]
const WORD_RANGES: &str = r"0-9A-Za-z_";

#[cfg(feature = "patterns")]
struct Translator<'a> {
    chars: &'a [char],
    pos: usize,
    out: String,
    names: Vec<String>,
}

#[cfg(feature = "patterns")]
/// One element of a class: a code point or a class escape (`\d` …) in Rust class syntax.
enum ClassAtom {
    Char(u32),
    Set(&'static str, bool),
}

#[cfg(feature = "patterns")]
fn push_char(out: &mut String, c: u32) {
    let _ = write!(out, "\\x{{{c:X}}}");
}

#[cfg(feature = "patterns")]
impl Translator<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.chars.get(self.pos + n).copied()
    }

    fn starts_with(&self, s: &str) -> bool {
        (self.pos..)
            .zip(s.chars())
            .all(|(i, c)| self.chars.get(i) == Some(&c))
    }

    fn disjunction(&mut self, depth: usize) -> Result<(), String> {
        loop {
            self.alternative(depth)?;
            match self.peek() {
                Some('|') => {
                    self.pos += 1;
                    self.out.push('|');
                }
                _ => return Ok(()),
            }
        }
    }

    fn alternative(&mut self, depth: usize) -> Result<(), String> {
        while let Some(c) = self.peek() {
            let at = self.pos;
            let quantifiable = match c {
                '|' | ')' => return Ok(()),
                '^' => {
                    self.pos += 1;
                    self.out.push('^');
                    false
                }
                '$' => {
                    self.pos += 1;
                    self.out.push('$');
                    false
                }
                '\\' if self.peek_at(1) == Some('b') => {
                    self.pos += 2;
                    self.out.push_str(r"(?-u:\b)");
                    false
                }
                '\\' if self.peek_at(1) == Some('B') => {
                    return Err(format!(
                        "\"\\B\" at position {at} is not supported: the core's regex engine would also find it between the bytes of one character (write the context out instead)"
                    ))
                }
                '(' => {
                    self.group(depth)?;
                    true
                }
                '[' => {
                    self.class()?;
                    true
                }
                '.' => {
                    self.pos += 1;
                    self.out.push_str(r"[^\n\r\x{2028}\x{2029}]");
                    true
                }
                '\\' => {
                    self.atom_escape()?;
                    true
                }
                '*' | '+' | '?' => {
                    return Err(format!(
                        "the quantifier \"{c}\" at position {at} repeats nothing (write \\{c} for the character)"
                    ))
                }
                '{' => {
                    return Err(format!(
                        "a lone \"{{\" at position {at} (a quantifier must follow something; write \\{{ for the character)"
                    ))
                }
                '}' | ']' => {
                    return Err(format!(
                        "a lone \"{c}\" at position {at} (write \\{c} for the character)"
                    ))
                }
                other => {
                    self.pos += 1;
                    push_char(&mut self.out, other as u32);
                    true
                }
            };
            self.quantifier(quantifiable, at)?;
        }
        Ok(())
    }

    /// An optional quantifier after the term that started at `term_at`.
    fn quantifier(&mut self, quantifiable: bool, term_at: usize) -> Result<(), String> {
        let at = self.pos;
        let text = match self.peek() {
            Some(c @ ('*' | '+' | '?')) => {
                self.pos += 1;
                c.to_string()
            }
            Some('{') => {
                let (min, max) = self.braces().ok_or_else(|| {
                    format!(
                        "a lone \"{{\" at position {at} (a quantifier is {{n}}, {{n,}} or {{n,m}}; write \\{{ for the character)"
                    )
                })?;
                match max {
                    Some(Some(m)) if m < min => {
                        return Err(format!(
                            "the quantifier at position {at} has its numbers out of order ({{{min},{m}}})"
                        ))
                    }
                    Some(Some(m)) => format!("{{{min},{m}}}"),
                    Some(None) => format!("{{{min},}}"),
                    None => format!("{{{min}}}"),
                }
            }
            _ => return Ok(()),
        };
        if !quantifiable {
            return Err(format!(
                "the quantifier at position {at} follows an assertion (position {term_at}), which cannot be repeated"
            ));
        }
        self.out.push_str(&text);
        if self.peek() == Some('?') {
            self.pos += 1;
            self.out.push('?');
        }
        if matches!(self.peek(), Some('*' | '+' | '?' | '{')) && self.braces_or_symbol() {
            return Err(format!(
                "a second quantifier at position {} (a quantifier cannot repeat a quantifier)",
                self.pos
            ));
        }
        Ok(())
    }

    fn braces_or_symbol(&self) -> bool {
        match self.peek() {
            Some('{') => {
                let mut probe = Translator {
                    chars: self.chars,
                    pos: self.pos,
                    out: String::new(),
                    names: Vec::new(),
                };
                probe.braces().is_some()
            }
            _ => true,
        }
    }

    /// `{n}`, `{n,}` or `{n,m}` at the current position: (n, None | Some(None) | Some(Some(m))).
    #[allow(clippy::type_complexity)]
    fn braces(&mut self) -> Option<(u32, Option<Option<u32>>)> {
        let start = self.pos;
        let mut i = self.pos + 1;
        let number = |i: &mut usize| -> Option<u32> {
            let s = *i;
            let mut v: u64 = 0;
            while let Some(d) = self.chars.get(*i).and_then(|c| c.to_digit(10)) {
                v = (v * 10 + u64::from(d)).min(u64::from(u32::MAX));
                *i += 1;
            }
            (*i > s).then_some(v as u32)
        };
        let min = number(&mut i)?;
        let max = match self.chars.get(i) {
            Some('}') => None,
            Some(',') => {
                i += 1;
                if self.chars.get(i) == Some(&'}') {
                    Some(None)
                } else {
                    let m = number(&mut i)?;
                    if self.chars.get(i) != Some(&'}') {
                        return None;
                    }
                    Some(Some(m))
                }
            }
            _ => return None,
        };
        debug_assert!(i > start);
        self.pos = i + 1;
        Some((min, max))
    }

    fn group(&mut self, depth: usize) -> Result<(), String> {
        let at = self.pos;
        if depth >= MAX_NESTING {
            return Err(format!(
                "groups nest deeper than {MAX_NESTING} levels at position {at}"
            ));
        }
        for (open, what) in [
            ("(?<=", "lookbehind"),
            ("(?<!", "negative lookbehind"),
            ("(?=", "lookahead"),
            ("(?!", "negative lookahead"),
        ] {
            if self.starts_with(open) {
                return Err(format!(
                    "{what} \"{open}\" at position {at} is not supported: the core's regex engine has no lookaround, so it could not enforce what the pattern says"
                ));
            }
        }
        if self.starts_with("(?:") {
            self.pos += 3;
        } else if self.starts_with("(?<") {
            self.pos += 3;
            let start = self.pos;
            while let Some(c) = self.peek() {
                if c == '>' {
                    break;
                }
                let ok = if self.pos == start {
                    c.is_alphabetic() || c == '_' || c == '$'
                } else {
                    c.is_alphanumeric() || c == '_' || c == '$'
                };
                if !ok {
                    return Err(format!(
                        "the group name at position {start} is not an identifier"
                    ));
                }
                self.pos += 1;
            }
            if self.peek() != Some('>') || self.pos == start {
                return Err(format!(
                    "the group name at position {start} is not closed by \">\""
                ));
            }
            let name: String = self.chars[start..self.pos].iter().collect();
            if self.names.contains(&name) {
                return Err(format!(
                    "the group name \"{name}\" at position {start} is used twice"
                ));
            }
            self.names.push(name);
            self.pos += 1;
        } else if self.starts_with("(?") {
            return Err(format!(
                "\"(?\" at position {at} is not supported: inline modifiers such as (?i:...) are not part of JSON Schema's dialect"
            ));
        } else {
            self.pos += 1;
        }
        self.out.push_str("(?:");
        self.disjunction(depth + 1)?;
        if self.peek() != Some(')') {
            return Err(format!("the group opened at position {at} is not closed"));
        }
        self.pos += 1;
        self.out.push(')');
        Ok(())
    }

    /// An escape outside a class (after `\`, `\b` and `\B` excluded).
    fn atom_escape(&mut self) -> Result<(), String> {
        match self.class_or_char_escape(false)? {
            ClassAtom::Char(c) => push_char(&mut self.out, c),
            ClassAtom::Set(ranges, negated) => {
                self.out.push('[');
                if negated {
                    self.out.push('^');
                }
                self.out.push_str(ranges);
                self.out.push(']');
            }
        }
        Ok(())
    }

    /// `\` and what follows, as a code point or a class escape. `in_class` allows `\b`
    /// (backspace) and `\-`.
    fn class_or_char_escape(&mut self, in_class: bool) -> Result<ClassAtom, String> {
        let at = self.pos;
        self.pos += 1; // the backslash
        let Some(c) = self.peek() else {
            return Err(format!(
                "the pattern ends with a lone \"\\\" at position {at}"
            ));
        };
        self.pos += 1;
        let set = |r: &'static str, n: bool| Ok(ClassAtom::Set(r, n));
        match c {
            'd' => set(DIGIT_RANGES, false),
            'D' => set(DIGIT_RANGES, true),
            'w' => set(WORD_RANGES, false),
            'W' => set(WORD_RANGES, true),
            's' => set(SPACE_RANGES, false),
            'S' => set(SPACE_RANGES, true),
            'p' | 'P' => Err(format!(
                "the Unicode property escape \"\\{c}\" at position {at} is not supported (the engines' Unicode tables and property names differ); write the characters or ranges out"
            )),
            '1'..='9' => Err(format!(
                "the backreference \"\\{c}\" at position {at} is not supported: the core's regex engine has no backreferences"
            )),
            'k' => Err(format!(
                "the named backreference \"\\k\" at position {at} is not supported: the core's regex engine has no backreferences"
            )),
            '0' => {
                if self.peek().is_some_and(|d| d.is_ascii_digit()) {
                    Err(format!(
                        "the octal escape at position {at} is not ECMA-262 with the u flag (write \\x or \\u escapes)"
                    ))
                } else {
                    Ok(ClassAtom::Char(0))
                }
            }
            't' => Ok(ClassAtom::Char(9)),
            'n' => Ok(ClassAtom::Char(10)),
            'v' => Ok(ClassAtom::Char(11)),
            'f' => Ok(ClassAtom::Char(12)),
            'r' => Ok(ClassAtom::Char(13)),
            'b' if in_class => Ok(ClassAtom::Char(8)),
            '-' if in_class => Ok(ClassAtom::Char('-' as u32)),
            'c' => match self.peek() {
                Some(l) if l.is_ascii_alphabetic() => {
                    self.pos += 1;
                    Ok(ClassAtom::Char(l as u32 % 32))
                }
                _ => Err(format!(
                    "\"\\c\" at position {at} must be followed by a letter A-Z or a-z"
                )),
            },
            'x' => {
                let v = self.hex(2).ok_or_else(|| {
                    format!("\"\\x\" at position {at} needs two hexadecimal digits")
                })?;
                Ok(ClassAtom::Char(v))
            }
            'u' => self.unicode_escape(at).map(ClassAtom::Char),
            '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|'
            | '/' => Ok(ClassAtom::Char(c as u32)),
            other => Err(format!(
                "\"\\{other}\" at position {at} is not an ECMA-262 escape (with the u flag only syntax characters and / may be escaped)"
            )),
        }
    }

    fn hex(&mut self, n: usize) -> Option<u32> {
        let mut v = 0u32;
        for i in 0..n {
            v = v * 16 + self.peek_at(i)?.to_digit(16)?;
        }
        self.pos += n;
        Some(v)
    }

    /// After `\u`: `HHHH` (a surrogate pair of two escapes joins into one code point) or
    /// `{H…}`.
    fn unicode_escape(&mut self, at: usize) -> Result<u32, String> {
        let bad = || format!("\"\\u\" at position {at} needs four hexadecimal digits or {{...}}");
        let v = if self.peek() == Some('{') {
            self.pos += 1;
            let mut v: u32 = 0;
            let start = self.pos;
            while let Some(d) = self.peek().and_then(|c| c.to_digit(16)) {
                v = v.saturating_mul(16).saturating_add(d);
                self.pos += 1;
            }
            if self.pos == start || self.peek() != Some('}') || v > 0x10FFFF {
                return Err(format!(
                    "\"\\u{{...}}\" at position {at} must hold a code point up to 10FFFF"
                ));
            }
            self.pos += 1;
            v
        } else {
            self.hex(4).ok_or_else(bad)?
        };
        if (0xD800..0xDC00).contains(&v) && self.starts_with("\\u") {
            let save = self.pos;
            self.pos += 2;
            match self.hex(4) {
                Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                    return Ok(0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00));
                }
                _ => self.pos = save,
            }
        }
        if (0xD800..0xE000).contains(&v) {
            return Err(format!(
                "the lone surrogate \\u{v:X} at position {at} can never match text (write the whole code point, e.g. \\u{{1F600}})"
            ));
        }
        Ok(v)
    }

    fn class_atom(&mut self) -> Result<ClassAtom, String> {
        match self.peek() {
            Some('\\') => self.class_or_char_escape(true),
            Some(c) => {
                self.pos += 1;
                Ok(ClassAtom::Char(c as u32))
            }
            None => Err("the class is not closed by \"]\"".into()),
        }
    }

    fn class(&mut self) -> Result<(), String> {
        let at = self.pos;
        self.pos += 1;
        let negated = self.peek() == Some('^');
        if negated {
            self.pos += 1;
        }
        let mut items = String::new();
        loop {
            match self.peek() {
                None => {
                    return Err(format!(
                        "the class opened at position {at} is not closed by \"]\""
                    ))
                }
                Some(']') => {
                    self.pos += 1;
                    break;
                }
                Some(_) => {}
            }
            let first_at = self.pos;
            let first = self.class_atom()?;
            let is_range = self.peek() == Some('-') && self.peek_at(1).is_some_and(|c| c != ']');
            if !is_range {
                push_class_atom(&mut items, &first);
                continue;
            }
            self.pos += 1; // '-'
            let second = self.class_atom()?;
            match (first, second) {
                (ClassAtom::Char(lo), ClassAtom::Char(hi)) => {
                    if lo > hi {
                        return Err(format!(
                            "the class range at position {first_at} is out of order"
                        ));
                    }
                    push_char(&mut items, lo);
                    items.push('-');
                    push_char(&mut items, hi);
                }
                _ => {
                    return Err(format!(
                        "the class range at position {first_at} has a class escape (\\d, \\w, \\s ...) at one end"
                    ))
                }
            }
        }
        match (items.is_empty(), negated) {
            (true, false) => self.out.push_str(r"[^\x{0}-\x{10FFFF}]"),
            (true, true) => self.out.push_str(r"[\x{0}-\x{10FFFF}]"),
            (false, _) => {
                self.out.push('[');
                if negated {
                    self.out.push('^');
                }
                self.out.push_str(&items);
                self.out.push(']');
            }
        }
        Ok(())
    }
}

#[cfg(feature = "patterns")]
fn push_class_atom(items: &mut String, a: &ClassAtom) {
    match a {
        ClassAtom::Char(c) => push_char(items, *c),
        ClassAtom::Set(r, false) => items.push_str(r),
        ClassAtom::Set(r, true) => {
            items.push_str("[^");
            items.push_str(r);
            items.push(']');
        }
    }
}

#[cfg(all(test, feature = "patterns"))]
mod tests {
    use super::*;

    fn m(p: &str, s: &str) -> bool {
        Pattern::new(p)
            .unwrap_or_else(|e| panic!("{p}: {e}"))
            .is_match(s)
    }

    fn refused(p: &str) -> String {
        Pattern::new(p).map(|_| ()).unwrap_err()
    }

    #[test]
    fn ecma_meanings_are_kept() {
        // \d and \w are ASCII; \s is ECMA's white space
        assert!(m(r"^\d+$", "123"));
        assert!(!m(r"^\d+$", "١٢٣"));
        assert!(!m(r"^\w+$", "é"));
        assert!(m(r"^\s$", "\u{feff}"));
        assert!(!m(r"^\s$", "\u{85}"));
        assert!(m(r"^\S$", "\u{85}"));
        // . is one code point, but not a line terminator
        assert!(m("^.$", "😀"));
        assert!(!m("^.$", "\r"));
        assert!(!m("^.$", "\u{2028}"));
        // search, not a full match; ^ and $ only at the ends
        assert!(m("b", "abc"));
        assert!(!m("^b", "abc"));
        assert!(!m("a$", "a\n"));
        // \b is an ASCII word boundary
        assert!(m(r"\bfoo\b", "éfooé"));
        assert!(m(r"\b", "x😀y"));
        assert!(!m(r"😀\b", "😀 "));
        // classes: literal [ and & inside, backspace, empty classes, ranges
        assert!(m(r"^[[&&]+$", "[&"));
        assert!(m(r"^[\b]$", "\u{8}"));
        assert!(!m("[]", "a"));
        assert!(m("^[^]$", "\n"));
        assert!(m(r"^[a-c\d-]+$", "ab1-"));
        assert!(m(r"^[^\D]$", "7"));
        assert!(m(r"^[\u{1F600}-\u{1F64F}]$", "😃"));
        assert!(m(r"^\uD83D\uDE00$", "😀"));
        // escapes, groups, quantifiers
        assert!(m(r"^\x41\u0042\cJ\/$", "AB\n/"));
        assert!(m(r"^(?:ab){2,3}?(?<tail>c|d)$", "ababd"));
        assert!(m(r"^a{2}$", "aa"));
        assert!(m(r"^\{\}\]$", "{}]"));
    }

    #[test]
    fn constructs_regex_cannot_honour_are_refused_by_name() {
        for (p, says) in [
            ("a(?=b)", "lookahead \"(?=\" at position 1"),
            ("(?!a)", "negative lookahead"),
            ("(?<=a)b", "lookbehind"),
            ("(?<!a)b", "negative lookbehind"),
            (r"(a)\1", "backreference \"\\1\" at position 3"),
            (r"(?<n>a)\k<n>", "named backreference"),
            (r"\p{L}", "Unicode property escape \"\\p\""),
            (r"\P{Lu}", "Unicode property escape \"\\P\""),
            ("(?i:a)", "inline modifiers"),
            (r"\uD800", "lone surrogate"),
            ("a{", "lone \"{\""),
            ("a}", "lone \"}\""),
            ("]", "lone \"]\""),
            ("*a", "repeats nothing"),
            ("^*", "follows an assertion"),
            ("a{2,1}", "out of order"),
            ("a**", "second quantifier"),
            (r"\a", "\"\\a\" at position 0 is not an ECMA-262 escape"),
            (r"\01", "octal"),
            (r"[\d-z]", "class escape"),
            ("[z-a]", "out of order"),
            ("(a", "not closed"),
            ("a)", "unmatched \")\""),
            ("[a", "not closed"),
            ("a\\", "lone \"\\\""),
            ("a{1000000}", "too large"),
            (r"a\B", "\"\\B\" at position 1 is not supported"),
            (
                "(?<n>a)|(?<n>b)",
                "the group name \"n\" at position 11 is used twice",
            ),
        ] {
            let e = refused(p);
            assert!(e.contains(says), "{p}: {e}");
        }
    }
}

/// A build without the `patterns` feature: no regex engine, so a `pattern` is refused at
/// registration (never accepted and left unchecked). No `Pattern` can exist.
#[cfg(not(feature = "patterns"))]
#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {}

#[cfg(not(feature = "patterns"))]
impl Pattern {
    /// Refuses every pattern, naming the cargo feature that checks them.
    pub fn new(_source: &str) -> Result<Pattern, String> {
        Err(crate::model::error::left_out(
            "the `pattern` constraint (a regular expression checked at each call)",
            "patterns",
        ))
    }

    /// Unreachable: no `Pattern` exists in this build.
    pub fn source(&self) -> &str {
        match *self {}
    }

    /// Unreachable: no `Pattern` exists in this build.
    pub fn is_match(&self, _s: &str) -> bool {
        match *self {}
    }
}

#[cfg(all(test, not(feature = "patterns")))]
mod tests_without_patterns {
    use super::*;

    #[test]
    fn every_pattern_is_refused_naming_the_feature() {
        for p in ["^[a-z]+$", "", "(?=a)"] {
            let e = Pattern::new(p).unwrap_err();
            assert!(e.contains("cargo feature `patterns`"), "{e}");
        }
    }
}
