#![allow(non_snake_case)]
//! Agent views, a test per sentence of seed 004's sections on collapsing, instructions,
//! output tools, conditional functions and return types.

use appfunctions::export::Format;
use appfunctions::view::{ToolkitText, ToolkitTexts, View};
use appfunctions::{sync_handler, Dispatcher, ErrorCode};
use serde_json::{json, Value};
use std::sync::Arc;

fn ok_handler() -> Option<Arc<dyn appfunctions::Handler>> {
    Some(sync_handler(|_| Ok(Some("\"ok\"".into()))))
}

fn files() -> Dispatcher {
    let d = Dispatcher::new();
    d.define_toolkit(r#"{"name":"file_system","description":"File operations for reading, writing, and managing files"}"#, None).unwrap();
    d.define_toolkit(r#"{"name":"database","description":"Database operations",
        "functionResult":"Available: Query, Insert, Update, Delete. Always use transactions for multiple operations.",
        "systemPrompt":"CRITICAL: Never execute DELETE without a WHERE clause."}"#, None).unwrap();
    d.define_toolkit(r#"{"name":"plain"}"#, None).unwrap();
    for (id, tk) in [
        ("read_file", "file_system"),
        ("write_file", "file_system"),
        ("delete_file", "file_system"),
        ("query", "database"),
        ("ungrouped_helper", "plain"),
    ] {
        d.register_function(
            &json!({"id": id, "toolkit": tk, "result": "string"}).to_string(),
            ok_handler(),
        )
        .unwrap();
    }
    d.register_function(r#"{"id":"add","result":"int32","parameters":[{"name":"a","type":"int32"},{"name":"b","type":"int32"}]}"#,
        Some(sync_handler(|c| { let v: Value = serde_json::from_str(c.args().unwrap()).unwrap(); Ok(Some((v["a"].as_i64().unwrap() + v["b"].as_i64().unwrap()).to_string())) }))).unwrap();
    d
}

fn names(v: &View) -> Vec<String> {
    let tools: Value = serde_json::from_str(&v.tools(Format::Mcp).unwrap()).unwrap();
    tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn collapse__a_toolkit_with_a_description_is_one_container_until_called() {
    let v = View::new(&files(), json!({})).unwrap();
    assert_eq!(
        names(&v),
        ["file_system", "database", "ungrouped_helper", "add"]
    );
    let tools: Value = serde_json::from_str(&v.tools(Format::Mcp).unwrap()).unwrap();
    assert_eq!(
        tools[0]["description"],
        "File operations for reading, writing, and managing files"
    );
    assert_eq!(tools[0]["inputSchema"]["properties"], json!({}));
}

#[test]
fn collapse__without_a_description_the_toolkit_functions_are_always_visible() {
    let v = View::new(&files(), json!({})).unwrap();
    assert!(names(&v).contains(&"ungrouped_helper".to_string()));
    assert_eq!(
        v.execute("ungrouped_helper", None)
            .outcome
            .result
            .as_deref(),
        Some("\"ok\"")
    );
}

#[test]
fn collapse__calling_the_container_expands_it_and_a_collapsed_function_is_not_found() {
    let v = View::new(&files(), json!({})).unwrap();
    let o = v.execute("read_file", None).outcome;
    assert_eq!(o.error_code, Some(ErrorCode::FunctionNotFound));
    assert!(o.message.unwrap().contains("call file_system first"));
    let vo = v.execute("file_system", None);
    assert_eq!(vo.expanded.as_deref(), Some("file_system"));
    assert_eq!(
        names(&v),
        [
            "read_file",
            "write_file",
            "delete_file",
            "database",
            "ungrouped_helper",
            "add"
        ]
    );
    assert!(v.execute("read_file", None).outcome.is_success());
    v.reset();
    assert_eq!(names(&v)[0], "file_system");
}

#[test]
fn collapse_with_instructions__function_result_comes_once_per_expansion() {
    let v = View::new(&files(), json!({})).unwrap();
    let first = v.execute("database", None);
    assert_eq!(first.outcome.result.as_deref(), Some("\"Available: Query, Insert, Update, Delete. Always use transactions for multiple operations.\""));
    let again = v.execute("database", None);
    assert!(again.expanded.is_none());
    assert!(!again.outcome.result.unwrap().contains("transactions"));
    v.reset();
    assert!(v
        .execute("database", None)
        .outcome
        .result
        .unwrap()
        .contains("transactions"));
}

#[test]
fn collapse_with_instructions__system_prompt_every_turn_while_expanded() {
    let v = View::new(&files(), json!({})).unwrap();
    assert_eq!(v.instructions(), "");
    v.execute("database", None);
    assert_eq!(
        v.instructions(),
        "CRITICAL: Never execute DELETE without a WHERE clause."
    );
    assert_eq!(
        v.instructions(),
        "CRITICAL: Never execute DELETE without a WHERE clause."
    );
    v.reset();
    assert_eq!(v.instructions(), "");
}

struct Searchers;
impl ToolkitTexts for Searchers {
    fn text(&self, _toolkit: &str, which: ToolkitText, metadata: &Value) -> Option<String> {
        match which {
            ToolkitText::FunctionResult => Some(format!(
                "Available: {}",
                metadata["searchers"].as_str().unwrap_or("none")
            )),
            ToolkitText::SystemPrompt => {
                Some("Always prefer exact matches over fuzzy matches.".into())
            }
        }
    }
}

#[test]
fn dynamic_instructions__texts_come_from_the_host_when_needed() {
    let d = Dispatcher::new();
    d.define_toolkit(
        r#"{"name":"search","description":"Search operations"}"#,
        Some(Arc::new(Searchers)),
    )
    .unwrap();
    d.register_function(
        r#"{"id":"web_search","toolkit":"search","result":"string"}"#,
        ok_handler(),
    )
    .unwrap();
    let v = View::new(&d, json!({"searchers": "web, news"})).unwrap();
    assert_eq!(
        v.execute("search", None).outcome.result.as_deref(),
        Some("\"Available: web, news\"")
    );
    assert_eq!(
        v.instructions(),
        "Always prefer exact matches over fuzzy matches."
    );
}

#[test]
fn dynamic_descriptions__placeholders_render_with_metadata_and_follow_updates() {
    let d = Dispatcher::new();
    d.set_metadata_schema(r#"["ProviderName","HasAdvancedFeatures"]"#)
        .unwrap();
    d.register_function(
        r#"{"id":"search","description":"Search using {metadata.ProviderName}","result":"string"}"#,
        ok_handler(),
    )
    .unwrap();
    let v = View::new(&d, json!({"ProviderName": "Bing"})).unwrap();
    let tools: Value = serde_json::from_str(&v.tools(Format::OpenAi).unwrap()).unwrap();
    assert_eq!(tools[0]["description"], "Search using Bing");
    v.set_metadata(json!({"ProviderName": "Kagi"})).unwrap();
    let tools: Value = serde_json::from_str(&v.tools(Format::Anthropic).unwrap()).unwrap();
    assert_eq!(tools[0]["description"], "Search using Kagi");
}

#[test]
fn generic_form__unknown_metadata_properties_are_refused_at_registration() {
    let d = Dispatcher::new();
    d.set_metadata_schema(r#"{"type":"object","properties":{"FeatureEnabled":{"type":"boolean"},"ProviderName":{"type":"string"}}}"#).unwrap();
    let e = d
        .register_function(
            r#"{"id":"a","condition":"FeatureEnabled && Missing"}"#,
            ok_handler(),
        )
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("\"Missing\" is not a property of the metadata schema"),
        "{e}"
    );
    let e = d
        .register_function(
            r#"{"id":"b","description":"Uses {metadata.Provider}"}"#,
            ok_handler(),
        )
        .unwrap_err();
    assert!(e.to_string().contains("{metadata.Provider}"), "{e}");
    let e = d
        .define_toolkit(r#"{"name":"t","description":"for {metadata.Nope}"}"#, None)
        .unwrap_err();
    assert!(e.to_string().contains("{metadata.Nope}"), "{e}");
    let e = d
        .register_function(
            r#"{"id":"c","condition":"FeatureEnabled == true"}"#,
            ok_handler(),
        )
        .unwrap_err();
    assert!(e.to_string().starts_with("c.condition:"), "{e}");
}

#[test]
fn conditional_functions__visible_only_when_the_condition_holds() {
    let d = Dispatcher::new();
    d.register_function(r#"{"id":"advanced_search","condition":"HasAdvancedFeatures && !ReadOnly","description":"Advanced search with filters","result":"string"}"#, ok_handler()).unwrap();
    let v = View::new(&d, json!({"HasAdvancedFeatures": false})).unwrap();
    assert!(names(&v).is_empty());
    let o = v.execute("advanced_search", None).outcome;
    assert_eq!(o.error_code, Some(ErrorCode::FunctionNotFound));
    assert!(o
        .message
        .unwrap()
        .contains("HasAdvancedFeatures && !ReadOnly"));
    v.set_metadata(json!({"HasAdvancedFeatures": true}))
        .unwrap();
    assert_eq!(names(&v), ["advanced_search"]);
    assert!(v.execute("advanced_search", None).outcome.is_success());
}

#[test]
fn toolkind_output__arguments_are_the_result_and_the_run_is_final() {
    let d = Dispatcher::new();
    d.define_types(r#"{"records":[{"name":"WeatherReport","fields":[{"name":"city","type":"string"},{"name":"tempCelsius","type":"double"},{"name":"condition","type":"string"}]}]}"#).unwrap();
    d.register_function(r#"{"id":"report","kind":"output","result":{"record":"WeatherReport"},"parameters":[
        {"name":"city","type":"string","description":"City name"},{"name":"tempCelsius","type":"double"},{"name":"condition","type":"string"}]}"#, None).unwrap();
    let v = View::new(&d, json!({})).unwrap();
    let o = v
        .execute(
            "report",
            Some(r#"{"city":"Paris","tempCelsius":21.5,"condition":"sunny"}"#),
        )
        .outcome;
    assert!(o.is_final);
    assert_eq!(
        serde_json::from_str::<Value>(o.result.as_deref().unwrap()).unwrap(),
        json!({"city":"Paris","tempCelsius":21.5,"condition":"sunny"})
    );
    let bad = v
        .execute(
            "report",
            Some(r#"{"city":"Paris","tempCelsius":"warm","condition":"sunny"}"#),
        )
        .outcome;
    assert_eq!(bad.error_code, Some(ErrorCode::InvalidArgument));
    assert!(!bad.is_final);
    // output functions never need a handler; normal ones do
    assert!(d
        .register_function(r#"{"id":"needs_handler"}"#, None)
        .is_err());
}

#[test]
fn return_types__void_confirms_complex_results_are_json() {
    let d = Dispatcher::new();
    d.register_function(
        r#"{"id":"log_message","parameters":[{"name":"message","type":"string"}]}"#,
        Some(sync_handler(|_| Ok(None))),
    )
    .unwrap();
    d.define_types(r#"{"records":[{"name":"WeatherResult","fields":[{"name":"temperature","type":"int32"},{"name":"condition","type":"string"}]}]}"#).unwrap();
    d.register_function(r#"{"id":"get_weather","parameters":[{"name":"city","type":"string"}],"result":{"record":"WeatherResult"}}"#,
        Some(sync_handler(|_| Ok(Some(r#"{"temperature":72,"condition":"Sunny"}"#.into()))))).unwrap();
    let v = View::new(&d, json!({})).unwrap();
    let vo = v.execute("log_message", Some(r#"{"message":"hi"}"#));
    assert!(vo.void_result && vo.outcome.result.is_none());
    assert_eq!(
        vo.outcome.dialog.as_deref(),
        Some(appfunctions::view::DEFAULT_CONFIRMATION)
    );
    v.set_confirmation("Logged.");
    assert_eq!(
        v.execute("log_message", Some(r#"{"message":"hi"}"#))
            .outcome
            .dialog
            .as_deref(),
        Some("Logged.")
    );
    let o = v
        .execute("get_weather", Some(r#"{"city":"Paris"}"#))
        .outcome;
    assert_eq!(
        o.result.as_deref(),
        Some(r#"{"temperature":72,"condition":"Sunny"}"#)
    );
}

#[test]
fn custom_names__the_id_is_the_name_everywhere_and_the_symbol_is_kept() {
    let d = Dispatcher::new();
    d.register_function(r#"{"id":"search_web","symbol":"PerformWebSearch","parameters":[{"name":"query","type":"string"}],"result":"string"}"#, ok_handler()).unwrap();
    let reg: Value = serde_json::from_str(&d.registry_json()).unwrap();
    assert_eq!(reg["functions"][0]["symbol"], "PerformWebSearch");
    let v = View::new(&d, json!({})).unwrap();
    assert_eq!(names(&v), ["search_web"]);
}

#[test]
fn generation_changes_with_what_the_view_shows() {
    let d = files();
    let v = View::new(&d, json!({})).unwrap();
    let g = v.generation();
    assert_ne!(g, 0);
    assert_eq!(v.generation(), g, "reading does not change it");
    v.execute("file_system", None);
    let g2 = v.generation();
    assert_ne!(g2, g, "an expansion");
    v.reset();
    let g3 = v.generation();
    assert_ne!(g3, g2, "a reset");
    v.set_metadata(json!({"x": 1})).unwrap();
    let g4 = v.generation();
    assert_ne!(g4, g3, "a metadata change");
    d.set_enabled("query", false).unwrap();
    let g5 = v.generation();
    assert_ne!(g5, g4, "disabling a function");
    d.register_function(r#"{"id":"late_one"}"#, ok_handler())
        .unwrap();
    assert_ne!(v.generation(), g5, "a registration");
}

#[test]
fn execute_async_through_a_view() {
    let d = files();
    d.register_function(r#"{"id":"touch"}"#, Some(sync_handler(|_| Ok(None))))
        .unwrap();
    let v = View::new(&d, json!({})).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let inv = appfunctions::Invocation::new("ignored");
    for name in ["database", "touch", "read_file"] {
        let tx = tx.clone();
        v.execute_async(name, None, &inv, move |vo| tx.send(vo).unwrap());
    }
    let expanded = rx.recv().unwrap();
    assert_eq!(expanded.expanded.as_deref(), Some("database"));
    let touched = rx.recv().unwrap();
    assert!(touched.void_result && touched.outcome.dialog.is_some());
    let hidden = rx.recv().unwrap();
    assert_eq!(hidden.outcome.error_code, Some(ErrorCode::FunctionNotFound));
}

/// A view lists the registry export's own tool object for each function it shows (the
/// per-entry fragment the export keeps), renders again only what the metadata changes,
/// and adds its containers, in every JSON format.
#[test]
fn view_tools_are_the_exports_fragments_plus_containers_and_rendered_texts() {
    let d = files();
    d.set_metadata_schema(r#"{"properties":{"user":{"type":"string","default":"someone"}}}"#)
        .unwrap();
    d.register_function(
        r#"{"id":"greet","description":"Greets {metadata.user}.","parameters":[{"name":"how","type":"string","description":"How to greet {metadata.user}"}],"result":"string"}"#,
        ok_handler(),
    )
    .unwrap();
    let v = View::new(&d, json!({"user": "Ada"})).unwrap();
    v.execute("database", None);
    for f in Format::ALL.into_iter().filter(|f| f.is_json()) {
        let tools_of = |text: &str| -> Vec<Value> {
            let v: Value = serde_json::from_str(text).unwrap();
            match f {
                Format::Gemini => v[0]["functionDeclarations"].as_array().unwrap().clone(),
                _ => v.as_array().unwrap().clone(),
            }
        };
        let name_of = |t: &Value| -> String {
            let t = if f == Format::OpenAiChat {
                &t["function"]
            } else {
                t
            };
            t["name"].as_str().unwrap().to_owned()
        };
        let exported = tools_of(&d.export(f).unwrap());
        let shown = tools_of(&v.tools(f).unwrap());
        let names: Vec<String> = shown.iter().map(name_of).collect();
        assert_eq!(
            names,
            ["file_system", "query", "ungrouped_helper", "add", "greet"],
            "{f}"
        );
        for t in &shown {
            let name = name_of(t);
            let text = t.to_string();
            match name.as_str() {
                "file_system" => assert!(text.contains("File operations"), "{f}: {text}"),
                "greet" => {
                    // rendered with the view's metadata, in the description and the schema
                    assert_eq!(text.matches("Ada").count(), 2, "{f}: {text}");
                    assert!(
                        !text.contains("someone") && !text.contains("{metadata"),
                        "{f}: {text}"
                    );
                }
                _ => {
                    let e = exported.iter().find(|e| name_of(e) == name).unwrap();
                    assert_eq!(t, e, "{f}: {name} differs from the export's");
                }
            }
        }
        appfunctions::export::check(f, &v.tools(f).unwrap()).unwrap();
    }
}
