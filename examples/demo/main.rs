//! The demo host: the seeds' orders and notes apps on the public Rust API.
//!
//!   cargo run --example demo                 registry, a schema, outcomes of calls
//!   cargo run --example demo -- mcp          serve the app as an MCP server over stdio
//!   cargo run --example demo -- export FMT   print an export (mcp, openai, openai-chat,
//!                                            anthropic, gemini, android-xml)
//!   cargo run --example demo -- agent        an agent's view, step by step
//!   cargo run --example demo -- bundle       the app's descriptor bundle
//!   cargo run --example demo -- --help       the commands

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

/// `demo mcp [--metadata-file PATH]`: serves the demo app over stdio. With a metadata
/// file, the app's metadata (the view's properties: `ShopName`, `HasAdvancedFeatures`)
/// is read from it at start and again whenever it changes, as a real host would change
/// it when its user signs in or flips a setting: the tool list follows, and clients get
/// `notifications/tools/list_changed`.
fn serve_mcp(args: &[String]) {
    let metadata_file = match args {
        [] => None,
        [flag, path] if flag == "--metadata-file" => Some(std::path::PathBuf::from(path)),
        _ => {
            eprintln!("usage: demo mcp [--metadata-file PATH]\n\n{USAGE}");
            std::process::exit(2);
        }
    };
    let app = app::build();
    let config = appfunctions::mcp::McpConfig {
        server_name: "appfunctions-demo".into(),
        server_title: Some("appfunctions demo: orders and notes".into()),
        instructions: Some(
            "Tools of a small shop: orders (with an order entity) and notes.".into(),
        ),
        ..Default::default()
    };
    let read = |path: &std::path::Path| -> Option<serde_json::Value> {
        let text = std::fs::read_to_string(path).ok()?;
        match serde_json::from_str(&text) {
            Ok(v) => Some(v),
            Err(e) => {
                eprintln!("appfunctions demo: {}: {e}", path.display());
                None
            }
        }
    };
    let initial = metadata_file
        .as_deref()
        .and_then(read)
        .unwrap_or_else(|| serde_json::json!({"ShopName": "the demo shop"}));
    let session =
        appfunctions::mcp::Session::new(&app.dispatcher, config, initial.clone()).expect("session");
    if let Some(path) = metadata_file {
        let weak = std::sync::Arc::downgrade(&session);
        std::thread::spawn(move || {
            let mut last = Some(initial);
            while let Some(s) = weak.upgrade() {
                let now = read(&path);
                if now.is_some() && now != last {
                    if let Err(e) = s.view().set_metadata(now.clone().unwrap_or_default()) {
                        eprintln!("appfunctions demo: {}: {e}", path.display());
                    }
                    last = now;
                }
                drop(s);
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        });
    }
    eprintln!("appfunctions demo: serving MCP on stdio (signed out: cancel_order asks to sign in)");
    if let Err(e) = appfunctions::mcp::stdio::serve_stdio(session) {
        eprintln!("appfunctions demo: {e}");
        std::process::exit(1);
    }
}

fn export(format: Option<&str>) {
    let Some(name) = format else {
        eprintln!("usage: demo export FORMAT   (mcp, openai, openai-chat, anthropic, gemini, android-xml)");
        std::process::exit(2);
    };
    let format: appfunctions::export::Format = match name.parse() {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let app = app::build();
    match app.dispatcher.export(format) {
        Ok(text) => println!("{text}"),
        Err(e) => {
            eprintln!("export failed: {e}");
            std::process::exit(1);
        }
    }
}

fn agent() {
    use appfunctions::export::Format;
    use appfunctions::view::View;
    let app = app::build();
    let view = View::new(
        &app.dispatcher,
        serde_json::json!({"HasAdvancedFeatures": true, "ShopName": "Acme Shop"}),
    )
    .expect("view");
    let names = |v: &View| -> Vec<String> {
        let tools: Value = serde_json::from_str(&v.tools(Format::Mcp).unwrap()).unwrap();
        tools
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    println!("══ 1. The tools before expansion (the orders toolkit is one container)\n");
    for n in names(&view) {
        println!("  {n}");
    }
    let container: Value = serde_json::from_str(&view.tools(Format::Mcp).unwrap()).unwrap();
    if let Some(c) = container
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "orders")
    {
        println!("\n  orders: {}", c["description"].as_str().unwrap_or(""));
    }
    println!("\n── calling order_stats while collapsed:");
    println!("  {}", view.execute("order_stats", None).outcome.to_json());

    println!("\n══ 2. The model calls the container `orders`\n");
    let vo = view.execute("orders", None);
    println!("  outcome: {}", vo.outcome.to_json());
    println!(
        "  expanded: {}",
        vo.expanded.as_deref().unwrap_or("(nothing)")
    );

    println!("\n══ 3. The tools after expansion\n");
    for n in names(&view) {
        println!("  {n}");
    }

    println!("\n══ 4. The instructions for the system prompt (every turn while expanded)\n");
    println!("  {}", view.instructions());

    println!("\n── the model uses the toolkit:");
    println!(
        "  order_stats -> {}",
        view.execute("order_stats", None).outcome.to_json()
    );
    println!(
        "  find_orders -> {}",
        view.execute("find_orders", Some(r#"{"minQuantity":5}"#))
            .outcome
            .to_json()
    );
    view.set_metadata(serde_json::json!({"HasAdvancedFeatures": false, "ShopName": "Acme Shop"}))
        .unwrap();
    println!(
        "  (advanced features switched off) find_orders -> {}",
        view.execute("find_orders", Some("{}")).outcome.to_json()
    );

    println!("\n══ 5. A final structured output (output tool: no handler runs; the arguments are the result)\n");
    let vo = view.execute(
        "report_order_summary",
        Some(r#"{"openOrders":2,"busiestCustomer":"globex"}"#),
    );
    println!("{}", pretty(&vo.outcome.to_json()));
}

/// `demo --help`: the commands.
const USAGE: &str = "\
appfunctions demo: the seeds' orders and notes apps on the public Rust API

usage: demo [COMMAND]

commands:
  tour            the registry, a schema and the outcomes of calls (the default)
  mcp [--metadata-file PATH]
                  serve the app as an MCP server over stdio (newline-delimited JSON-RPC);
                  with a metadata file, the app's metadata is read from it, and again
                  whenever it changes (the tool list follows)
  export FORMAT   print an export: mcp, openai, openai-chat, anthropic, gemini, android-xml
  agent           an agent's view, step by step: a collapsed toolkit, its expansion, an
                  output tool
  bundle          print the app's descriptor bundle (what `appfunctions export --bundle`
                  makes every export from, without a running app)
  help            this text (also -h, --help)

with cargo: cargo run --example demo -- COMMAND";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None | Some("tour") => tour(),
        Some("mcp") => serve_mcp(&args[1..]),
        Some("export") => export(args.get(1).map(String::as_str)),
        Some("agent") => agent(),
        Some("bundle") => println!(
            "{}",
            pretty(&appfunctions::bundle::of(&app::build().dispatcher).to_string())
        ),
        Some("help" | "-h" | "--help") => println!("{USAGE}"),
        Some(other) => {
            eprintln!("unknown command {other:?}\n\n{USAGE}");
            std::process::exit(2);
        }
    }
}
