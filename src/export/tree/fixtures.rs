//! Test fixtures: schemas shaped like the core's output and a registry document covering
//! every descriptor type.

use crate::export::{Hints, ToolSpec};
use serde_json::Value;

const SCHEMA: &str = "https://json-schema.org/draft/2020-12/schema";

fn parse(text: &str) -> Value {
    serde_json::from_str(&text.replace("$SCHEMA", SCHEMA)).expect("fixture JSON")
}

const PRIORITY: &str =
    r##"{"type":"string","enum":["Low","Normal","High"],"description":"How urgent an order is"}"##;
const NOTE: &str = r##"{"type":"object","description":"A note.","properties":{
    "id":{"type":"integer","minimum":-2147483648,"maximum":2147483647,"description":"The note's ID."},
    "title":{"type":"string"},
    "tags":{"type":"array","items":{"type":"string"}}},
  "required":["id","title"],"additionalProperties":false}"##;

pub(crate) struct Fixtures {
    create_order_in: Value,
    create_order_out: Value,
    no_params_in: Value,
    list_notes_out: Value,
    set_priority_in: Value,
    walk_tree_in: Value,
    duplicate_null_in: Value,
    pub registry: Value,
}

impl Fixtures {
    pub fn new() -> Self {
        let create_order_in = parse(&format!(
            r##"{{"$schema":"$SCHEMA","title":"Create order","type":"object",
              "properties":{{
                "customer":{{"type":"string","description":"Customer name"}},
                "quantity":{{"type":"integer","minimum":-2147483648,"maximum":2147483647}},
                "total":{{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}},
                "price":{{"type":"number"}},
                "express":{{"type":"boolean"}},
                "priority":{{"$ref":"#/$defs/Priority","default":"Normal"}},
                "note":{{"type":["string","null"]}},
                "when":{{"type":"string","format":"date-time"}},
                "due":{{"type":"string","format":"date"}},
                "ref":{{"type":"string","format":"uuid","description":"Order reference"}},
                "maybe":{{"anyOf":[{{"$ref":"#/$defs/Priority"}},{{"type":"null"}}],"default":null}},
                "tags":{{"type":"array","items":{{"type":"string"}}}},
                "notes":{{"type":"array","items":{{"$ref":"#/$defs/Note"}}}},
                "address":{{"$ref":"#/$defs/Address"}}}},
              "required":["customer","quantity"],"additionalProperties":false,
              "$defs":{{
                "Priority":{PRIORITY},
                "Note":{NOTE},
                "Address":{{"type":"object","properties":{{"street":{{"type":"string"}},"geo":{{"$ref":"#/$defs/Geo"}}}},
                           "required":["street","geo"],"additionalProperties":false}},
                "Geo":{{"type":"object","properties":{{"lat":{{"type":"number"}},"lon":{{"type":"number"}}}},
                       "required":["lat","lon"],"additionalProperties":false}}}}}}"##
        ));
        let create_order_out = parse(
            r##"{"$schema":"$SCHEMA","$ref":"#/$defs/Order","$defs":{"Order":{"type":"object",
                "properties":{"id":{"type":"string"},"customer":{"type":"string"},
                              "quantity":{"type":"integer","minimum":-2147483648,"maximum":2147483647}},
                "required":["id","customer","quantity"],"additionalProperties":false}}}"##,
        );
        let no_params_in = parse(
            r##"{"$schema":"$SCHEMA","type":"object","properties":{},"additionalProperties":false}"##,
        );
        let list_notes_out = parse(&format!(
            r##"{{"$schema":"$SCHEMA","type":"array","items":{{"$ref":"#/$defs/Note"}},"$defs":{{"Note":{NOTE}}}}}"##
        ));
        let set_priority_in = parse(&format!(
            r##"{{"$schema":"$SCHEMA","type":"object",
              "properties":{{
                "level":{{"$ref":"#/$defs/Priority"}},
                "comment":{{"type":["string","null"]}},
                "maybe":{{"anyOf":[{{"$ref":"#/$defs/Priority"}},{{"type":"null"}}],"default":null}},
                "when":{{"type":["string","null"],"format":"date-time","default":null}},
                "tags":{{"type":"array","items":{{"$ref":"#/$defs/Tag"}}}}}},
              "required":["level","tags"],"additionalProperties":false,
              "$defs":{{"Priority":{PRIORITY},
                "Tag":{{"type":"object","properties":{{"label":{{"type":"string"}},"weight":{{"type":["number","null"]}}}},
                       "required":["label"],"additionalProperties":false}}}}}}"##
        ));
        let walk_tree_in = parse(
            r##"{"$schema":"$SCHEMA","type":"object","properties":{"root":{"$ref":"#/$defs/TreeNode"}},
               "required":["root"],"additionalProperties":false,
               "$defs":{"TreeNode":{"type":"object","properties":{"label":{"type":"string"},
                   "children":{"type":"array","items":{"$ref":"#/$defs/TreeNode"}}},
                   "required":["label","children"],"additionalProperties":false}}}"##,
        );
        let duplicate_null_in = parse(
            r##"{"$schema":"$SCHEMA","type":"object","properties":{
                 "p":{"type":["string","null","null"],"enum":["A","B",null],"default":null}},
               "additionalProperties":false}"##,
        );
        let registry = parse(REGISTRY);
        Fixtures {
            create_order_in,
            create_order_out,
            no_params_in,
            list_notes_out,
            set_priority_in,
            walk_tree_in,
            duplicate_null_in,
            registry,
        }
    }

    /// Every parameter type, nested records, arrays of records; record result.
    pub fn create_order(&self) -> ToolSpec<'_> {
        ToolSpec {
            name: "create_order",
            title: Some("Create order"),
            description: "Creates an order for a customer.",
            input_schema: &self.create_order_in,
            output_schema: Some(&self.create_order_out),
            hints: Hints {
                read_only: Some(false),
                destructive: Some(false),
                idempotent: None,
                open_world: None,
            },
            deprecated: false,
        }
    }

    /// No parameters, void.
    pub fn no_params(&self) -> ToolSpec<'_> {
        ToolSpec {
            name: "ping",
            title: Some("Ping"),
            description: "Checks that the app answers.",
            input_schema: &self.no_params_in,
            output_schema: None,
            hints: Hints {
                read_only: Some(true),
                ..Hints::default()
            },
            deprecated: false,
        }
    }

    /// No parameters; an array result (wrapped for MCP).
    pub fn list_notes(&self) -> ToolSpec<'_> {
        ToolSpec {
            name: "list_notes",
            title: Some("List notes"),
            description: "",
            input_schema: &self.no_params_in,
            output_schema: Some(&self.list_notes_out),
            hints: Hints {
                read_only: Some(true),
                idempotent: Some(true),
                ..Hints::default()
            },
            deprecated: true,
        }
    }

    /// Strict-compatible after moving nullable optionals into `required`.
    pub fn set_priority(&self) -> ToolSpec<'_> {
        ToolSpec {
            name: "set_priority",
            title: None,
            description: "Sets the priority.",
            input_schema: &self.set_priority_in,
            output_schema: None,
            hints: Hints::default(),
            deprecated: false,
        }
    }

    /// A self-referencing record.
    pub fn walk_tree(&self) -> ToolSpec<'_> {
        ToolSpec {
            name: "walk_tree",
            title: None,
            description: "Walks a tree.",
            input_schema: &self.walk_tree_in,
            output_schema: None,
            hints: Hints::default(),
            deprecated: false,
        }
    }

    /// A (buggy) input with `["string","null","null"]`: exporters must collapse it.
    pub fn spec_with_duplicate_null(&self) -> ToolSpec<'_> {
        ToolSpec {
            name: "dup_null",
            title: None,
            description: "Nullable enum with default null.",
            input_schema: &self.duplicate_null_in,
            output_schema: None,
            hints: Hints::default(),
            deprecated: false,
        }
    }

    /// `ping` under another name.
    pub fn named<'a>(&'a self, name: &'a str) -> ToolSpec<'a> {
        ToolSpec {
            name,
            ..self.no_params()
        }
    }

    pub fn specs(&self) -> Vec<ToolSpec<'_>> {
        vec![
            self.create_order(),
            self.list_notes(),
            self.no_params(),
            self.set_priority(),
            self.walk_tree(),
        ]
    }
}

/// A normalised registry document (docs/descriptors.md) covering every type.
const REGISTRY: &str = r##"{
  "functions": [
    {"id": "create_order", "title": "Create order",
     "description": "Creates an order for a customer & <friends>.", "symbol": "CreateOrder",
     "parameters": [
       {"name": "customer", "type": "string", "description": "Customer name", "optional": false, "nullable": false},
       {"name": "quantity", "type": "int32", "optional": false, "nullable": false},
       {"name": "total", "type": "int64", "optional": false, "nullable": false},
       {"name": "price", "type": "double", "optional": false, "nullable": false},
       {"name": "express", "type": "boolean", "optional": false, "nullable": false},
       {"name": "priority", "type": {"enum": "Priority"}, "optional": true, "nullable": false, "default": "Normal"},
       {"name": "note", "type": "string", "optional": true, "nullable": true},
       {"name": "when", "type": "dateTime", "optional": false, "nullable": false},
       {"name": "due", "type": "date", "optional": false, "nullable": false},
       {"name": "ref", "type": "uuid", "optional": false, "nullable": false},
       {"name": "maybe", "type": {"nullable": {"enum": "Priority"}}, "optional": true, "nullable": false, "default": null},
       {"name": "tags", "type": {"array": "string"}, "optional": true, "nullable": false},
       {"name": "notes", "type": {"array": {"record": "Note"}}, "optional": false, "nullable": false},
       {"name": "address", "type": {"record": "Address"}, "optional": false, "nullable": false},
       {"name": "order", "type": {"entity": "order"}, "optional": false, "nullable": false}
     ],
     "result": {"record": "Order"}, "opensApp": false, "requiresPermission": false, "kind": "function",
     "toolkit": null, "condition": null, "enabled": true, "deprecated": false,
     "hints": {"readOnly": false, "destructive": false, "idempotent": false, "openWorld": false},
     "callers": {"allow": [], "deny": []}, "generated": false},
    {"id": "list_notes", "title": "List notes", "description": "", "parameters": [],
     "result": {"array": {"nullable": {"record": "Note"}}}, "enabled": false, "deprecated": true, "generated": false},
    {"id": "ping", "title": null, "description": "", "parameters": [], "result": "void",
     "enabled": true, "deprecated": false, "generated": false},
    {"id": "walk_tree", "description": "Walks a tree.",
     "parameters": [{"name": "root", "type": {"record": "TreeNode"}, "optional": false, "nullable": false}],
     "result": "void", "enabled": true, "deprecated": false, "generated": false},
    {"id": "search_order", "description": "Searches orders.",
     "parameters": [{"name": "query", "type": "string", "optional": false, "nullable": false},
                    {"name": "limit", "type": "int32", "optional": true, "nullable": false}],
     "result": {"array": {"entity": "order"}}, "enabled": true, "deprecated": false, "generated": true}
  ],
  "types": {
    "enums": [
      {"name": "Priority", "description": "How urgent an order is",
       "members": [{"name": "Low", "description": null}, {"name": "Normal", "description": "The default"}, "High"]}
    ],
    "records": [
      {"name": "Note", "description": "A note.", "fields": [
        {"name": "id", "type": "int32", "description": "The note's ID."},
        {"name": "title", "type": "string"},
        {"name": "tags", "type": {"array": "string"}, "optional": true}]},
      {"name": "Address", "fields": [
        {"name": "street", "type": "string"},
        {"name": "geo", "type": {"record": "Geo"}}]},
      {"name": "Geo", "fields": [{"name": "lat", "type": "double"}, {"name": "lon", "type": "double"}]},
      {"name": "Order", "fields": [
        {"name": "id", "type": "string"},
        {"name": "status", "type": {"nullable": {"enum": "Priority"}}},
        {"name": "lines", "type": {"array": {"record": "Note"}}},
        {"name": "source", "type": {"entity": "order"}, "description": null, "optional": true, "nullable": false}]},
      {"name": "TreeNode", "fields": [
        {"name": "label", "type": "string"},
        {"name": "children", "type": {"array": {"record": "TreeNode"}}}]},
      {"name": "Unused", "fields": [{"name": "x", "type": "string"}]}
    ]
  },
  "entities": [
    {"name": "order", "title": "Order", "description": "An order of the shop", "idField": "id",
     "fields": [{"name": "id", "type": "string"}, {"name": "customer", "type": "string"},
                {"name": "quantity", "type": "int32"}]}
  ]
}"##;
