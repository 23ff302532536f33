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
    digits: Vec<u8>,
    exp: i64,
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
        let mut digits: Vec<u8> = int_part.iter().chain(frac_part).map(|d| d - b'0').collect();
        exp -= frac_part.len() as i64;
        let lead = digits.iter().take_while(|d| **d == 0).count();
        digits.drain(..lead);
        while digits.last() == Some(&0) {
            digits.pop();
            exp += 1;
        }
        if digits.is_empty() {
            exp = 0;
        }
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
        for d in &self.digits {
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
            digits: if int_len > 0 {
                self.digits[..int_len as usize].to_vec()
            } else {
                Vec::new()
            },
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
