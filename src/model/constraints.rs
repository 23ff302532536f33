//! Value constraints on parameters, record fields and results: JSON Schema's `minimum`,
//! `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (numbers), `minLength`, `maxLength`,
//! `pattern` (strings) and `minItems`, `maxItems`, `uniqueItems` (arrays).
//!
//! One definition serves the three places that must agree: the descriptor (parsed and
//! checked here), the JSON Schema (`schema.rs` writes the same keywords) and the binder
//! (`binding.rs` calls the checks below with the value it read). Numbers compare exactly
//! (`decimal.rs`), lengths count Unicode code points (as JSON Schema does), patterns are
//! ECMA-262 (`ecma_regex.rs`), and a `null` given for a nullable slot satisfies every
//! constraint (the keywords apply to numbers, strings and arrays only).

use crate::model::decimal::Decimal;
use crate::model::ecma_regex::Pattern;
use crate::model::error::{Error, Result};
use serde_json::{Map, Number, Value};

/// The descriptor keys of constraints, in the order they are written back.
pub const KEYS: [&str; 10] = [
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
];

/// A numeric bound: as written (for the schema) and its exact value (for the binder).
#[derive(Clone, Debug, PartialEq)]
pub struct Bound {
    pub json: Number,
    value: Decimal,
}

impl Bound {
    fn new(json: Number) -> Bound {
        let value = Decimal::parse(&json.to_string()).expect("serde_json writes JSON numbers");
        Bound { json, value }
    }
}

/// The constraints of one slot (a parameter, a field or a result). Every field is
/// optional; [`Constraints::parse`] returns `None` when none is set.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Constraints {
    pub minimum: Option<Bound>,
    pub exclusive_minimum: Option<Bound>,
    pub maximum: Option<Bound>,
    pub exclusive_maximum: Option<Bound>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub pattern: Option<Pattern>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    pub unique_items: bool,
}

/// What the slot holds (its type without `nullable`), for checking that each constraint
/// applies.
#[derive(Clone, Copy, Debug)]
pub enum Kind<'a> {
    /// An integer of a width: its name and range.
    Integer(&'static str, i128, i128),
    Number,
    String,
    Array,
    /// Any other type, by its display name.
    Other(&'a str),
}

impl Kind<'_> {
    fn name(&self) -> &str {
        match self {
            Kind::Integer(n, _, _) => n,
            Kind::Number => "double",
            Kind::String => "string",
            Kind::Array => "an array",
            Kind::Other(n) => n,
        }
    }
}

impl Constraints {
    /// Reads the constraint keys of a descriptor object (a parameter, a field, a result
    /// slot) at `path`, checking that each applies to `kind` and that together they can be
    /// met.
    pub fn parse(
        o: &Map<String, Value>,
        path: &str,
        kind: Kind<'_>,
    ) -> Result<Option<Box<Constraints>>> {
        // most slots have none: look among the slot's few keys rather than hash each keyword
        if !o.keys().any(|k| KEYS.contains(&k.as_str())) {
            return Ok(None);
        }
        let mut c = Constraints::default();
        for key in KEYS {
            let Some(v) = crate::model::quote::field(o, key) else {
                continue;
            };
            let at = format!("{path}.{key}");
            let applies = match key {
                "minimum" | "exclusiveMinimum" | "maximum" | "exclusiveMaximum" => {
                    matches!(kind, Kind::Integer(..) | Kind::Number)
                }
                "minLength" | "maxLength" | "pattern" => matches!(kind, Kind::String),
                _ => matches!(kind, Kind::Array),
            };
            if !applies {
                let to = match key {
                    "minimum" | "exclusiveMinimum" | "maximum" | "exclusiveMaximum" => {
                        "int32, int64 and double"
                    }
                    "minLength" | "maxLength" | "pattern" => "string",
                    _ => "arrays",
                };
                return Err(Error::descriptor(
                    at,
                    format!("{key} applies to {to}, not to {}", kind.name()),
                ));
            }
            match key {
                "minimum" | "exclusiveMinimum" | "maximum" | "exclusiveMaximum" => {
                    let Value::Number(n) = v else {
                        return Err(Error::descriptor(
                            at,
                            format!(
                                "expected a number, got {}",
                                crate::model::quote::describe_json(v)
                            ),
                        ));
                    };
                    let b = Bound::new(n.clone());
                    if let Kind::Integer(name, lo, hi) = kind {
                        let (lo, hi) = (Decimal::from_i128(lo), Decimal::from_i128(hi));
                        if b.value < lo || b.value > hi {
                            return Err(Error::descriptor(
                                at,
                                format!(
                                    "{n} is outside the range of {name} ({} to {})",
                                    bound_text(&lo),
                                    bound_text(&hi)
                                ),
                            ));
                        }
                    }
                    let slot = match key {
                        "minimum" => &mut c.minimum,
                        "exclusiveMinimum" => &mut c.exclusive_minimum,
                        "maximum" => &mut c.maximum,
                        _ => &mut c.exclusive_maximum,
                    };
                    *slot = Some(b);
                }
                "minLength" | "maxLength" | "minItems" | "maxItems" => {
                    let n = count(v).ok_or_else(|| {
                        Error::descriptor(
                            &at,
                            format!(
                                "expected a non-negative integer, got {}",
                                crate::model::quote::describe_json(v)
                            ),
                        )
                    })?;
                    let slot = match key {
                        "minLength" => &mut c.min_length,
                        "maxLength" => &mut c.max_length,
                        "minItems" => &mut c.min_items,
                        _ => &mut c.max_items,
                    };
                    *slot = Some(n);
                }
                "pattern" => {
                    let Value::String(p) = v else {
                        return Err(Error::descriptor(
                            at,
                            format!(
                                "expected an ECMA-262 regular expression as a string, got {}",
                                crate::model::quote::describe_json(v)
                            ),
                        ));
                    };
                    // the message names the pattern as well as its path: the parameter
                    c.pattern = Some(Pattern::new(p).map_err(|e| {
                        Error::descriptor(
                            &at,
                            format!("the pattern {}: {e}", crate::model::quote::quote_short(p)),
                        )
                    })?);
                }
                _ => match v {
                    Value::Bool(b) => c.unique_items = *b,
                    other => {
                        return Err(Error::descriptor(
                            at,
                            format!(
                                "expected true or false, got {}",
                                crate::model::quote::describe_json(other)
                            ),
                        ))
                    }
                },
            }
        }
        c.check_satisfiable(path, kind)?;
        Ok(Some(Box::new(c)))
    }

    fn check_satisfiable(&self, path: &str, kind: Kind<'_>) -> Result<()> {
        let empty = |why: String| {
            Err(Error::descriptor(
                path,
                format!("no value can satisfy the constraints: {why}"),
            ))
        };
        for (lo, lo_key, hi, hi_key) in [
            (&self.min_length, "minLength", &self.max_length, "maxLength"),
            (&self.min_items, "minItems", &self.max_items, "maxItems"),
        ] {
            if let (Some(lo), Some(hi)) = (lo, hi) {
                if lo > hi {
                    return empty(format!("{lo_key} {lo} is more than {hi_key} {hi}"));
                }
            }
        }
        let lows = [(&self.minimum, false), (&self.exclusive_minimum, true)];
        let highs = [(&self.maximum, false), (&self.exclusive_maximum, true)];
        for (lo, lo_excl) in lows {
            for (hi, hi_excl) in highs {
                if let (Some(lo), Some(hi)) = (lo, hi) {
                    let bad = if lo_excl || hi_excl {
                        lo.value >= hi.value
                    } else {
                        lo.value > hi.value
                    };
                    // integers: nothing lies strictly between n and n+1
                    let bad = bad
                        || (matches!(kind, Kind::Integer(..))
                            && integer_range_is_empty(&lo.value, lo_excl, &hi.value, hi_excl));
                    if bad {
                        return empty(format!(
                            "{} {} and {} {}",
                            if lo_excl {
                                "exclusiveMinimum"
                            } else {
                                "minimum"
                            },
                            lo.json,
                            if hi_excl {
                                "exclusiveMaximum"
                            } else {
                                "maximum"
                            },
                            hi.json
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Checks a number (already known to be of the slot's type); `raw` is its text as the
    /// caller wrote it, for the message.
    pub(crate) fn check_number(&self, v: &Decimal, raw: &str) -> std::result::Result<(), String> {
        if let Some(b) = &self.minimum {
            if *v < b.value {
                return Err(format!("{raw} is below the minimum {}", b.json));
            }
        }
        if let Some(b) = &self.exclusive_minimum {
            if *v <= b.value {
                return Err(format!(
                    "{raw} is not above the exclusiveMinimum {}",
                    b.json
                ));
            }
        }
        if let Some(b) = &self.maximum {
            if *v > b.value {
                return Err(format!("{raw} is above the maximum {}", b.json));
            }
        }
        if let Some(b) = &self.exclusive_maximum {
            if *v >= b.value {
                return Err(format!(
                    "{raw} is not below the exclusiveMaximum {}",
                    b.json
                ));
            }
        }
        Ok(())
    }

    /// Checks a string: lengths in code points, then the pattern.
    pub(crate) fn check_string(&self, s: &str) -> std::result::Result<(), String> {
        if self.min_length.is_some() || self.max_length.is_some() {
            let n = s.chars().count() as u64;
            let shown = || crate::model::quote::quote_short(s);
            if let Some(min) = self.min_length {
                if n < min {
                    return Err(format!(
                        "string {} has {n} character{}, fewer than the minLength {min}",
                        shown(),
                        plural(n)
                    ));
                }
            }
            if let Some(max) = self.max_length {
                if n > max {
                    return Err(format!(
                        "string {} has {n} character{}, more than the maxLength {max}",
                        shown(),
                        plural(n)
                    ));
                }
            }
        }
        if let Some(p) = &self.pattern {
            if !p.is_match(s) {
                return Err(format!(
                    "string {} does not match the pattern {}",
                    crate::model::quote::quote_short(s),
                    p.source()
                ));
            }
        }
        Ok(())
    }

    /// Checks an array's length.
    pub(crate) fn check_items(&self, n: u64) -> std::result::Result<(), String> {
        if let Some(min) = self.min_items {
            if n < min {
                return Err(format!(
                    "{n} item{}, fewer than the minItems {min}",
                    plural(n)
                ));
            }
        }
        if let Some(max) = self.max_items {
            if n > max {
                return Err(format!(
                    "{n} item{}, more than the maxItems {max}",
                    plural(n)
                ));
            }
        }
        Ok(())
    }

    /// The constraints as descriptor keys (for the registry JSON and the JSON Schema),
    /// in the order of [`KEYS`].
    pub fn write(&self, o: &mut Map<String, Value>) {
        self.write_lower(o);
        self.write_upper(o);
        self.write_other(o);
    }

    /// `minimum` and `exclusiveMinimum`, when set.
    pub fn write_lower(&self, o: &mut Map<String, Value>) {
        put_bound(o, "minimum", &self.minimum);
        put_bound(o, "exclusiveMinimum", &self.exclusive_minimum);
    }

    /// `maximum` and `exclusiveMaximum`, when set.
    pub fn write_upper(&self, o: &mut Map<String, Value>) {
        put_bound(o, "maximum", &self.maximum);
        put_bound(o, "exclusiveMaximum", &self.exclusive_maximum);
    }

    /// The string and array keywords, when set.
    pub fn write_other(&self, o: &mut Map<String, Value>) {
        for (key, v) in [
            ("minLength", self.min_length.map(Value::from)),
            ("maxLength", self.max_length.map(Value::from)),
            (
                "pattern",
                self.pattern.as_ref().map(|p| Value::from(p.source())),
            ),
            ("minItems", self.min_items.map(Value::from)),
            ("maxItems", self.max_items.map(Value::from)),
            (
                "uniqueItems",
                self.unique_items.then_some(Value::Bool(true)),
            ),
        ] {
            if let Some(v) = v {
                o.insert(key.into(), v);
            }
        }
    }

    /// Whether a lower bound (inclusive or exclusive) is set.
    pub fn has_lower(&self) -> bool {
        self.minimum.is_some() || self.exclusive_minimum.is_some()
    }

    /// Whether an upper bound (inclusive or exclusive) is set.
    pub fn has_upper(&self) -> bool {
        self.maximum.is_some() || self.exclusive_maximum.is_some()
    }
}

fn put_bound(o: &mut Map<String, Value>, key: &str, b: &Option<Bound>) {
    if let Some(b) = b {
        o.insert(key.into(), Value::Number(b.json.clone()));
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn bound_text(d: &Decimal) -> String {
    match d.integer() {
        crate::model::decimal::Integer::Exact(v) => v.to_string(),
        _ => "?".into(),
    }
}

/// A count: a non-negative integer (`2` or `2.0`).
fn count(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| *f >= 0.0 && f.fract() == 0.0 && *f < 1.8e19)
                .map(|f| f as u64)
        }),
        _ => None,
    }
}

/// Whether no integer lies within the bounds (both exact).
fn integer_range_is_empty(lo: &Decimal, lo_excl: bool, hi: &Decimal, hi_excl: bool) -> bool {
    use crate::model::decimal::Integer;
    // the smallest integer allowed by the lower bound and the largest by the upper one;
    // every bound lies within an integer width, so the values fit
    let Integer::Exact(lo_floor) = lo.floor() else {
        return false;
    };
    let Integer::Exact(hi_floor) = hi.floor() else {
        return false;
    };
    let lo_int = if lo_excl || lo.integer() == Integer::Fraction {
        lo_floor + 1
    } else {
        lo_floor
    };
    let hi_int = if hi_excl && hi.integer() != Integer::Fraction {
        hi_floor - 1
    } else {
        hi_floor
    };
    lo_int > hi_int
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value, kind: Kind) -> std::result::Result<Constraints, String> {
        Constraints::parse(v.as_object().unwrap(), "f.parameters.x", kind)
            .map(|c| *c.unwrap())
            .map_err(|e| e.to_string())
    }

    const INT32: Kind = Kind::Integer("int32", i32::MIN as i128, i32::MAX as i128);

    #[test]
    fn constraints_apply_to_their_kinds_only() {
        assert_eq!(
            parse(json!({"minLength": 1}), INT32).unwrap_err(),
            "f.parameters.x.minLength: minLength applies to string, not to int32"
        );
        assert_eq!(
            parse(json!({"minimum": 1}), Kind::String).unwrap_err(),
            "f.parameters.x.minimum: minimum applies to int32, int64 and double, not to string"
        );
        assert_eq!(
            parse(json!({"uniqueItems": true}), Kind::Other("enum Priority")).unwrap_err(),
            "f.parameters.x.uniqueItems: uniqueItems applies to arrays, not to enum Priority"
        );
        assert!(parse(json!({"minimum": 1, "maximum": 2.5}), Kind::Number).is_ok());
        assert!(parse(json!({"minItems": 1, "uniqueItems": true}), Kind::Array).is_ok());
    }

    #[test]
    #[cfg(feature = "patterns")] // declares a `pattern`
    fn values_are_checked() {
        assert_eq!(
            parse(json!({"minimum": 3000000000i64}), INT32).unwrap_err(),
            "f.parameters.x.minimum: 3000000000 is outside the range of int32 (-2147483648 to 2147483647)"
        );
        assert!(parse(json!({"minLength": -1}), Kind::String)
            .unwrap_err()
            .contains("non-negative integer"));
        assert!(parse(json!({"minimum": "1"}), INT32)
            .unwrap_err()
            .contains("expected a number"));
        assert!(parse(json!({"pattern": "(?=a)"}), Kind::String)
            .unwrap_err()
            .starts_with("f.parameters.x.pattern: the pattern \"(?=a)\": lookahead"));
        assert_eq!(
            parse(json!({"minItems": 2.0}), Kind::Array)
                .unwrap()
                .min_items,
            Some(2)
        );
    }

    #[test]
    fn unsatisfiable_constraints_are_refused() {
        for (v, kind) in [
            (json!({"minimum": 5, "maximum": 3}), INT32),
            (json!({"exclusiveMinimum": 3, "maximum": 3}), Kind::Number),
            (json!({"exclusiveMinimum": 3, "exclusiveMaximum": 4}), INT32),
            (json!({"minimum": 3.2, "maximum": 3.8}), INT32),
            (json!({"minLength": 3, "maxLength": 2}), Kind::String),
            (json!({"minItems": 3, "maxItems": 2}), Kind::Array),
        ] {
            let e = parse(v.clone(), kind).unwrap_err();
            assert!(e.contains("no value can satisfy"), "{v}: {e}");
        }
        assert!(parse(
            json!({"exclusiveMinimum": 3, "exclusiveMaximum": 4}),
            Kind::Number
        )
        .is_ok());
        assert!(parse(json!({"minimum": 3, "maximum": 3}), INT32).is_ok());
    }

    #[test]
    #[cfg(feature = "patterns")] // declares a `pattern`
    fn checks_name_the_rule() {
        let c = parse(json!({"minimum": 1, "exclusiveMaximum": 100}), INT32).unwrap();
        let d = |s: &str| Decimal::parse(s).unwrap();
        assert_eq!(
            c.check_number(&d("0"), "0").unwrap_err(),
            "0 is below the minimum 1"
        );
        assert_eq!(
            c.check_number(&d("100"), "1e2").unwrap_err(),
            "1e2 is not below the exclusiveMaximum 100"
        );
        assert!(c.check_number(&d("99"), "99").is_ok());
        let s = parse(
            json!({"minLength": 2, "maxLength": 3, "pattern": "^[a-z😀]+$"}),
            Kind::String,
        )
        .unwrap();
        assert_eq!(
            s.check_string("😀").unwrap_err(),
            "string \"😀\" has 1 character, fewer than the minLength 2"
        );
        assert!(
            s.check_string("😀😀😀").is_ok(),
            "code points, not UTF-16 units"
        );
        assert_eq!(
            s.check_string("aB").unwrap_err(),
            "string \"aB\" does not match the pattern ^[a-z😀]+$"
        );
        let a = parse(json!({"minItems": 1, "maxItems": 2}), Kind::Array).unwrap();
        assert_eq!(
            a.check_items(0).unwrap_err(),
            "0 items, fewer than the minItems 1"
        );
        assert_eq!(
            a.check_items(3).unwrap_err(),
            "3 items, more than the maxItems 2"
        );
    }
}
