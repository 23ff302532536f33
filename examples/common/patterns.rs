//! ECMA-262 patterns drawn by a fixed generator from the constructs docs/descriptors.md
//! names, those the core refuses included (lookarounds, backreferences, `\B`, property
//! escapes, modifiers, lone surrogates, ECMA's own syntax errors). The schema lane's corpus
//! (examples/schema_corpus.rs) has node judge some of them; tests/patterns.rs checks that
//! none panics or is refused without naming the construct; src/model/ecma_regex.rs's
//! differential test has the `regex` crate judge the core's matcher on them.

/// What a pattern is made of: 1 to 7 of these, in any order.
pub const TOKENS: &[&str] = &[
    r"\b",
    r"\B",
    r"\w",
    r"\W",
    r"\d",
    r"\D",
    r"\s",
    r"\S",
    "a",
    "é",
    "😀",
    ".",
    "^",
    "$",
    "(",
    ")",
    "(?:",
    "(?<n>",
    "(?=",
    "(?!",
    "(?<=",
    "(?<!",
    "[",
    "]",
    "[^",
    "-",
    "|",
    "*",
    "+",
    "?",
    "{2}",
    "{1,}",
    "{0,3}",
    "{",
    "}",
    r"\u{1F600}",
    r"\uD83D\uDE00",
    r"\uD83D",
    r"\uDE00",
    r"\x41",
    r"\cJ",
    r"\0",
    r"\1",
    r"\k<n>",
    r"\p{L}",
    r"\-",
    r"\/",
    r"\\",
    r"\b]",
    "(?i)",
    "(?i:",
    "A",
    "_",
    " ",
    "K",
    "\u{212A}",
];

/// What each pattern is tested on: ASCII words and boundaries, a non-ASCII letter, astral
/// characters, line terminators, the Kelvin sign (a word character to case-folding engines).
pub const TEXTS: &[&str] = &[
    "",
    "a",
    "foo bar",
    "éfooé",
    "x😀y",
    "12 ab_c\n",
    "\u{2028}",
    "A_9",
    "K",
    "\u{212A}",
    "-",
    "\\",
];

/// An endless sequence of patterns, the same for the same seed (xorshift64).
pub fn draw(mut seed: u64) -> impl Iterator<Item = String> {
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    std::iter::repeat_with(move || {
        let n = (next() % 7 + 1) as usize;
        (0..n)
            .map(|_| TOKENS[(next() % TOKENS.len() as u64) as usize])
            .collect()
    })
}
