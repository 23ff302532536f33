//! Each registry entry's `<appfunction>` element of the Android XML written straight from
//! its descriptor: the bytes `export::android_xml` writes of the entry's registry document
//! (`FunctionDescriptor::to_json`, its texts rendered), without the document.
//! `tests/export_bytes.rs` and the fuzz target `roundtrip` compare the two.

use super::json::Render;
use crate::export::{self, escape_text_into};
use crate::model::constraints::Constraints;
use crate::model::descriptor::FunctionDescriptor;
use crate::model::types::{Type, TypeSet};
use serde_json::Value;
use std::borrow::Cow;

/// Where a type appears: an entity is its id as a parameter, the object elsewhere.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pos {
    Param,
    Other,
}

const STRING: &str = "<type>8</type>\n";
const REFERENCE: &str = "<type>11</type>\n";

struct Xml<'t> {
    types: &'t TypeSet,
    out: String,
    reached: Vec<String>,
}

/// A text as the registry document's reader takes it: rendered, and absent when blank.
fn shown<'s>(r: &mut Render<'_>, t: Option<&'s str>) -> Option<Cow<'s, str>> {
    t.map(|t| r.text(t)).filter(|t| !t.trim().is_empty())
}

impl Xml<'_> {
    fn pad(&mut self, depth: usize) {
        const SPACES: &str = "                                ";
        let mut n = depth * 4;
        while n > 0 {
            let k = n.min(SPACES.len());
            self.out.push_str(&SPACES[..k]);
            n -= k;
        }
    }

    /// `<name>text</name>`, the text escaped.
    fn leaf(&mut self, depth: usize, name: &str, text: &str) {
        self.pad(depth);
        self.out.push('<');
        self.out.push_str(name);
        self.out.push('>');
        escape_text_into(text, &mut self.out);
        self.out.push_str("</");
        self.out.push_str(name);
        self.out.push_str(">\n");
    }

    /// A leaf whose whole line is fixed text (`<id>unused</id>`, `<type>8</type>`).
    fn line(&mut self, depth: usize, line: &str) {
        self.pad(depth);
        self.out.push_str(line);
    }

    fn open(&mut self, depth: usize, name: &str) {
        self.pad(depth);
        self.out.push('<');
        self.out.push_str(name);
        self.out.push_str(">\n");
    }

    fn close(&mut self, depth: usize, name: &str) {
        self.pad(depth);
        self.out.push_str("</");
        self.out.push_str(name);
        self.out.push_str(">\n");
    }

    /// A `dataTypeMetadata` (or `itemType`, `valueType`) element; `ty` `None` is void.
    #[allow(clippy::too_many_arguments)]
    fn data_type(
        &mut self,
        r: &mut Render<'_>,
        depth: usize,
        element: &str,
        ty: Option<&Type>,
        nullable: bool,
        pos: Pos,
        mut description: Option<String>,
    ) {
        if let Some(Type::Nullable(inner)) = ty {
            return self.data_type(r, depth, element, Some(inner), true, pos, description);
        }
        let types = self.types;
        let mut reference = None;
        let mut members: &[crate::model::types::EnumMember] = &[];
        let mut format = None;
        let code = match ty {
            None => "<type>0</type>\n",
            Some(Type::Boolean) => "<type>1</type>\n",
            Some(Type::Double) => "<type>4</type>\n",
            Some(Type::Int64) => "<type>6</type>\n",
            Some(Type::Int32) => "<type>7</type>\n",
            Some(Type::String) => STRING,
            Some(Type::DateTime) => {
                format = Some("<format>date-time</format>\n");
                STRING
            }
            Some(Type::Date) => {
                format = Some("<format>date</format>\n");
                STRING
            }
            Some(Type::Uuid) => {
                format = Some("<format>uuid</format>\n");
                STRING
            }
            Some(Type::Enum(i)) => {
                let e = &types.enums[*i];
                members = &e.members;
                // the enum's description, then its members', after the slot's own
                let mut d = shown(r, e.description.as_deref())
                    .map(Cow::into_owned)
                    .unwrap_or_default();
                let mut first = true;
                for m in &e.members {
                    if let Some(md) = shown(r, m.description.as_deref()) {
                        if first {
                            if !d.is_empty() {
                                d.push(' ');
                            }
                            first = false;
                        } else {
                            d.push_str("; ");
                        }
                        d.push_str(&m.name);
                        d.push_str(": ");
                        d.push_str(&md);
                    }
                }
                if !d.is_empty() {
                    description = Some(match description {
                        Some(own) => export::with_note(Some(&own), &d),
                        None => d,
                    });
                }
                STRING
            }
            Some(Type::Entity(i)) if pos == Pos::Param => {
                if description.is_none() {
                    let e = &types.entities[*i];
                    let title = shown(r, e.title.as_deref());
                    let name = title.as_deref().unwrap_or(&e.name);
                    description = Some(format!("The id of a {name} entity."));
                }
                STRING
            }
            Some(Type::Record(i)) => {
                reference = Some(types.records[*i].name.as_str());
                REFERENCE
            }
            Some(Type::Entity(i)) => {
                reference = Some(types.entities[*i].name.as_str());
                REFERENCE
            }
            Some(Type::Array(_)) => "<type>10</type>\n",
            Some(Type::Nullable(_)) => unreachable!("handled above"),
        };
        self.open(depth, element);
        if let Some(name) = reference {
            self.reached.push(name.to_owned());
            self.leaf(depth + 1, "dataTypeReference", name);
        }
        self.line(depth + 1, "<id>unused</id>\n");
        self.line(
            depth + 1,
            if nullable {
                "<isNullable>true</isNullable>\n"
            } else {
                "<isNullable>false</isNullable>\n"
            },
        );
        if let Some(Type::Array(inner)) = ty {
            self.data_type(r, depth + 1, "itemType", Some(inner), false, pos, None);
        }
        if let Some(d) = &description {
            self.leaf(depth + 1, "description", d);
        }
        for m in members {
            self.leaf(depth + 1, "enumValues", &m.name);
        }
        if let Some(f) = format {
            self.line(depth + 1, f);
        }
        self.line(depth + 1, code);
        self.close(depth, element);
    }
}

/// A parameter's description followed by its value constraints as sentences.
fn described(description: Option<Cow<'_, str>>, c: Option<&Constraints>) -> Option<String> {
    let Some(c) = c else {
        return description.map(Cow::into_owned);
    };
    let bound = |b: &Option<crate::model::constraints::Bound>| {
        b.as_ref().map(|b| Value::Number(b.json.clone()))
    };
    let notes = [
        ("minimum", bound(&c.minimum)),
        ("exclusiveMinimum", bound(&c.exclusive_minimum)),
        ("maximum", bound(&c.maximum)),
        ("exclusiveMaximum", bound(&c.exclusive_maximum)),
        ("minLength", c.min_length.map(Value::from)),
        ("maxLength", c.max_length.map(Value::from)),
        (
            "pattern",
            c.pattern.as_ref().map(|p| Value::from(p.source())),
        ),
        ("minItems", c.min_items.map(Value::from)),
        ("maxItems", c.max_items.map(Value::from)),
        ("uniqueItems", c.unique_items.then_some(Value::Bool(true))),
    ];
    let mut text = description.map(Cow::into_owned);
    for (key, v) in notes {
        if let Some(note) = v.and_then(|v| export::constraint_note(key, &v)) {
            text = Some(export::with_note(text.as_deref(), &note));
        }
    }
    text
}

/// The `<appfunction>` element of a function (`enabled`: its state now) and the object
/// types it refers to (sorted, once each); texts rendered by `r`. Written in `scratch`
/// (a buffer reused from one function to the next) and copied out at its size.
pub(super) fn element(
    types: &TypeSet,
    d: &FunctionDescriptor,
    enabled: bool,
    r: &mut Render<'_>,
    scratch: &mut String,
) -> (String, Vec<String>) {
    scratch.clear();
    let mut x = Xml {
        types,
        out: std::mem::take(scratch),
        reached: Vec::new(),
    };
    x.open(1, "appfunction");
    x.leaf(2, "id", &d.id);
    x.line(
        2,
        if enabled {
            "<enabledByDefault>true</enabledByDefault>\n"
        } else {
            "<enabledByDefault>false</enabledByDefault>\n"
        },
    );
    let description = shown(r, d.description.as_deref());
    let title = shown(r, d.title.as_deref());
    if let Some(t) = description.or(title) {
        x.leaf(2, "description", &t);
    }
    for p in &d.parameters {
        x.open(2, "parameters");
        let nullable = matches!(p.ty, Type::Nullable(_));
        x.data_type(
            r,
            3,
            "dataTypeMetadata",
            Some(&p.ty),
            nullable,
            Pos::Param,
            None,
        );
        x.line(3, "<id>unused</id>\n");
        x.line(
            3,
            if p.optional {
                "<isRequired>false</isRequired>\n"
            } else {
                "<isRequired>true</isRequired>\n"
            },
        );
        x.leaf(3, "name", &p.name);
        let own = shown(r, p.description.as_deref());
        if let Some(t) = described(own, p.constraints.as_deref()) {
            x.leaf(3, "description", &t);
        }
        x.close(2, "parameters");
    }
    x.open(2, "response");
    x.line(3, "<id>unused</id>\n");
    x.data_type(
        r,
        3,
        "valueType",
        d.result.as_ref(),
        false,
        Pos::Other,
        None,
    );
    x.close(2, "response");
    if d.deprecated {
        x.open(2, "deprecation");
        x.line(3, "<id>unused</id>\n");
        x.line(3, "<message>This function is deprecated.</message>\n");
        x.close(2, "deprecation");
    }
    x.leaf(2, "functionId", &d.id);
    x.close(1, "appfunction");
    x.reached.sort_unstable();
    x.reached.dedup();
    let xml = x.out.as_str().to_owned();
    *scratch = x.out;
    (xml, x.reached)
}
