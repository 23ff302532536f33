//! Registry scale: registration, dropping the dispatcher, look-up, af_registry_json and every export at 10,
//! 1,000 and 10,000 functions; the first export in every format after registering 10,000
//! functions; and an agent view of 1,000 functions in 50 toolkits, every toolkit expanded,
//! beside the cached export of the same functions.

mod scenarios;

use appfunctions::export::Format;
use appfunctions::Invocation;
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use scenarios::*;

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("registry");
    g.sample_size(10);
    for n in [10usize, 1_000, 10_000] {
        let descs: Vec<String> = (0..n).map(|i| descriptor(i, None)).collect();
        // registration alone: the dispatcher is dropped after the clock stops (as the
        // callgrind row `register_10k` counts it), and its drop is timed on its own
        g.bench_with_input(BenchmarkId::new("register", n), &n, |b, _| {
            b.iter_batched(
                || (),
                |()| register_all(&descs),
                criterion::BatchSize::PerIteration,
            )
        });
        g.bench_with_input(BenchmarkId::new("drop", n), &n, |b, _| {
            b.iter_batched(
                || register_all(&descs),
                drop,
                criterion::BatchSize::PerIteration,
            )
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
    // the first export after registration, when no entry has rendered anything yet
    for f in Format::ALL {
        g.bench_function(BenchmarkId::new("export_first_10k", f.name()), |b| {
            b.iter_batched(
                || build(10_000, 0),
                |d| black_box(d.export(f).unwrap()),
                criterion::BatchSize::PerIteration,
            )
        });
    }
    // a view with every toolkit expanded, and the cached export of the same functions
    let d = build(1_000, 50);
    let v = expanded_view(&d, 50);
    g.bench_function("export_mcp_1k_in_50_toolkits", |b| {
        b.iter(|| black_box(d.export(Format::Mcp).unwrap()))
    });
    g.bench_function("view_tools_1k_expanded", |b| {
        b.iter(|| black_box(v.tools(Format::Mcp).unwrap()))
    });
    g.finish();
}

criterion_group!(registry, benches);
criterion_main!(registry);
