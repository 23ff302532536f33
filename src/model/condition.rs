//! Visibility conditions over metadata properties (`HasAdvancedFeatures`, `A && !B`,
//! `X || (Y && Z)`) and `{metadata.Name}` placeholders in titles and descriptions.

use serde_json::Value;

/// A parsed condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Condition {
    /// The metadata property is truthy.
    Property(String),
    /// `!c`
    Not(Box<Condition>),
    /// `a && b`
    And(Box<Condition>, Box<Condition>),
    /// `a || b`
    Or(Box<Condition>, Box<Condition>),
}

impl Condition {
    /// Parses a condition; the error says what is wrong and where (0-based column).
    pub fn parse(text: &str) -> Result<Condition, String> {
        let tokens = tokenize(text)?;
        if tokens.is_empty() {
            return Err("the condition is empty".into());
        }
        let mut p = Parser { tokens, pos: 0 };
        let c = p.or()?;
        if let Some((col, t)) = p.tokens.get(p.pos) {
            return Err(format!("unexpected {} at column {col}", t.describe()));
        }
        Ok(c)
    }

    /// The properties the condition names, in order of appearance.
    pub fn properties(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Condition::Property(p) => out.push(p),
            Condition::Not(c) => c.collect(out),
            Condition::And(a, b) | Condition::Or(a, b) => {
                a.collect(out);
                b.collect(out);
            }
        }
    }

    /// Evaluates against metadata: a property is true when it is `true`, a non-zero
    /// number, a non-empty string, array or object; missing and `null` are false.
    pub fn eval(&self, metadata: &Value) -> bool {
        match self {
            Condition::Property(p) => truthy(metadata.get(p.as_str())),
            Condition::Not(c) => !c.eval(metadata),
            Condition::And(a, b) => a.eval(metadata) && b.eval(metadata),
            Condition::Or(a, b) => a.eval(metadata) || b.eval(metadata),
        }
    }
}

fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    And,
    Or,
    Not,
    Open,
    Close,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("\"{s}\""),
            Tok::And => "\"&&\"".into(),
            Tok::Or => "\"||\"".into(),
            Tok::Not => "\"!\"".into(),
            Tok::Open => "\"(\"".into(),
            Tok::Close => "\")\"".into(),
        }
    }
}

fn tokenize(text: &str) -> Result<Vec<(usize, Tok)>, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'(' => {
                out.push((i, Tok::Open));
                i += 1
            }
            b')' => {
                out.push((i, Tok::Close));
                i += 1
            }
            b'!' => {
                out.push((i, Tok::Not));
                i += 1
            }
            b'&' if bytes.get(i + 1) == Some(&b'&') => {
                out.push((i, Tok::And));
                i += 2
            }
            b'|' if bytes.get(i + 1) == Some(&b'|') => {
                out.push((i, Tok::Or));
                i += 2
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                out.push((start, Tok::Ident(text[start..i].to_owned())));
            }
            _ => {
                let ch = text[i..].chars().next().unwrap_or('?');
                return Err(format!(
                    "unexpected \"{ch}\" at column {i}; a condition uses property names, !, &&, || and parentheses"
                ));
            }
        }
    }
    Ok(out)
}

struct Parser {
    tokens: Vec<(usize, Tok)>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.pos).map(|(_, t)| t)
    }
    fn or(&mut self) -> Result<Condition, String> {
        let mut left = self.and()?;
        while self.peek() == Some(&Tok::Or) {
            self.pos += 1;
            left = Condition::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }
    fn and(&mut self) -> Result<Condition, String> {
        let mut left = self.unary()?;
        while self.peek() == Some(&Tok::And) {
            self.pos += 1;
            left = Condition::And(Box::new(left), Box::new(self.unary()?));
        }
        Ok(left)
    }
    fn unary(&mut self) -> Result<Condition, String> {
        match self.tokens.get(self.pos).cloned() {
            Some((_, Tok::Not)) => {
                self.pos += 1;
                Ok(Condition::Not(Box::new(self.unary()?)))
            }
            Some((col, Tok::Open)) => {
                self.pos += 1;
                let c = self.or()?;
                if self.peek() != Some(&Tok::Close) {
                    return Err(format!("the \"(\" at column {col} is not closed"));
                }
                self.pos += 1;
                Ok(c)
            }
            Some((_, Tok::Ident(name))) => {
                self.pos += 1;
                Ok(Condition::Property(name))
            }
            Some((col, t)) => Err(format!(
                "expected a property name at column {col}, got {}",
                t.describe()
            )),
            None => Err("the condition ends where a property name is expected".into()),
        }
    }
}

/// The `{metadata.Name}` placeholders of a text, in order.
pub fn placeholders(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    // most texts hold none: one byte scan decides (no substring searcher is built)
    if !text.as_bytes().contains(&b'{') {
        return out;
    }
    let mut rest = text;
    while let Some(start) = rest.find("{metadata.") {
        let after = &rest[start + "{metadata.".len()..];
        match after.find('}') {
            Some(end) => {
                out.push(&after[..end]);
                rest = &after[end + 1..];
            }
            None => break,
        }
    }
    out
}

/// Checks that every placeholder names a plain property.
pub fn check_placeholders(text: &str) -> Result<(), String> {
    for p in placeholders(text) {
        if p.is_empty() || !p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!(
                "placeholder {{metadata.{p}}} must name one property (letters, digits, _)"
            ));
        }
    }
    Ok(())
}

/// Checks one text that may hold placeholders: each must name one property, and, when a
/// metadata schema is declared (`props`), one of its properties. Without a schema (`None`)
/// this is seed 004's plain form: no metadata type checking, the text renders from the
/// metadata given at run time.
pub fn check_text(text: &str, props: Option<&[String]>) -> Result<(), String> {
    // most texts hold none: one scan decides for both checks below
    if !text.as_bytes().contains(&b'{') {
        return Ok(());
    }
    check_placeholders(text)?;
    for name in placeholders(text) {
        match props {
            Some(props) if props.iter().any(|p| p == name) => {}
            Some(props) => {
                return Err(format!(
                    "placeholder {{metadata.{name}}} names no property of the metadata schema (known: {})",
                    props.join(", ")
                ))
            }
            None => {}
        }
    }
    Ok(())
}

/// Whether any `title` or `description` text in a JSON document (a schema, a registry
/// document) holds a placeholder.
pub fn json_has_placeholders(v: &Value) -> bool {
    match v {
        Value::Object(o) => o.iter().any(|(k, x)| match x {
            Value::String(s) if is_text_key(k) => s.contains("{metadata."),
            _ => !is_data_key(k) && json_has_placeholders(x),
        }),
        Value::Array(a) => a.iter().any(json_has_placeholders),
        _ => false,
    }
}

/// Renders the placeholders of every `title` and `description` text of a JSON document (a
/// schema, a registry document); values (`default`, `enum`, `const`, `examples`) are data
/// and stay as they are.
pub fn render_json(v: &mut Value, metadata: &Value) {
    match v {
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                match x {
                    Value::String(s) if is_text_key(k) => {
                        if s.contains("{metadata.") {
                            *s = render(s, metadata);
                        }
                    }
                    _ if is_data_key(k) => {}
                    _ => render_json(x, metadata),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| render_json(x, metadata)),
        _ => {}
    }
}

fn is_text_key(k: &str) -> bool {
    matches!(k, "title" | "description")
}

fn is_data_key(k: &str) -> bool {
    matches!(k, "default" | "enum" | "const" | "examples" | "example")
}

/// Replaces `{metadata.Name}` with the metadata's value (strings as is, other values as
/// JSON, missing as empty text).
pub fn render(text: &str, metadata: &Value) -> String {
    if !text.contains("{metadata.") {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{metadata.") {
        out.push_str(&rest[..start]);
        let after = &rest[start + "{metadata.".len()..];
        match after.find('}') {
            Some(end) => {
                match metadata.get(&after[..end]) {
                    Some(Value::String(s)) => out.push_str(s),
                    Some(Value::Null) | None => {}
                    Some(v) => out.push_str(&v.to_string()),
                }
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_and_evaluates_the_seed_forms() {
        let m = json!({"HasAdvancedFeatures": true, "A": true, "B": false, "X": 0, "Y": "yes"});
        assert!(Condition::parse("HasAdvancedFeatures").unwrap().eval(&m));
        assert!(Condition::parse("A && !B").unwrap().eval(&m));
        assert!(Condition::parse("X || Y").unwrap().eval(&m));
        assert!(!Condition::parse("!(A || X) && Y").unwrap().eval(&m));
        assert!(!Condition::parse("Missing").unwrap().eval(&m));
        assert_eq!(
            Condition::parse("A && !(B || C)").unwrap().properties(),
            ["A", "B", "C"]
        );
    }

    #[test]
    fn anything_else_is_refused_with_where() {
        assert_eq!(Condition::parse("A & B").unwrap_err(), "unexpected \"&\" at column 2; a condition uses property names, !, &&, || and parentheses");
        assert!(Condition::parse("A == 1").is_err());
        assert!(Condition::parse("(A").unwrap_err().contains("not closed"));
        assert!(Condition::parse("A B")
            .unwrap_err()
            .contains("unexpected \"B\""));
        assert!(Condition::parse("").is_err());
        assert!(Condition::parse("A &&").unwrap_err().contains("ends"));
    }

    #[test]
    fn json_texts_render_but_data_stays() {
        let m = json!({"Shop": "Contoso"});
        let mut v = json!({"title": "Orders of {metadata.Shop}", "properties": {
            "description": {"type": "string", "description": "at {metadata.Shop}", "default": "{metadata.Shop}"},
            "kind": {"enum": ["{metadata.Shop}"]}}});
        assert!(json_has_placeholders(&v));
        render_json(&mut v, &m);
        assert_eq!(
            v,
            json!({"title": "Orders of Contoso", "properties": {
                "description": {"type": "string", "description": "at Contoso", "default": "{metadata.Shop}"},
                "kind": {"enum": ["{metadata.Shop}"]}}})
        );
        assert!(!json_has_placeholders(&v));
        assert!(!json_has_placeholders(&json!({"default": "{metadata.X}"})));
    }

    #[test]
    fn texts_are_checked_against_the_declared_metadata() {
        let props = vec!["Shop".to_string()];
        assert!(check_text("at {metadata.Shop}", Some(&props)).is_ok());
        assert!(check_text("no placeholder", None).is_ok());
        assert_eq!(
            check_text("at {metadata.Store}", Some(&props)).unwrap_err(),
            "placeholder {metadata.Store} names no property of the metadata schema (known: Shop)"
        );
        // the plain form: without a schema any well-formed name is accepted
        assert!(check_text("at {metadata.Shop}", None).is_ok());
        assert!(check_text("at {metadata.Sh op}", None)
            .unwrap_err()
            .contains("must name one property"));
    }

    #[test]
    fn placeholders_render_with_metadata() {
        let m = json!({"ProviderName": "Bing", "Max": 5});
        assert_eq!(
            placeholders("Search using {metadata.ProviderName} up to {metadata.Max}"),
            ["ProviderName", "Max"]
        );
        assert_eq!(
            render(
                "Search using {metadata.ProviderName} up to {metadata.Max}",
                &m
            ),
            "Search using Bing up to 5"
        );
        assert_eq!(render("{metadata.Missing}!", &m), "!");
        assert!(check_placeholders("{metadata.a b}").is_err());
    }
}
