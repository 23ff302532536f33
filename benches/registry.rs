//! Registry scale: registration, look-up, af_registry_json and every export at 10,
//! 1,000 and 10,000 functions; and an agent view of 1,000 functions in 50 toolkits
//! rendered to MCP.

use appfunctions::export::Format;
use appfunctions::view::View;
use appfunctions::{sync_handler, Dispatcher, Invocation};
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use serde_json::json;

fn descriptor(i: usize, toolkit: Option<usize>) -> String {
    let mut d = json!({
        "id": format!("function_{i}"),
        "title": format!("Function {i}"),
        "description": format!("Does thing number {i} for the user."),
        "parameters": [
            {"name": "customer", "type": "string", "description": "Who"},
            {"name": "quantity", "type": "int32"},
            {"name": "priority", "type": {"enum": "Priority"}, "default": "Normal"}
        ],
        "result": {"record": "Order"}
    });
    if let Some(t) = toolkit {
        d["toolkit"] = json!(format!("toolkit_{t}"));
    }
    d.to_string()
}

pub fn build(n: usize, toolkits: usize) -> Dispatcher {
    let d = Dispatcher::new();
    d.define_types(r#"{"enums":[{"name":"Priority","members":["Low","Normal","High"]}],
        "records":[{"name":"Order","fields":[{"name":"id","type":"string"},{"name":"priority","type":{"enum":"Priority"}}]}]}"#)
        .unwrap();
    for t in 0..toolkits {
        d.define_toolkit(
            &json!({"name": format!("toolkit_{t}"), "description": format!("Toolkit {t}")})
                .to_string(),
            None,
        )
        .unwrap();
    }
    let h = sync_handler(|_| Ok(Some(r#"{"id":"o","priority":"Low"}"#.into())));
    for i in 0..n {
        let tk = (toolkits > 0).then(|| i % toolkits);
        d.register_function(&descriptor(i, tk), Some(h.clone()))
            .unwrap();
    }
    d
}

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("registry");
    g.sample_size(10);
    for n in [10usize, 1_000, 10_000] {
        let descs: Vec<String> = (0..n).map(|i| descriptor(i, None)).collect();
        g.bench_with_input(BenchmarkId::new("register", n), &n, |b, _| {
            b.iter(|| {
                let d = Dispatcher::new();
                d.define_types(r#"{"enums":[{"name":"Priority","members":["Low","Normal","High"]}],
                    "records":[{"name":"Order","fields":[{"name":"id","type":"string"},{"name":"priority","type":{"enum":"Priority"}}]}]}"#).unwrap();
                let h = sync_handler(|_| Ok(None));
                for s in &descs {
                    d.register_function(s, Some(h.clone())).unwrap();
                }
                black_box(d)
            })
        });
        let d = build(n, 0);
        let inv = Invocation::new(format!("function_{}", n / 2));
        g.bench_with_input(BenchmarkId::new("execute_lookup", n), &n, |b, _| {
            b.iter(|| black_box(d.execute(&inv, Some(r#"{"customer":"a","quantity":1}"#))))
        });
        g.bench_with_input(BenchmarkId::new("registry_json", n), &n, |b, _| {
            b.iter(|| black_box(d.registry_json()))
        });
        for f in Format::ALL {
            g.bench_with_input(
                BenchmarkId::new(format!("export_{}", f.name()), n),
                &n,
                |b, _| b.iter(|| black_box(d.export(f).unwrap())),
            );
        }
    }
    // the first export after registration, when no entry has rendered its tool yet
    g.bench_function("export_mcp_cold/10000", |b| {
        b.iter_batched(
            || build(10_000, 0),
            |d| black_box(d.export(Format::Mcp).unwrap()),
            criterion::BatchSize::PerIteration,
        )
    });
    let d = build(1_000, 50);
    let v = View::new(&d, json!({})).unwrap();
    v.execute("toolkit_3", None);
    v.execute("toolkit_7", None);
    g.bench_function("view_tools_mcp_1000_in_50_toolkits", |b| {
        b.iter(|| black_box(v.tools(Format::Mcp).unwrap()))
    });
    g.finish();
}

criterion_group!(registry, benches);
criterion_main!(registry);
