//! A tiny XML writer and a well-formedness checker (enough for the AppFunctions schema XML:
//! elements, text, attributes, comments, processing instructions, CDATA, character and the
//! five predefined entity references; DTDs are refused).

/// Whether `c` may appear in an XML 1.0 document.
pub(crate) fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || (c >= ' ' && c != '\u{FFFE}' && c != '\u{FFFF}')
}

/// Escapes text content. Characters XML 1.0 cannot carry at all (control characters other
/// than tab, newline and carriage return; U+FFFE; U+FFFF) become U+FFFD. A carriage return is
/// written as `&#13;` so that it survives end-of-line normalisation.
#[cfg(test)]
pub(crate) fn escape_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    escape_text_into(s, &mut out);
    out
}

/// [`escape_text`] into an existing string.
pub(crate) fn escape_text_into(s: &str, out: &mut String) {
    // the common case: printable ASCII (and tab, newline) with nothing to escape (one
    // pass without branches says so)
    if !s.bytes().fold(false, |special, b| {
        special | !matches!(b, b'\t' | b'\n' | 0x20..=0x7e) | matches!(b, b'&' | b'<' | b'>')
    }) {
        out.push_str(s);
        return;
    }
    if s.chars()
        .all(|c| !matches!(c, '&' | '<' | '>' | '\r') && is_xml_char(c))
    {
        out.push_str(s);
        return;
    }
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\r' => out.push_str("&#13;"),
            c if !is_xml_char(c) => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
}

/// An element of a parsed document: name, child elements in order, concatenated text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Element {
    pub name: String,
    /// The attributes in document order, values decoded.
    pub attributes: Vec<(String, String)>,
    pub children: Vec<Element>,
    pub text: String,
}

impl Element {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
    pub fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }
    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }
}

/// Parses a document, checking well-formedness; returns the root element.
pub(crate) fn parse(doc: &str) -> Result<Element, String> {
    let mut p = Parser {
        s: doc.strip_prefix('\u{FEFF}').unwrap_or(doc),
        pos: 0,
    };
    if let Some(c) = p.s.chars().find(|c| !is_xml_char(*c)) {
        return Err(format!("character {c:?} is not allowed in XML 1.0"));
    }
    if p.rest().starts_with("<?xml") {
        p.skip_pi()?;
    }
    p.misc()?;
    if !p.rest().starts_with('<') {
        return Err(p.err("expected the root element"));
    }
    let root = p.element()?;
    p.misc()?;
    if p.pos != p.s.len() {
        return Err(p.err("content after the root element"));
    }
    Ok(root)
}

struct Parser<'a> {
    s: &'a str,
    pos: usize,
}

fn name_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || c == ':' || !c.is_ascii()
}

fn name_char(c: char) -> bool {
    name_start(c) || c.is_ascii_digit() || c == '-' || c == '.'
}

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        &self.s[self.pos..]
    }

    fn err(&self, what: &str) -> String {
        let line = self.s[..self.pos].matches('\n').count() + 1;
        format!("line {line}: {what}")
    }

    fn skip_ws(&mut self) {
        let r = self.rest();
        self.pos += r.len() - r.trim_start_matches([' ', '\t', '\n', '\r']).len();
    }

    fn skip_until(&mut self, end: &str, what: &str) -> Result<&'a str, String> {
        let r = self.rest();
        let i = r
            .find(end)
            .ok_or_else(|| self.err(&format!("unterminated {what}")))?;
        self.pos += i + end.len();
        Ok(&r[..i])
    }

    fn skip_pi(&mut self) -> Result<(), String> {
        self.skip_until("?>", "processing instruction").map(|_| ())
    }

    /// Whitespace, comments and processing instructions outside the root.
    fn misc(&mut self) -> Result<(), String> {
        loop {
            self.skip_ws();
            let r = self.rest();
            if r.starts_with("<!--") {
                self.pos += 4;
                let body = self.skip_until("-->", "comment")?;
                if body.contains("--") {
                    return Err(self.err("`--` inside a comment"));
                }
            } else if r.starts_with("<?") {
                self.skip_pi()?;
            } else if r.starts_with("<!") {
                return Err(self.err("DTDs are not accepted"));
            } else {
                return Ok(());
            }
        }
    }

    fn name(&mut self) -> Result<String, String> {
        let r = self.rest();
        let mut chars = r.char_indices();
        match chars.next() {
            Some((_, c)) if name_start(c) => {}
            _ => return Err(self.err("expected a name")),
        }
        let end = chars
            .find(|(_, c)| !name_char(*c))
            .map_or(r.len(), |(i, _)| i);
        self.pos += end;
        Ok(r[..end].to_string())
    }

    fn element(&mut self) -> Result<Element, String> {
        self.pos += 1; // '<'
        let name = self.name()?;
        let mut attributes = Vec::<(String, String)>::new();
        loop {
            let before = self.pos;
            self.skip_ws();
            let r = self.rest();
            if let Some(stripped) = r.strip_prefix("/>") {
                let _ = stripped;
                self.pos += 2;
                return Ok(Element {
                    name,
                    attributes,
                    children: vec![],
                    text: String::new(),
                });
            }
            if r.starts_with('>') {
                self.pos += 1;
                break;
            }
            if self.pos == before {
                return Err(self.err("expected whitespace before an attribute"));
            }
            let attr = self.name()?;
            if attributes.iter().any(|(a, _)| *a == attr) {
                return Err(self.err(&format!("repeated attribute `{attr}`")));
            }
            self.skip_ws();
            if !self.rest().starts_with('=') {
                return Err(self.err("expected `=` after an attribute name"));
            }
            self.pos += 1;
            self.skip_ws();
            let quote = self
                .rest()
                .chars()
                .next()
                .filter(|c| *c == '"' || *c == '\'');
            let quote = quote.ok_or_else(|| self.err("attribute values must be quoted"))?;
            self.pos += 1;
            let value = self.skip_until(&quote.to_string(), "attribute value")?;
            if value.contains('<') {
                return Err(self.err("`<` in an attribute value"));
            }
            let value = check_references(value).map_err(|e| self.err(&e))?;
            attributes.push((attr, value));
        }
        let mut children = Vec::new();
        let mut text = String::new();
        loop {
            let r = self.rest();
            if r.is_empty() {
                return Err(self.err(&format!("`<{name}>` is not closed")));
            }
            if r.starts_with("</") {
                self.pos += 2;
                let close = self.name()?;
                if close != name {
                    return Err(self.err(&format!("`<{name}>` closed by `</{close}>`")));
                }
                self.skip_ws();
                if !self.rest().starts_with('>') {
                    return Err(self.err("expected `>`"));
                }
                self.pos += 1;
                return Ok(Element {
                    name,
                    attributes,
                    children,
                    text,
                });
            } else if r.starts_with("<!--") {
                self.pos += 4;
                let body = self.skip_until("-->", "comment")?;
                if body.contains("--") {
                    return Err(self.err("`--` inside a comment"));
                }
            } else if r.starts_with("<![CDATA[") {
                self.pos += 9;
                text.push_str(self.skip_until("]]>", "CDATA section")?);
            } else if r.starts_with("<?") {
                self.skip_pi()?;
            } else if r.starts_with('<') {
                children.push(self.element()?);
            } else {
                let end = r.find('<').unwrap_or(r.len());
                let raw = &r[..end];
                if raw.contains("]]>") {
                    return Err(self.err("`]]>` in text"));
                }
                text.push_str(&check_references(raw).map_err(|e| self.err(&e))?);
                self.pos += end;
            }
        }
    }
}

/// Validates `&…;` references in text; returns the decoded text.
fn check_references(raw: &str) -> Result<String, String> {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let end = after
            .find(';')
            .ok_or("`&` without `;`: escape it as &amp;")?;
        let entity = &after[..end];
        let decoded = match entity {
            "lt" => '<',
            "gt" => '>',
            "amp" => '&',
            "quot" => '"',
            "apos" => '\'',
            _ => {
                let code = if let Some(hex) = entity.strip_prefix("#x") {
                    u32::from_str_radix(hex, 16).ok()
                } else if let Some(dec) = entity.strip_prefix('#') {
                    dec.parse().ok()
                } else {
                    return Err(format!("unknown entity `&{entity};`"));
                };
                code.and_then(char::from_u32)
                    .filter(|c| is_xml_char(*c))
                    .ok_or_else(|| format!("bad character reference `&{entity};`"))?
            }
        };
        out.push(decoded);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_round_trips() {
        let nasty = "a < b && c > d \"q\" 'a' ]]> \u{1}\r\n😀";
        let doc = format!(
            "<?xml version=\"1.0\"?>\n<r><t>{}</t></r>",
            escape_text(nasty)
        );
        let root = parse(&doc).unwrap();
        assert_eq!(
            root.child("t").unwrap().text,
            nasty.replace('\u{1}', "\u{FFFD}")
        );
    }

    #[test]
    fn rejects_malformed_documents() {
        for bad in [
            "",
            "<a>",
            "<a></b>",
            "<a>x & y</a>",
            "<a>&nbsp;</a>",
            "<a>1 < 2</a>",
            "<a/><b/>",
            "<!DOCTYPE a><a/>",
            "<a><b></a></b>",
            "<a>\u{1}</a>",
            "<a x=1/>",
            "<a>&#0;</a>",
            "<1a/>",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} should be refused");
        }
        for good in [
            "<a/>",
            "<a x='1' y=\"2\"><!-- c --><b>t&amp;&#x41;</b></a>",
            "\u{FEFF}<?xml version=\"1.0\"?><a><![CDATA[<x>]]></a>",
        ] {
            parse(good).unwrap();
        }
    }
}
