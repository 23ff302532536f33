//! af_execute_json through the C ABI, called from Rust, beside the floors measured in the
//! same run: serde_json parsing the same arguments into a tree and serialising the outcome
//! (the Value floor); serde deriving a borrowed struct of them and `write!` of the outcome
//! (the typed floor); and, for a call completed from another thread, a plain two-thread
//! hand-off of one message with the same synchronisation primitives (the hand-off floor).
//! Run with `cargo bench -p appfunctions-benches --bench execute` (ci/bench.sh collects the figures).

mod scenarios;

use appfunctions::ffi::*;
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use scenarios::*;

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("execute");
    g.bench_function("floor_serde_json", |b| b.iter(|| black_box(floor_value())));
    g.bench_function("floor_typed", |b| b.iter(|| black_box(floor_typed())));

    let plain = setup(0);
    let inv = invocation(c"create_order");
    g.bench_function("plain", |b| b.iter(|| execute(plain, &inv, ARGS)));

    g.bench_function("async_inline", |b| {
        b.iter(|| execute_async_inline(plain, &inv, ARGS))
    });
    let untimed = invocation_untimed(c"create_order");
    g.bench_function("async_inline_untimed", |b| {
        b.iter(|| execute_async_inline(plain, &untimed, ARGS))
    });
    // with a token kept for many calls, as Kotlin's suspend execute and Swift's await make them
    let kept = CancelTokenKept::new();
    let with_token = kept.invocation(c"create_order");
    g.bench_function("async_inline_token", |b| {
        b.iter(|| execute_async_inline(plain, &with_token, ARGS))
    });

    let two = setup(2);
    g.bench_function("two_delegates", |b| b.iter(|| execute(two, &inv, ARGS)));

    let e = entity();
    g.bench_function("two_delegates_entity", |b| {
        b.iter(|| execute(two, &e.inv, &e.args))
    });

    let refused = setup_refusing();
    g.bench_function("refused", |b| b.iter(|| execute(refused, &inv, ARGS)));

    // completed asynchronously from another thread, and its floor
    let handoff = Handoff::new();
    g.bench_function("async_handoff_floor", |b| {
        b.iter(|| black_box(handoff.run()))
    });
    let a = AsyncCompletion::new();
    g.bench_function("async_completion", |b| b.iter(|| a.run()));

    let bad = c"{\"customer\":\"acme\",\"quantity\":\"two\",\"priority\":\"Normal\"}";
    g.bench_function("invalid_argument", |b| b.iter(|| execute(plain, &inv, bad)));
    g.finish();
    drop(a);
    drop(handoff);
    unsafe {
        af_dispatcher_free(plain);
        af_dispatcher_free(two);
        af_dispatcher_free(refused);
    }
}

criterion_group!(execute_group, benches);
criterion_main!(execute_group);
