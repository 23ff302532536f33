//! The demo host: the seeds' orders and notes apps on the public Rust API.
//!
//!   cargo run --example demo                 registry, a schema, outcomes of calls
//!   cargo run --example demo -- mcp          serve the app as an MCP server over stdio
//!   cargo run --example demo -- export FMT   print an export (mcp, openai, openai-chat,
//!                                            anthropic, gemini, android-xml)
//!   cargo run --example demo -- agent        an agent's view, step by step

mod app;

use appfunctions::{Invocation, Platform};
use serde_json::Value;

fn pretty(json: &str) -> String {
    serde_json::from_str::<Value>(json)
        .map(|v| serde_json::to_string_pretty(&v).unwrap_or_default())
        .unwrap_or_else(|_| json.to_owned())
}

fn show(title: &str, inv: &Invocation, args: &str, d: &appfunctions::Dispatcher) {
    println!("── {title}");
    println!(
        "   {} on {} {}",
        inv.function_id,
        inv.platform.as_str(),
        args
    );
    let outcome = d.execute(inv, Some(args));
    println!("{}\n", pretty(&outcome));
}

fn tour() {
    let app = app::build();
    let d = &app.dispatcher;

    println!("══ The registry (declared functions, then generated ones)\n");
    let reg: Value = serde_json::from_str(&d.registry_json()).unwrap();
    for f in reg["functions"].as_array().unwrap() {
        let params: Vec<String> = f["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                format!(
                    "{}{}",
                    p["name"].as_str().unwrap(),
                    if p["optional"] == true { "?" } else { "" }
                )
            })
            .collect();
        println!(
            "  {:<14} ({}) -> {}   {}",
            f["id"].as_str().unwrap(),
            params.join(", "),
            f["result"],
            f["description"].as_str().unwrap_or("")
        );
    }

    println!("\n══ The parameters schema of create_order (JSON Schema 2020-12)\n");
    println!(
        "{}\n",
        serde_json::to_string_pretty(&d.parameters_schema("create_order").unwrap()).unwrap()
    );

    println!("══ Calls\n");
    show(
        "A successful call",
        &Invocation::new("create_order"),
        r#"{"customer":"acme","quantity":2,"priority":"Normal"}"#,
        d,
    );
    show(
        "An invalid argument",
        &Invocation::new("create_order"),
        r#"{"customer":"acme","quantity":"two"}"#,
        d,
    );
    show(
        "An unknown function",
        &Invocation::new("create_ordr"),
        "{}",
        d,
    );
    show(
        "The sign-in gate on apple, not in the foreground",
        &Invocation::new("cancel_order").platform(Platform::Apple),
        r#"{"order":"o-1"}"#,
        d,
    );
    show(
        "The same call on android is refused with the message",
        &Invocation::new("cancel_order")
            .platform(Platform::Android)
            .caller("com.google.android.apps.bard"),
        r#"{"order":"o-1"}"#,
        d,
    );
    println!("   (the user signs in in the app; the call runs again in the foreground)\n");
    app.sign_in.set(true);
    show(
        "Rerun in the foreground",
        &Invocation::new("cancel_order")
            .platform(Platform::Apple)
            .foreground(true),
        r#"{"order":"o-1"}"#,
        d,
    );
    show(
        "An entity search",
        &Invocation::new("search_order"),
        r#"{"query":"glob","limit":5}"#,
        d,
    );
    show(
        "An unknown entity id",
        &Invocation::new("cancel_order"),
        r#"{"order":"o-99"}"#,
        d,
    );
    show(
        "A nullable title left unchanged",
        &Invocation::new("edit_note"),
        r#"{"noteId":"1","title":null,"content":"Milk, eggs, bread"}"#,
        d,
    );

    println!("══ What the TelemetryDelegate saw\n");
    for line in app.telemetry.lock().unwrap().iter() {
        println!("  {line}");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None | Some("tour") => tour(),
        Some(other) => {
            eprintln!("unknown command {other:?}; use: (nothing) | mcp | export FORMAT | agent");
            std::process::exit(2);
        }
    }
}
