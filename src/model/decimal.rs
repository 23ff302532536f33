//! Exact values of JSON number texts, for integer binding and numeric constraints.
//!
//! A JSON number is read as the decimal it writes (`-12.50e3` is −12500), never through a
//! float, so `-9223372036854775809` is refused for int64 as itself, `2.0` and `1e2` are the
//! integers 2 and 100 (as JSON Schema counts them), and `0.1` compared with a bound `0.1` is
//! equal whatever the nearest double is.

use std::cmp::Ordering;

/// A decimal number: `digits × 10^exp`, `digits` without leading or trailing zeros (empty
/// for zero).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Decimal {
    neg: bool,
    digits: Digits,
    exp: i64,
}

/// How many digits a [`Digits`] holds in place: every `i64` (19) and the numbers apps pass.
const INLINE_DIGITS: usize = 22;

/// The digits of a [`Decimal`] (each 0 to 9): up to [`INLINE_DIGITS`] held in place, more on
/// the heap. A number argument or result with a bound (`minimum`, ...) is read into one at
/// every call, which then allocated twice (the MCP demo's `create_order`: its `quantity`
/// argument and its `Order`'s); as large as the `Vec` it replaces (24 bytes).
#[derive(Clone)]
enum Digits {
    Inline { len: u8, buf: [u8; INLINE_DIGITS] },
    Heap(Box<[u8]>),
}

impl Digits {
    /// The first `n` digits of `from`.
    fn collect(from: impl Iterator<Item = u8>, n: usize) -> Digits {
        if n > INLINE_DIGITS {
            return Digits::Heap(from.take(n).collect());
        }
        let mut buf = [0; INLINE_DIGITS];
        for (slot, d) in buf.iter_mut().zip(from.take(n)) {
            *slot = d;
        }
        Digits::Inline { len: n as u8, buf }
    }
}

impl std::ops::Deref for Digits {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Digits::Inline { len, buf } => &buf[..usize::from(*len)],
            Digits::Heap(b) => b,
        }
    }
}

impl PartialEq for Digits {
    fn eq(&self, other: &Digits) -> bool {
        **self == **other
    }
}

impl Eq for Digits {}

impl std::fmt::Debug for Digits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// What a number text is as an integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Integer {
    /// The exact value (every integer of at most 38 digits).
    Exact(i128),
    /// An integer too large for `i128` (far outside every integer width).
    Huge { negative: bool },
    /// Not an integer: the value has a fraction.
    Fraction,
}

/// Exponents are clamped to this magnitude; a number that needs more is beyond every
/// bound anyway (the digits of a JSON text are far fewer).
const EXP_CLAMP: i64 = 1 << 48;

impl Decimal {
    /// Parses a JSON number text (`-?int(.frac)?([eE][+-]?exp)?`); `None` for anything else.
    pub(crate) fn parse(text: &str) -> Option<Decimal> {
        let b = text.as_bytes();
        let mut i = 0;
        let neg = b.first() == Some(&b'-');
        if neg {
            i += 1;
        }
        let int_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let int_part = &b[int_start..i];
        if int_part.is_empty() || (int_part.len() > 1 && int_part[0] == b'0') {
            return None;
        }
        let mut frac_part: &[u8] = &[];
        if b.get(i) == Some(&b'.') {
            i += 1;
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            frac_part = &b[start..i];
            if frac_part.is_empty() {
                return None;
            }
        }
        let mut exp: i64 = 0;
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            let eneg = match b.get(i) {
                Some(b'-') => {
                    i += 1;
                    true
                }
                Some(b'+') => {
                    i += 1;
                    false
                }
                _ => false,
            };
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                exp = (exp * 10 + i64::from(b[i] - b'0')).min(EXP_CLAMP);
                i += 1;
            }
            if i == start {
                return None;
            }
            if eneg {
                exp = -exp;
            }
        }
        if i != b.len() {
            return None;
        }
        // the significant digits: the integer and fraction parts' digits, their leading and
        // trailing zeros left out (each trailing one counted in the exponent)
        let all = || int_part.iter().chain(frac_part);
        let total = int_part.len() + frac_part.len();
        let lead = all().take_while(|d| **d == b'0').count();
        let trail = if lead == total {
            0
        } else {
            all().rev().take_while(|d| **d == b'0').count()
        };
        let n = total - lead - trail;
        let digits = Digits::collect(all().skip(lead).map(|d| d - b'0'), n);
        exp = if n == 0 {
            0
        } else {
            exp - frac_part.len() as i64 + trail as i64
        };
        Some(Decimal {
            neg: neg && !digits.is_empty(),
            digits,
            exp,
        })
    }

    /// The decimal of an integer.
    pub(crate) fn from_i128(v: i128) -> Decimal {
        Decimal::parse(&v.to_string()).expect("an integer's text is a JSON number")
    }

    pub(crate) fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// The value as an integer, exactly.
    pub(crate) fn integer(&self) -> Integer {
        if self.is_zero() {
            return Integer::Exact(0);
        }
        if self.exp < 0 {
            return Integer::Fraction;
        }
        if self.digits.len() as i64 + self.exp > 38 {
            return Integer::Huge { negative: self.neg };
        }
        let mut v: i128 = 0;
        for d in self.digits.iter() {
            v = v * 10 + i128::from(*d);
        }
        for _ in 0..self.exp {
            v *= 10;
        }
        Integer::Exact(if self.neg { -v } else { v })
    }

    /// The largest integer not above the value.
    pub(crate) fn floor(&self) -> Integer {
        if self.exp >= 0 || self.is_zero() {
            return self.integer();
        }
        let int_len = self.digits.len() as i64 + self.exp;
        let whole = Decimal {
            neg: self.neg,
            digits: Digits::collect(self.digits.iter().copied(), int_len.max(0) as usize),
            exp: 0,
        };
        match whole.integer() {
            Integer::Exact(v) if self.neg => Integer::Exact(v - 1),
            other => other,
        }
    }

    /// Writes a text that is the same for equal values (`1`, `1.0` and `1e0` alike).
    pub(crate) fn write_key(&self, out: &mut String) {
        if self.neg {
            out.push('-');
        }
        out.extend(self.digits.iter().map(|d| char::from(b'0' + d)));
        out.push('e');
        out.push_str(&self.exp.to_string());
    }

    /// The position of the leading digit (the decimal exponent of the magnitude).
    fn magnitude(&self) -> i64 {
        self.digits.len() as i64 + self.exp
    }

    fn cmp_abs(&self, other: &Decimal) -> Ordering {
        match (self.is_zero(), other.is_zero()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        self.magnitude().cmp(&other.magnitude()).then_with(|| {
            let n = self.digits.len().max(other.digits.len());
            (0..n)
                .map(|i| {
                    let a = self.digits.get(i).copied().unwrap_or(0);
                    let b = other.digits.get(i).copied().unwrap_or(0);
                    a.cmp(&b)
                })
                .find(|o| *o != Ordering::Equal)
                .unwrap_or(Ordering::Equal)
        })
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Decimal) -> Ordering {
        match (self.neg, other.neg) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.cmp_abs(other),
            (true, true) => other.cmp_abs(self),
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Decimal) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        Decimal::parse(s).unwrap_or_else(|| panic!("{s}"))
    }

    #[test]
    fn integers_are_exact_whatever_the_spelling() {
        assert_eq!(d("2.0").integer(), Integer::Exact(2));
        assert_eq!(d("1e2").integer(), Integer::Exact(100));
        assert_eq!(d("1.5e1").integer(), Integer::Exact(15));
        assert_eq!(d("100e-2").integer(), Integer::Exact(1));
        assert_eq!(d("-0").integer(), Integer::Exact(0));
        assert_eq!(d("-0.0e5").integer(), Integer::Exact(0));
        assert_eq!(
            d("-9223372036854775809").integer(),
            Integer::Exact(-9223372036854775809)
        );
        assert_eq!(
            d("9007199254740993.0").integer(),
            Integer::Exact(9007199254740993)
        );
        assert_eq!(d("1.5").integer(), Integer::Fraction);
        assert_eq!(d("1e-1").integer(), Integer::Fraction);
        assert_eq!(d("1e-400").integer(), Integer::Fraction);
        assert_eq!(d("-1e400").integer(), Integer::Huge { negative: true });
        assert_eq!(
            d("1e99999999999999999999999").integer(),
            Integer::Huge { negative: false }
        );
    }

    #[test]
    fn digits_are_held_in_place_up_to_the_inline_count_and_on_the_heap_beyond() {
        let inline = |x: &Decimal| matches!(x.digits, Digits::Inline { .. });
        // 22 significant digits: in place; zeros around them are not digits
        let at_limit = d("-1234567890.123456789012000e3");
        assert!(inline(&at_limit));
        assert_eq!(at_limit.digits.len(), 22);
        assert_eq!(
            &*at_limit.digits,
            &[1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2]
        );
        assert_eq!(at_limit, d("-1234567890123456789012e-9"));
        // 23 and more: on the heap, compared and converted the same
        let long = d("12345678901234567890123");
        assert!(!inline(&long));
        assert_eq!(long.integer(), Integer::Exact(12345678901234567890123));
        assert_eq!(long, d("1234567890123456789012.30e1"));
        assert_eq!(
            long.cmp(&d("12345678901234567890122.99999")),
            Ordering::Greater
        );
        assert_eq!(long.cmp(&at_limit), Ordering::Greater);
        let long_fraction = d("-3.14159265358979323846264338327950288");
        assert!(!inline(&long_fraction));
        assert_eq!(long_fraction.floor(), Integer::Exact(-4));
        assert_eq!(
            long_fraction.cmp(&d("-3.1415926535897932384626433832795028")),
            Ordering::Less
        );
        // trailing zeros count in the exponent only; zero has no digits
        assert_eq!(d("1.500"), d("15e-1"));
        assert_eq!(d("100").digits.len(), 1);
        assert_eq!(d("0.000120"), d("12e-5"));
        assert_eq!(&*d("0.000120").digits, &[1, 2]);
        assert!(d("0.000").is_zero() && d("-0e7") == d("0"));
    }

    #[test]
    fn floors() {
        assert_eq!(d("3.8").floor(), Integer::Exact(3));
        assert_eq!(d("-3.2").floor(), Integer::Exact(-4));
        assert_eq!(d("0.5").floor(), Integer::Exact(0));
        assert_eq!(d("-0.5").floor(), Integer::Exact(-1));
        assert_eq!(d("7").floor(), Integer::Exact(7));
        assert_eq!(d("1.25e1").floor(), Integer::Exact(12));
    }

    #[test]
    fn only_json_numbers_parse() {
        for bad in [
            "", "-", "01", "1.", ".5", "1e", "1e+", "+1", "1x", "NaN", " 1",
        ] {
            assert!(Decimal::parse(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn comparisons_are_exact() {
        assert!(d("0.1") == d("1e-1"));
        assert_eq!(d("0.1").cmp(&d("0.10000000000000000001")), Ordering::Less);
        assert_eq!(d("-1").cmp(&d("0")), Ordering::Less);
        assert_eq!(d("-0").cmp(&d("0")), Ordering::Equal);
        assert_eq!(d("-2").cmp(&d("-10")), Ordering::Greater);
        assert_eq!(d("1e2").cmp(&d("99.9999")), Ordering::Greater);
        assert_eq!(
            d("-9223372036854775809").cmp(&Decimal::from_i128(i64::MIN as i128)),
            Ordering::Less
        );
        assert_eq!(d("1e-400").cmp(&d("0")), Ordering::Greater);
    }
}
