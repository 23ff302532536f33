//! Instruction counts of the scenarios, for a machine too busy for wall-clock figures:
//! each scenario's measured part runs inside `measured`, and `ci/bench.sh` runs this
//! binary under `valgrind --tool=callgrind --collect-atstart=no --toggle-collect=instructions::measured*`,
//! so callgrind counts exactly that part, on every thread that enters it (the worker of
//! the asynchronous scenarios wraps its own part too). Counts are repeatable to a fraction
//! of a percent whatever else the machine runs; they are not nanoseconds (no cache misses,
//! no waiting), so ratios are taken between counts only.
//!
//! `instructions SCENARIO ITERATIONS` runs one scenario; `instructions --list` names them.

#[path = "../examples/demo/app.rs"]
mod app;
mod scenarios;

use appfunctions::export::Format;
use scenarios::*;
use std::hint::black_box;

/// The part of a scenario callgrind counts (the name is what `--toggle-collect` matches).
#[inline(never)]
fn measured<T>(f: impl FnOnce() -> T) -> T {
    black_box(f())
}

const SCENARIOS: &[&str] = &[
    "floor_value",
    "floor_typed",
    "execute_plain",
    "execute_two_delegates",
    "execute_async_inline",
    "execute_async_inline_untimed",
    "execute_async_inline_token",
    "execute_two_delegates_entity",
    "execute_patterns",
    "execute_patterns_none",
    "async_handoff_floor",
    "execute_async_completion",
    "register_10k",
    "export_first_10k_mcp",
    "export_first_10k_openai",
    "export_first_10k_openai_chat",
    "export_first_10k_anthropic",
    "export_first_10k_gemini",
    "export_first_10k_android_xml",
    "export_android_xml_10k",
    "export_mcp_1k",
    "view_tools_1k_expanded",
    "mcp_call_demo",
    "mcp_call_trivial",
];

fn format_of(name: &str) -> Format {
    name.replace('_', "-").parse().expect("a format")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--list") {
        for s in SCENARIOS {
            println!("{s}");
        }
        return;
    }
    let (Some(name), Some(n)) = (
        args.get(1),
        args.get(2).and_then(|n| n.parse::<usize>().ok()),
    ) else {
        eprintln!("usage: instructions SCENARIO ITERATIONS | --list");
        std::process::exit(2);
    };
    let inv = invocation(c"create_order");
    match name.as_str() {
        "floor_value" => (0..n).for_each(|_| {
            measured(floor_value);
        }),
        "floor_typed" => (0..n).for_each(|_| {
            measured(floor_typed);
        }),
        "execute_plain" => {
            let d = setup(0);
            (0..100).for_each(|_| execute(d, &inv, ARGS));
            (0..n).for_each(|_| measured(|| execute(d, &inv, ARGS)));
        }
        "execute_async_inline" => {
            let d = setup(0);
            (0..100).for_each(|_| execute_async_inline(d, &inv, ARGS));
            (0..n).for_each(|_| measured(|| execute_async_inline(d, &inv, ARGS)));
        }
        "execute_async_inline_untimed" => {
            let d = setup(0);
            let inv = invocation_untimed(c"create_order");
            (0..100).for_each(|_| execute_async_inline(d, &inv, ARGS));
            (0..n).for_each(|_| measured(|| execute_async_inline(d, &inv, ARGS)));
        }
        "execute_async_inline_token" => {
            let d = setup(0);
            let t = CancelTokenKept::new();
            let inv = t.invocation(c"create_order");
            (0..100).for_each(|_| execute_async_inline(d, &inv, ARGS));
            (0..n).for_each(|_| measured(|| execute_async_inline(d, &inv, ARGS)));
        }
        "execute_two_delegates" => {
            let d = setup(2);
            (0..100).for_each(|_| execute(d, &inv, ARGS));
            (0..n).for_each(|_| measured(|| execute(d, &inv, ARGS)));
        }
        "execute_two_delegates_entity" => {
            let d = setup(2);
            let e = entity();
            (0..100).for_each(|_| execute(d, &e.inv, &e.args));
            (0..n).for_each(|_| measured(|| execute(d, &e.inv, &e.args)));
        }
        "execute_patterns" | "execute_patterns_none" => {
            let d = setup_patterns(name == "execute_patterns");
            let inv = invocation(c"sign_up");
            (0..100).for_each(|_| execute(d, &inv, SIGN_UP_ARGS));
            (0..n).for_each(|_| measured(|| execute(d, &inv, SIGN_UP_ARGS)));
        }
        "async_handoff_floor" => {
            let h = Handoff::with_worker_wrap(measured_worker);
            (0..100).for_each(|_| {
                h.run();
            });
            (0..n).for_each(|_| {
                measured(|| h.run());
            });
        }
        "execute_async_completion" => {
            let a = AsyncCompletion::with_worker_wrap(measured_worker);
            (0..100).for_each(|_| a.run());
            (0..n).for_each(|_| measured(|| a.run()));
        }
        "register_10k" => {
            let descs: Vec<String> = (0..10_000).map(|i| descriptor(i, None)).collect();
            black_box(register_all(&descs[..100]));
            (0..n).for_each(|_| {
                black_box(measured(|| register_all(&descs)));
            });
        }
        s if s.starts_with("export_first_10k_") => {
            let f = format_of(&s["export_first_10k_".len()..]);
            (0..n).for_each(|_| {
                let d = build(10_000, 0);
                black_box(measured(|| d.export(f).unwrap()));
            });
        }
        "export_android_xml_10k" => {
            let d = build(10_000, 0);
            black_box(d.export(Format::AndroidXml).unwrap());
            (0..n).for_each(|_| {
                black_box(measured(|| d.export(Format::AndroidXml).unwrap()));
            });
        }
        "export_mcp_1k" => {
            let d = build(1_000, 50);
            black_box(d.export(Format::Mcp).unwrap());
            (0..n).for_each(|_| {
                black_box(measured(|| d.export(Format::Mcp).unwrap()));
            });
        }
        "view_tools_1k_expanded" => {
            let d = build(1_000, 50);
            let v = expanded_view(&d, 50);
            black_box(v.tools(Format::Mcp).unwrap());
            (0..n).for_each(|_| {
                black_box(measured(|| v.tools(Format::Mcp).unwrap()));
            });
        }
        "mcp_call_demo" => {
            let a = app::build();
            let c = McpCall::new(&a.dispatcher);
            (0..100).for_each(|_| {
                black_box(c.run());
            });
            (0..n).for_each(|_| {
                black_box(measured(|| c.run()));
            });
        }
        "mcp_call_trivial" => {
            let d = mcp_trivial(app::TYPES, app::CREATE_ORDER);
            let c = McpCall::new(&d);
            (0..100).for_each(|_| {
                black_box(c.run());
            });
            (0..n).for_each(|_| {
                black_box(measured(|| c.run()));
            });
        }
        other => {
            eprintln!("unknown scenario {other}; --list names them");
            std::process::exit(2);
        }
    }
}

/// The worker's side of an asynchronous scenario, counted too.
#[inline(never)]
fn measured_worker(f: &mut dyn FnMut()) {
    f()
}
