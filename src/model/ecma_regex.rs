//! `pattern` constraints: ECMA-262 regular expressions (JSON Schema's dialect), parsed and
//! matched here, so that the core enforces exactly what the schema states.
//!
//! The dialect is ECMA-262 with the `u` flag (code points, as the JSON Schema test suite
//! requires) and no other flag; a pattern matches when it matches anywhere in the string
//! (`RegExp.prototype.test`). Every construct is parsed into a tree whose classes are
//! sorted code-point ranges, compiled into a small program (a Thompson NFA: a class to
//! consume, a split, a jump, an assertion, the match) and run as a Pike VM: every thread
//! moves in step over the text's code points, each instruction at most once per position,
//! so a call's time is linear in its argument (times the program's length at most) however
//! the pattern is written: an argument cannot make it backtrack catastrophically.
//!
//! | ECMA-262 | meaning |
//! |---|---|
//! | literals, `\t \n \v \f \r \0 \cX \xHH \uHHHH \u{H…}`, surrogate pairs | one code point |
//! | `\^ \$ \\ \. \* \+ \? \( \) \[ \] \{ \} \| \/` | the character |
//! | `.` | any code point but `\n \r U+2028 U+2029` |
//! | `\d \D \w \W` | ASCII only: `[0-9]`, `[A-Za-z0-9_]` |
//! | `\s \S` | ECMA's WhiteSpace and LineTerminator (U+FEFF included, U+0085 not) |
//! | `[…] [^…]`, ranges, `\b` (backspace) inside a class, `[]`, `[^]` | as ECMA |
//! | `^ $` | start and end of the string (no `m` flag) |
//! | `\b` | an ASCII word boundary between code points |
//! | `( )`, `(?: )`, `(?<name> )` | grouping (captures do not matter for a test) |
//! | `* + ? {n} {n,} {n,m}`, lazy `?` | repetition (greedy or lazy, the same for a test) |
//! | `\|` | alternation |
//!
//! Refused at registration, naming the construct and where it is: lookahead and lookbehind
//! (`(?=` `(?!` `(?<=` `(?<!`), backreferences (`\1`, `\k<name>`: no linear-time matcher
//! has them), `\B` (node's V8 also finds it inside a surrogate pair, `\B` in "x😀y", so
//! JavaScript validators would disagree with ECMA-262 and the core), group names used twice, Unicode property escapes (`\p{…}` `\P{…}`: the core
//! has no Unicode tables), inline modifiers (`(?i:…)`), lone surrogates, everything the `u`
//! flag makes a syntax error (a lone `{`, `}` or `]`, `\a` and other unknown escapes, octal
//! escapes, a quantifier on an assertion or on nothing, `{2,1}`, a range with a class escape
//! or out of order), and a program of more than 65,536 steps (a repetition count expands
//! into copies of what it repeats: `a{1000000}`), naming the repetition.
//!
//! In a build without the `patterns` cargo feature there is no matcher: [`Pattern::new`]
//! refuses every pattern naming the feature, so a descriptor with a `pattern` is refused at
//! registration rather than accepted and left unchecked.

#[cfg(feature = "patterns")]
pub use on::Pattern;

/// The parser, the program and the matcher (the `patterns` feature).
#[cfg(feature = "patterns")]
mod on {
    /// A checked pattern: its ECMA-262 source and the program that matches it.
    #[derive(Clone, Debug)]
    pub struct Pattern {
        source: String,
        program: Program,
    }

    impl PartialEq for Pattern {
        fn eq(&self, other: &Pattern) -> bool {
            self.source == other.source
        }
    }

    impl Pattern {
        /// Checks and compiles an ECMA-262 pattern; the error names the construct and its
        /// position (0-based, in characters).
        pub fn new(source: &str) -> Result<Pattern, String> {
            let node = parse(source)?;
            let program = Program::compile(&node)?;
            Ok(Pattern {
                source: source.to_owned(),
                program,
            })
        }

        /// The pattern as written (ECMA-262).
        pub fn source(&self) -> &str {
            &self.source
        }

        /// Whether the pattern matches anywhere in `s`, in time linear in `s` (times the
        /// program's length at most).
        pub fn is_match(&self, s: &str) -> bool {
            self.program.is_match(s)
        }

        /// The backtracker's and the Pike VM's verdicts, for the tests.
        #[cfg(test)]
        pub(super) fn engines(&self, s: &str) -> (bool, bool) {
            self.program.engines(s)
        }
    }

    pub(super) const MAX_LEN: usize = 4096;
    const MAX_NESTING: usize = 64;
    /// The most instructions a program may have (a repetition count is expanded into copies
    /// of what it repeats): the memory of a match and the work per character are bounded by
    /// it.
    pub(super) const MAX_PROGRAM: usize = 1 << 16;

    /// Code-point ranges, inclusive, sorted.
    type Ranges = &'static [(u32, u32)];
    /// ECMA-262 `\s`: WhiteSpace (TAB, VT, FF, SP, NBSP, ZWNBSP, category Zs) and
    /// LineTerminator (LF, CR, LS, PS).
    const SPACE: Ranges = &[
        (0x9, 0xD),
        (0x20, 0x20),
        (0xA0, 0xA0),
        (0x1680, 0x1680),
        (0x2000, 0x200A),
        (0x2028, 0x2029),
        (0x202F, 0x202F),
        (0x205F, 0x205F),
        (0x3000, 0x3000),
        (0xFEFF, 0xFEFF),
    ];
    const DIGIT: Ranges = &[(0x30, 0x39)];
    const WORD: Ranges = &[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)];
    /// What `.` does not match: the line terminators.
    const LINE_TERMINATORS: Ranges = &[(0xA, 0xA), (0xD, 0xD), (0x2028, 0x2029)];
    const MAX_CHAR: u32 = 0x10FFFF;

    /// A parsed pattern.
    #[derive(Debug)]
    pub(super) enum Node {
        /// One code point of these ranges (sorted, disjoint, not adjacent); none: never.
        Class(Vec<(u32, u32)>),
        /// `^`
        Start,
        /// `$`
        End,
        /// `\b`: an ASCII word boundary between code points.
        Boundary,
        Concat(Vec<Node>),
        Alternation(Vec<Node>),
        /// `min` to `max` (None: unbounded) times; `greedy` does not change whether a pattern
        /// matches somewhere, only which match a search would report.
        Repeat {
            node: Box<Node>,
            min: u32,
            max: Option<u32>,
            #[cfg_attr(not(test), allow(dead_code))]
            greedy: bool,
            /// where the quantifier is, for the error of a program too large
            at: usize,
        },
    }

    /// Sorts and merges ranges; `negated` takes the complement among all code points.
    fn normalize(mut r: Vec<(u32, u32)>, negated: bool) -> Vec<(u32, u32)> {
        r.sort_unstable();
        let mut out: Vec<(u32, u32)> = Vec::with_capacity(r.len());
        for (lo, hi) in r {
            match out.last_mut() {
                Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
                _ => out.push((lo, hi)),
            }
        }
        if !negated {
            return out;
        }
        let mut inverse = Vec::with_capacity(out.len() + 1);
        let mut next = 0u32;
        for (lo, hi) in out {
            if lo > next {
                inverse.push((next, lo - 1));
            }
            next = hi + 1;
        }
        if next <= MAX_CHAR {
            inverse.push((next, MAX_CHAR));
        }
        inverse
    }

    pub(super) fn parse(source: &str) -> Result<Node, String> {
        let chars: Vec<char> = source.chars().collect();
        if chars.len() > MAX_LEN {
            return Err(format!(
                "the pattern has {} characters, more than the {MAX_LEN} the core accepts",
                chars.len()
            ));
        }
        let mut p = Parser {
            chars: &chars,
            pos: 0,
            names: Vec::new(),
        };
        let node = p.disjunction(0)?;
        if p.pos < chars.len() {
            // only a `)` stops a top-level disjunction
            return Err(format!(
                "an unmatched \")\" at position {} (write \\) for the character)",
                p.pos
            ));
        }
        Ok(node)
    }

    struct Parser<'a> {
        chars: &'a [char],
        pos: usize,
        names: Vec<String>,
    }

    /// One element of a class: a code point or a class escape (`\d` …).
    enum ClassAtom {
        Char(u32),
        Set(Ranges, bool),
    }

    impl ClassAtom {
        fn push_to(&self, items: &mut Vec<(u32, u32)>) {
            match *self {
                ClassAtom::Char(c) => items.push((c, c)),
                ClassAtom::Set(r, false) => items.extend_from_slice(r),
                ClassAtom::Set(r, true) => items.extend(normalize(r.to_vec(), true)),
            }
        }
    }

    impl Parser<'_> {
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

        fn disjunction(&mut self, depth: usize) -> Result<Node, String> {
            let mut alternatives = Vec::new();
            loop {
                alternatives.push(self.alternative(depth)?);
                match self.peek() {
                    Some('|') => self.pos += 1,
                    _ => break,
                }
            }
            Ok(if alternatives.len() == 1 {
                alternatives.pop().expect("one alternative")
            } else {
                Node::Alternation(alternatives)
            })
        }

        fn alternative(&mut self, depth: usize) -> Result<Node, String> {
            let mut terms = Vec::new();
            while let Some(c) = self.peek() {
                let at = self.pos;
                let (term, quantifiable) = match c {
                    '|' | ')' => break,
                    '^' => {
                        self.pos += 1;
                        (Node::Start, false)
                    }
                    '$' => {
                        self.pos += 1;
                        (Node::End, false)
                    }
                    '\\' if self.peek_at(1) == Some('b') => {
                        self.pos += 2;
                        (Node::Boundary, false)
                    }
                    '\\' if self.peek_at(1) == Some('B') => {
                        return Err(format!(
                            "\"\\B\" at position {at} is not supported: node's ECMA-262 engine (V8) also finds it inside a surrogate pair, so JavaScript validators would not agree with the core (write the context out instead)"
                        ))
                    }
                    '(' => (self.group(depth)?, true),
                    '[' => (self.class()?, true),
                    '.' => {
                        self.pos += 1;
                        (Node::Class(normalize(LINE_TERMINATORS.to_vec(), true)), true)
                    }
                    '\\' => {
                        let mut items = Vec::new();
                        self.class_or_char_escape(false)?.push_to(&mut items);
                        (Node::Class(normalize(items, false)), true)
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
                        (Node::Class(vec![(other as u32, other as u32)]), true)
                    }
                };
                terms.push(self.quantifier(term, quantifiable, at)?);
            }
            Ok(if terms.len() == 1 {
                terms.pop().expect("one term")
            } else {
                Node::Concat(terms)
            })
        }

        /// An optional quantifier after `term`, which started at `term_at`.
        fn quantifier(
            &mut self,
            term: Node,
            quantifiable: bool,
            term_at: usize,
        ) -> Result<Node, String> {
            let at = self.pos;
            let (min, max) = match self.peek() {
                Some('*') => (0, None),
                Some('+') => (1, None),
                Some('?') => (0, Some(1)),
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
                        Some(m) => (min, m),
                        None => (min, Some(min)),
                    }
                }
                _ => return Ok(term),
            };
            if self.pos == at {
                self.pos += 1; // `*`, `+` or `?`
            }
            if !quantifiable {
                return Err(format!(
                    "the quantifier at position {at} follows an assertion (position {term_at}), which cannot be repeated"
                ));
            }
            let greedy = self.peek() != Some('?');
            if !greedy {
                self.pos += 1;
            }
            if matches!(self.peek(), Some('*' | '+' | '?' | '{')) && self.braces_or_symbol() {
                return Err(format!(
                    "a second quantifier at position {} (a quantifier cannot repeat a quantifier)",
                    self.pos
                ));
            }
            Ok(Node::Repeat {
                node: Box::new(term),
                min,
                max,
                greedy,
                at,
            })
        }

        fn braces_or_symbol(&self) -> bool {
            match self.peek() {
                Some('{') => {
                    let mut probe = Parser {
                        chars: self.chars,
                        pos: self.pos,
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
            self.pos = i + 1;
            Some((min, max))
        }

        fn group(&mut self, depth: usize) -> Result<Node, String> {
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
                        "{what} \"{open}\" at position {at} is not supported: the core's matcher has no lookaround, so it could not enforce what the pattern says"
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
            let node = self.disjunction(depth + 1)?;
            if self.peek() != Some(')') {
                return Err(format!("the group opened at position {at} is not closed"));
            }
            self.pos += 1;
            Ok(node)
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
            let set = |r: Ranges, n: bool| Ok(ClassAtom::Set(r, n));
            match c {
                'd' => set(DIGIT, false),
                'D' => set(DIGIT, true),
                'w' => set(WORD, false),
                'W' => set(WORD, true),
                's' => set(SPACE, false),
                'S' => set(SPACE, true),
                'p' | 'P' => Err(format!(
                    "the Unicode property escape \"\\{c}\" at position {at} is not supported (the core has no Unicode property tables); write the characters or ranges out"
                )),
                '1'..='9' => Err(format!(
                    "the backreference \"\\{c}\" at position {at} is not supported: the core's matcher has no backreferences"
                )),
                'k' => Err(format!(
                    "the named backreference \"\\k\" at position {at} is not supported: the core's matcher has no backreferences"
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
                '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}'
                | '|' | '/' => Ok(ClassAtom::Char(c as u32)),
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
            let bad =
                || format!("\"\\u\" at position {at} needs four hexadecimal digits or {{...}}");
            let v = if self.peek() == Some('{') {
                self.pos += 1;
                let mut v: u32 = 0;
                let start = self.pos;
                while let Some(d) = self.peek().and_then(|c| c.to_digit(16)) {
                    v = v.saturating_mul(16).saturating_add(d);
                    self.pos += 1;
                }
                if self.pos == start || self.peek() != Some('}') || v > MAX_CHAR {
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

        fn class(&mut self) -> Result<Node, String> {
            let at = self.pos;
            self.pos += 1;
            let negated = self.peek() == Some('^');
            if negated {
                self.pos += 1;
            }
            let mut items = Vec::new();
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
                let is_range =
                    self.peek() == Some('-') && self.peek_at(1).is_some_and(|c| c != ']');
                if !is_range {
                    first.push_to(&mut items);
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
                        items.push((lo, hi));
                    }
                    _ => {
                        return Err(format!(
                            "the class range at position {first_at} has a class escape (\\d, \\w, \\s ...) at one end"
                        ))
                    }
                }
            }
            Ok(Node::Class(normalize(items, negated)))
        }
    }

    /// One step of a program.
    #[derive(Clone, Copy, Debug)]
    enum Inst {
        /// Consumes a code point in `ranges[from..to]`.
        Class {
            from: u32,
            to: u32,
        },
        /// Goes on at both.
        Split(u32, u32),
        Jump(u32),
        Start,
        End,
        /// `\b`
        Boundary,
        Match,
    }

    /// A compiled pattern: a Thompson NFA run as a Pike VM (every thread in step, each
    /// instruction at most once per position), so a match takes time linear in the text
    /// whatever the pattern, and no backtracking an argument could make catastrophic.
    #[derive(Clone, Debug)]
    struct Program {
        insts: Vec<Inst>,
        ranges: Vec<(u32, u32)>,
        /// the pattern begins with `^` (every match starts at 0)
        anchored: bool,
    }

    impl Program {
        fn compile(node: &Node) -> Result<Program, String> {
            let mut p = Program {
                insts: Vec::new(),
                ranges: Vec::new(),
                anchored: match node {
                    Node::Start => true,
                    Node::Concat(terms) => matches!(terms.first(), Some(Node::Start)),
                    _ => false,
                },
            };
            let too_large = |e: String| {
                if e.is_empty() {
                    format!("the pattern is too large for the core's matcher (more than {MAX_PROGRAM} steps)")
                } else {
                    e
                }
            };
            p.emit(node).map_err(too_large)?;
            p.push(Inst::Match).map_err(too_large)?;
            p.insts.shrink_to_fit();
            p.ranges.shrink_to_fit();
            Ok(p)
        }

        fn push(&mut self, i: Inst) -> Result<u32, String> {
            if self.insts.len() >= MAX_PROGRAM {
                return Err(String::new()); // named by the repetition that made it
            }
            self.insts.push(i);
            Ok(self.insts.len() as u32 - 1)
        }

        fn next(&self) -> u32 {
            self.insts.len() as u32
        }

        fn patch(&mut self, at: u32, to: u32) {
            match &mut self.insts[at as usize] {
                Inst::Split(_, b) => *b = to,
                Inst::Jump(t) => *t = to,
                _ => unreachable!("only splits and jumps are patched"),
            }
        }

        fn emit(&mut self, node: &Node) -> Result<(), String> {
            match node {
                Node::Class(r) => {
                    let from = self.ranges.len() as u32;
                    self.ranges.extend_from_slice(r);
                    let to = self.ranges.len() as u32;
                    self.push(Inst::Class { from, to })?;
                }
                Node::Start => {
                    self.push(Inst::Start)?;
                }
                Node::End => {
                    self.push(Inst::End)?;
                }
                Node::Boundary => {
                    self.push(Inst::Boundary)?;
                }
                Node::Concat(terms) => {
                    for t in terms {
                        self.emit(t)?;
                    }
                }
                Node::Alternation(alternatives) => {
                    // split(a, next split) ... each alternative jumps to the end
                    let mut jumps = Vec::new();
                    for (i, a) in alternatives.iter().enumerate() {
                        let last = i + 1 == alternatives.len();
                        let split = if last {
                            None
                        } else {
                            let here = self.next();
                            Some(self.push(Inst::Split(here + 1, 0))?)
                        };
                        self.emit(a)?;
                        if let Some(split) = split {
                            jumps.push(self.push(Inst::Jump(0))?);
                            let next = self.next();
                            self.patch(split, next);
                        }
                    }
                    let end = self.next();
                    for j in jumps {
                        self.patch(j, end);
                    }
                }
                Node::Repeat {
                    node, min, max, at, ..
                } => self.repeat(node, *min, *max).map_err(|_| {
                    // the only error of a compilation: named by the outermost repetition
                    format!(
                        "the pattern is too large for the core's matcher: the repetition at position {at} makes it more than {MAX_PROGRAM} steps (a repetition count is too big)"
                    )
                })?,
            }
            Ok(())
        }

        fn repeat(&mut self, node: &Node, min: u32, max: Option<u32>) -> Result<(), String> {
            for _ in 0..min {
                self.emit(node)?;
            }
            match max {
                None => {
                    // loop: split(body, out); body; jump loop
                    let split = self.push(Inst::Split(0, 0))?;
                    self.emit_body(split, node)?;
                    self.push(Inst::Jump(split))?;
                    let out = self.next();
                    self.patch(split, out);
                }
                Some(max) => {
                    // (body (body ...)?)? : each optional copy may skip to the end
                    let mut splits = Vec::new();
                    for _ in min..max {
                        let split = self.push(Inst::Split(0, 0))?;
                        self.emit_body(split, node)?;
                        splits.push(split);
                    }
                    let out = self.next();
                    for s in splits {
                        self.patch(s, out);
                    }
                }
            }
            Ok(())
        }

        /// The body of an optional copy right after its split, whose first branch it is.
        fn emit_body(&mut self, split: u32, node: &Node) -> Result<(), String> {
            let body = self.next();
            if let Inst::Split(a, _) = &mut self.insts[split as usize] {
                *a = body;
            }
            self.emit(node)
        }

        fn is_match(&self, text: &str) -> bool {
            let states = self.insts.len() * (text.len() + 1);
            if states <= INLINE_STATES {
                self.backtrack(text, &mut [0u64; INLINE_STATES / 64])
            } else if states <= MAX_BACKTRACK_STATES {
                self.backtrack(text, &mut vec![0u64; states.div_ceil(64)])
            } else {
                self.pike(text)
            }
        }

        /// A depth-first search over (instruction, byte position) that visits each pair at
        /// most once (`visited`, a bit each): linear in the text like the Pike VM, and
        /// faster on the short texts arguments are.
        fn backtrack(&self, text: &str, visited: &mut [u64]) -> bool {
            let bytes = text.as_bytes();
            let width = bytes.len() + 1;
            let mut stack = Stack::default();
            let last_start = if self.anchored { 0 } else { bytes.len() };
            for start in 0..=last_start {
                if !text.is_char_boundary(start) {
                    continue;
                }
                stack.push((0, start));
                while let Some((mut pc, mut pos)) = stack.pop() {
                    loop {
                        let bit = pc as usize * width + pos;
                        let (word, mask) = (bit / 64, 1u64 << (bit % 64));
                        if visited[word] & mask != 0 {
                            break;
                        }
                        visited[word] |= mask;
                        match self.insts[pc as usize] {
                            Inst::Match => return true,
                            Inst::Class { from, to } => {
                                let Some(&b) = bytes.get(pos) else { break };
                                let (c, len) = if b < 0x80 {
                                    (u32::from(b), 1)
                                } else {
                                    let c = text[pos..].chars().next().expect("a character");
                                    (c as u32, c.len_utf8())
                                };
                                if !self.class_has(from, to, c) {
                                    break;
                                }
                                pc += 1;
                                pos += len;
                            }
                            Inst::Jump(to) => pc = to,
                            Inst::Split(a, b) => {
                                stack.push((b, pos));
                                pc = a;
                            }
                            Inst::Start if pos == 0 => pc += 1,
                            Inst::End if pos == bytes.len() => pc += 1,
                            Inst::Boundary if boundary_at(bytes, pos) => pc += 1,
                            Inst::Start | Inst::End | Inst::Boundary => break,
                        }
                    }
                }
            }
            false
        }

        /// The Pike VM, for texts long enough that the backtracker's visited set would be
        /// large.
        fn pike(&self, text: &str) -> bool {
            let n = self.insts.len();
            // two sparse sets (the threads now and next) and the closure's stack, in one
            // allocation; a sparse set needs no clearing between positions
            let mut memory = vec![0u32; 5 * n];
            let (now, rest) = memory.split_at_mut(2 * n);
            let (next, stack) = rest.split_at_mut(2 * n);
            let mut now = Threads::new(now);
            let mut next = Threads::new(next);
            let mut chars = text.chars();
            let mut before: Option<char> = None;
            let mut after = chars.next();
            loop {
                if before.is_none() || !self.anchored {
                    // a match may start here
                    if self.add(&mut now, stack, 0, before, after) {
                        return true;
                    }
                }
                let Some(c) = after else { return false };
                if now.len == 0 && self.anchored {
                    return false;
                }
                let following = chars.next();
                next.clear();
                for i in 0..now.len {
                    let pc = now.dense[i];
                    if let Inst::Class { from, to } = self.insts[pc as usize] {
                        if self.class_has(from, to, c as u32)
                            && self.add(&mut next, stack, pc + 1, Some(c), following)
                        {
                            return true;
                        }
                    }
                }
                std::mem::swap(&mut now, &mut next);
                before = Some(c);
                after = following;
            }
        }

        /// Both engines' verdicts, for the tests.
        #[cfg(test)]
        fn engines(&self, text: &str) -> (bool, bool) {
            let words = (self.insts.len() * (text.len() + 1)).div_ceil(64);
            (
                self.backtrack(text, &mut vec![0u64; words]),
                self.pike(text),
            )
        }

        fn class_has(&self, from: u32, to: u32, c: u32) -> bool {
            let r = &self.ranges[from as usize..to as usize];
            if r.len() <= 8 {
                // sorted: stop at the first range above c
                for &(lo, hi) in r {
                    if c < lo {
                        return false;
                    }
                    if c <= hi {
                        return true;
                    }
                }
                return false;
            }
            let i = r.partition_point(|&(_, hi)| hi < c);
            i < r.len() && r[i].0 <= c
        }

        /// Adds the thread at `pc` and every thread it reaches without consuming, between
        /// `before` and `after`; true when one of them is the match.
        fn add(
            &self,
            threads: &mut Threads,
            stack: &mut [u32],
            pc: u32,
            before: Option<char>,
            after: Option<char>,
        ) -> bool {
            if !threads.insert(pc) {
                return false;
            }
            let mut top = 0;
            stack[top] = pc;
            top += 1;
            let boundary = || is_word(before) != is_word(after);
            while top > 0 {
                top -= 1;
                let pc = stack[top];
                let mut follow = |to: u32, top: &mut usize| {
                    if threads.insert(to) {
                        stack[*top] = to;
                        *top += 1;
                    }
                };
                match self.insts[pc as usize] {
                    Inst::Match => return true,
                    Inst::Class { .. } => {}
                    Inst::Jump(to) => follow(to, &mut top),
                    Inst::Split(a, b) => {
                        follow(b, &mut top);
                        follow(a, &mut top);
                    }
                    Inst::Start => {
                        if before.is_none() {
                            follow(pc + 1, &mut top)
                        }
                    }
                    Inst::End => {
                        if after.is_none() {
                            follow(pc + 1, &mut top)
                        }
                    }
                    Inst::Boundary => {
                        if boundary() {
                            follow(pc + 1, &mut top)
                        }
                    }
                }
            }
            false
        }
    }

    /// The backtracker's visited set fits on the stack up to this many (instruction,
    /// position) pairs, and is allocated up to the next.
    const INLINE_STATES: usize = 4096;
    const MAX_BACKTRACK_STATES: usize = 1 << 18;

    /// Whether an ASCII word boundary is at byte `pos` (between two code points: a byte of
    /// a multi-byte character is never a word character, and `pos` is never inside one).
    fn boundary_at(bytes: &[u8], pos: usize) -> bool {
        let word = |b: Option<&u8>| b.is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_');
        word(pos.checked_sub(1).and_then(|p| bytes.get(p))) != word(bytes.get(pos))
    }

    /// The backtracker's pending branches: a few inline, more on the heap.
    #[derive(Default)]
    struct Stack {
        inline: [(u32, usize); 16],
        len: usize,
        more: Vec<(u32, usize)>,
    }

    impl Stack {
        fn push(&mut self, item: (u32, usize)) {
            if self.len < self.inline.len() {
                self.inline[self.len] = item;
                self.len += 1;
            } else {
                self.more.push(item);
            }
        }

        fn pop(&mut self) -> Option<(u32, usize)> {
            if let Some(item) = self.more.pop() {
                return Some(item);
            }
            self.len = self.len.checked_sub(1)?;
            Some(self.inline[self.len])
        }
    }

    /// ECMA-262's IsWordChar without the i flag: ASCII letters, digits and `_`.
    fn is_word(c: Option<char>) -> bool {
        c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    }

    /// A sparse set of instructions: `dense[..len]` in insertion order, `sparse[pc]` where
    /// `pc` would be in `dense`.
    struct Threads<'a> {
        dense: &'a mut [u32],
        sparse: &'a mut [u32],
        len: usize,
    }

    impl<'a> Threads<'a> {
        fn new(memory: &'a mut [u32]) -> Threads<'a> {
            let (dense, sparse) = memory.split_at_mut(memory.len() / 2);
            Threads {
                dense,
                sparse,
                len: 0,
            }
        }

        fn clear(&mut self) {
            self.len = 0;
        }

        /// Inserts `pc`; false when it was there.
        fn insert(&mut self, pc: u32) -> bool {
            let i = self.sparse[pc as usize] as usize;
            if i < self.len && self.dense[i] == pc {
                return false;
            }
            self.dense[self.len] = pc;
            self.sparse[pc as usize] = self.len as u32;
            self.len += 1;
            true
        }
    }
}
/// The generator of tests/patterns.rs and the schema lane, for the differential test.
#[cfg(all(test, feature = "patterns"))]
#[path = "../../examples/common/patterns.rs"]
mod corpus;

#[cfg(all(test, feature = "patterns"))]
mod tests {
    use super::corpus;
    use super::on::{parse, Node, MAX_PROGRAM};
    use super::Pattern;

    /// Whether `p` matches `s`; the backtracker and the Pike VM must agree.
    fn m(p: &str, s: &str) -> bool {
        let pattern = Pattern::new(p).unwrap_or_else(|e| panic!("{p}: {e}"));
        let (backtracker, pike) = pattern.engines(s);
        assert_eq!(backtracker, pike, "{p:?} on {s:?}: the engines disagree");
        assert_eq!(pattern.is_match(s), pike);
        pike
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
        assert!(m("", ""));
        assert!(m("^$", ""));
        assert!(!m("^$", "a"));
        // \b is an ASCII word boundary
        assert!(m(r"\bfoo\b", "éfooé"));
        assert!(m(r"\b", "x😀y"));
        assert!(!m(r"😀\b", "😀 "));
        assert!(!m(r"\b", ""));
        // classes: literal [ and & inside, backspace, empty classes, ranges
        assert!(m(r"^[[&&]+$", "[&"));
        assert!(m(r"^[\b]$", "\u{8}"));
        assert!(!m("[]", "a"));
        assert!(!m("[]", ""));
        assert!(m("^[^]$", "\n"));
        assert!(m(r"^[a-c\d-]+$", "ab1-"));
        assert!(m(r"^[^\D]$", "7"));
        assert!(m(r"^[\W\d]+$", "é7 "));
        assert!(!m(r"^[^\W\d]$", "7"));
        assert!(m(r"^[\u{1F600}-\u{1F64F}]$", "😃"));
        assert!(m(r"^\uD83D\uDE00$", "😀"));
        // escapes, groups, quantifiers, alternation
        assert!(m(r"^\x41\u0042\cJ\/$", "AB\n/"));
        assert!(m(r"^(?:ab){2,3}?(?<tail>c|d)$", "ababd"));
        assert!(!m(r"^(?:ab){2,3}(c|d)$", "abd"));
        assert!(!m(r"^(?:ab){2,3}(c|d)$", "ababababd"));
        assert!(m(r"^a{2}$", "aa"));
        assert!(!m(r"^a{2}$", "aaa"));
        assert!(m(r"^a{2,}$", "aaaaa"));
        assert!(m(r"^(a|)+$", "aaa"));
        assert!(m(r"^(?:a*)*$", "aaa"));
        assert!(m(r"^(?:|b)c$", "c"));
        assert!(m(r"^\{\}\]$", "{}]"));
        assert!(m(r"^[a-z][a-z0-9_]{2,31}$", "ada_lovelace"));
        assert!(!m(r"^[a-z][a-z0-9_]{2,31}$", "ad"));
        assert!(m(r"^\d{4}-\d{2}-\d{2}$", "1815-12-10"));
        assert!(m(r"^[^\s@]+@[^\s@]+\.[^\s@]+$", "ada@example.org"));
        assert!(!m(r"^[^\s@]+@[^\s@]+\.[^\s@]+$", "ada @example.org"));
    }

    #[test]
    fn constructs_the_matcher_cannot_honour_are_refused_by_name() {
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
            (r"a\B", "\"\\B\" at position 1 is not supported: node's"),
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
            (
                "a{1000000}",
                "too large for the core's matcher: the repetition at position 1",
            ),
            (
                "x(?:a{300}){300}",
                "the repetition at position 11 makes it more than 65536 steps",
            ),
            (
                "(?<n>a)|(?<n>b)",
                "the group name \"n\" at position 11 is used twice",
            ),
        ] {
            let e = refused(p);
            assert!(e.contains(says), "{p}: {e}");
        }
        // the largest programs are accepted, and match
        assert!(m(
            &format!("^a{{{}}}$", MAX_PROGRAM - 8),
            &"a".repeat(MAX_PROGRAM - 8)
        ));
        assert!(m("^(?:[a-z]{100}){100}$", &"q".repeat(10_000)));
    }

    #[test]
    fn matching_is_linear_in_the_text() {
        // patterns a backtracker takes exponential time on, over 20,000 code points
        let long = "a".repeat(20_000);
        for p in [
            r"^(a+)+$",
            r"^(a|a)*b",
            r"(a*)*b",
            r"^(?:a?){50}a{50}b",
            r"(\w+\s?)+$!",
        ] {
            let started = std::time::Instant::now();
            let _ = m(p, &long);
            // generous: a debug build on a loaded machine; exponential would be years
            assert!(started.elapsed().as_secs() < 20, "{p}");
        }
        assert!(m(r"^(a+)+$", &long));
        assert!(!m(r"^(a|a)*b", &long));
    }

    /// The pattern in the `regex` crate's syntax, as the core translated it before it had
    /// its own matcher; None where regex has no equivalent (its `\B` also holds between
    /// the bytes of one character).
    fn to_regex(n: &Node, out: &mut String) -> Option<()> {
        match n {
            Node::Class(r) => {
                let mut items = String::new();
                for &(lo, hi) in r {
                    // regex's classes hold scalar values: leave the surrogates out
                    for (lo, hi) in [(lo, hi.min(0xD7FF)), (lo.max(0xE000), hi)] {
                        if lo <= hi {
                            items.push_str(&format!("\\x{{{lo:X}}}-\\x{{{hi:X}}}"));
                        }
                    }
                }
                if items.is_empty() {
                    out.push_str(r"[^\x{0}-\x{10FFFF}]");
                } else {
                    out.push_str(&format!("[{items}]"));
                }
            }
            Node::Start => out.push('^'),
            Node::End => out.push('$'),
            Node::Boundary => out.push_str(r"(?-u:\b)"),
            Node::Concat(terms) => {
                out.push_str("(?:");
                for t in terms {
                    out.push_str("(?:");
                    to_regex(t, out)?;
                    out.push(')');
                }
                out.push(')');
            }
            Node::Alternation(alternatives) => {
                out.push_str("(?:");
                for (i, a) in alternatives.iter().enumerate() {
                    if i > 0 {
                        out.push('|');
                    }
                    to_regex(a, out)?;
                }
                out.push(')');
            }
            Node::Repeat {
                node,
                min,
                max,
                greedy,
                ..
            } => {
                out.push_str("(?:");
                to_regex(node, out)?;
                out.push(')');
                match max {
                    Some(m) => out.push_str(&format!("{{{min},{m}}}")),
                    None => out.push_str(&format!("{{{min},}}")),
                }
                if !greedy {
                    out.push('?');
                }
            }
        }
        Some(())
    }

    /// xorshift64: the same sequence for the same seed.
    struct Random(u64);

    impl Random {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }

        fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
            from[self.below(from.len())]
        }
    }

    /// What random texts are made of: word and non-word ASCII, line terminators and ECMA
    /// spaces, non-ASCII letters, astral characters, the syntax characters.
    const TEXT_PIECES: &[&str] = &[
        "a", "b", "z", "A", "K", "_", "0", "7", " ", "\t", "\n", "\r", "\u{2028}", "\u{a0}",
        "\u{feff}", "\u{85}", "é", "😀", "😃", "\u{212A}", "-", "@", ".", "\\", "{", "}", "[", "]",
        "/", "\u{0}", "\u{8}", "ab", "foo", "12",
    ];

    fn random_text(r: &mut Random) -> String {
        let n = r.below(9);
        (0..n).map(|_| r.pick(TEXT_PIECES)).collect()
    }

    /// A pattern drawn from a small grammar of what the core accepts (nested groups,
    /// classes, escapes, assertions, every quantifier), so that most are accepted.
    fn random_pattern(r: &mut Random, depth: usize) -> String {
        const ATOMS: &[&str] = &[
            "a",
            "b",
            "A",
            "_",
            "7",
            " ",
            "é",
            "😀",
            ".",
            r"\d",
            r"\D",
            r"\w",
            r"\W",
            r"\s",
            r"\S",
            r"\.",
            r"\-",
            r"\\",
            r"\/",
            r"\u{1F600}",
            r"\x41",
            r"\n",
            "[ab]",
            "[^ab]",
            r"[a-z]",
            r"[\w-]",
            r"[^\s@]",
            r"[\d.]",
            "[]",
            "[^]",
            r"[😀-😃]",
            r"[\b]",
            "[-a]",
            "@",
            "-",
        ];
        const ASSERTIONS: &[&str] = &["^", "$", r"\b", r"\B"];
        const QUANTIFIERS: &[&str] = &[
            "", "", "", "*", "+", "?", "*?", "+?", "??", "{2}", "{0,2}", "{1,}", "{2,3}?", "{0}",
            "{1,1}",
        ];
        let terms = 1 + r.below(5);
        let mut out = String::new();
        for _ in 0..terms {
            match r.below(10) {
                0 => out.push_str(r.pick(ASSERTIONS)),
                1 | 2 if depth < 3 => {
                    let open = r.pick(&["(", "(?:", "("]);
                    out.push_str(open);
                    out.push_str(&random_pattern(r, depth + 1));
                    if r.below(3) == 0 {
                        out.push('|');
                        out.push_str(&random_pattern(r, depth + 1));
                    }
                    out.push(')');
                    out.push_str(r.pick(QUANTIFIERS));
                }
                3 if depth > 0 => out.push('|'),
                _ => {
                    out.push_str(r.pick(ATOMS));
                    out.push_str(r.pick(QUANTIFIERS));
                }
            }
        }
        out
    }

    /// The differential test: on the corpus of tests/patterns.rs and the schema lane, the
    /// typical patterns of descriptors and a grammar's random patterns, the core's matcher
    /// and the `regex` crate (a dev-dependency) on the same parse agree on the corpus's
    /// texts and on random ones.
    #[test]
    fn the_matcher_agrees_with_the_regex_crate() {
        let typical = [
            r"^[a-z][a-z0-9_]{2,31}$",
            r"^[^\s@]+@[^\s@]+\.[^\s@]+$",
            r"^\d{4}-\d{2}-\d{2}$",
            r"^[A-Z]{2}-\d{3}$",
            r"\bcat\b",
            r"^\S+\s\S+$",
            r"^.$",
            r"^[\w.-]+@[^\s@]+$",
            r"^[a-z]+$",
            r"^[a-z][A-Za-z0-9]{0,63}$",
            r"^[A-Za-z_][A-Za-z0-9_]{0,63}$",
            r"\$\{applicationName\}",
            r"^(\d{1,3}\.){3}\d{1,3}$",
            r"^\+?[0-9 ()-]{7,20}$",
            r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
            r"^(?:[01]\d|2[0-3]):[0-5]\d$",
            r"^https?://[^\s/$.?#].[^\s]*$",
            r"colou?r|gr[ae]y",
            r"^(a+)+$",
            r"(?<year>\d{4})-(?<m>\d\d)",
        ];
        let mut patterns: Vec<String> = typical.iter().map(|p| p.to_string()).collect();
        patterns.extend(corpus::draw(0x9E37_79B9_7F4A_7C15).take(4_000));
        patterns.extend(corpus::draw(0x2545_F491_4F6C_DD1D).take(4_000));
        let mut r = Random(0xD1B5_4A32_D192_ED03);
        patterns.extend((0..3_000).map(|_| random_pattern(&mut r, 0)));
        let (mut compared, mut texts) = (0, 0);
        for p in &patterns {
            let Ok(ours) = Pattern::new(p) else { continue };
            let mut translated = String::new();
            if to_regex(&parse(p).unwrap(), &mut translated).is_none() {
                continue;
            }
            let theirs = regex::RegexBuilder::new(&translated)
                .size_limit(1 << 24)
                .build()
                .unwrap_or_else(|e| panic!("{p:?} as {translated:?}: {e}"));
            compared += 1;
            let random: Vec<String> = (0..24).map(|_| random_text(&mut r)).collect();
            for t in corpus::TEXTS
                .iter()
                .copied()
                .chain(random.iter().map(String::as_str))
            {
                texts += 1;
                let expected = theirs.is_match(t);
                assert_eq!(
                    ours.engines(t),
                    (expected, expected),
                    "(backtracker, Pike VM) for {p:?} (regex: {translated:?}) on {t:?}"
                );
            }
        }
        assert!(compared > 3_000, "only {compared} patterns compared");
        assert!(texts > 100_000, "only {texts} texts");
    }
}

/// A build without the `patterns` feature: no matcher, so a `pattern` is refused at
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
