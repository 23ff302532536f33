//! `pattern` constraints never panic and are never refused by an engine's own error (one
//! that names nothing): every pattern the generator draws from the
//! constructs of docs/descriptors.md is either registered, and then judges every text
//! without an internal error, or refused naming the parameter, the pattern and the position.
//! node judges what the accepted ones match (the schema lane, examples/schema_corpus.rs).

#[path = "../examples/common/patterns.rs"]
mod patterns;

use appfunctions::{sync_handler, Dispatcher, ErrorCode, Invocation};
use serde_json::json;

#[test]
fn no_pattern_panics_or_reaches_the_engines_own_error() {
    let (mut accepted, mut refused) = (0, 0);
    for p in patterns::draw(0x9E37_79B9_7F4A_7C15).take(10_000) {
        let d = Dispatcher::new();
        let doc = json!({"id": "f", "parameters": [{"name": "s", "type": "string", "pattern": p}]});
        let registered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            d.register_function(&doc.to_string(), Some(sync_handler(|_| Ok(None))))
        }))
        .unwrap_or_else(|_| panic!("registering the pattern {p:?} panicked"));
        match registered {
            Ok(()) => {
                accepted += 1;
                for t in patterns::TEXTS {
                    let args = json!({ "s": t }).to_string();
                    let o = d.execute_outcome(&Invocation::new("f"), Some(&args));
                    assert_ne!(
                        o.error_code,
                        Some(ErrorCode::InternalError),
                        "{p:?} on {t:?}: {o:?}"
                    );
                    if o.error_code == Some(ErrorCode::InvalidArgument) {
                        let m = o.message.unwrap_or_default();
                        assert!(
                            m.contains("does not match the pattern"),
                            "{p:?} on {t:?}: {m}"
                        );
                    }
                }
            }
            Err(e) => {
                refused += 1;
                let e = e.to_string();
                // quoted as written in JSON (cut at 40 characters in the message)
                let quoted: String = serde_json::to_string(&p)
                    .unwrap()
                    .chars()
                    .take(30)
                    .collect();
                assert!(
                    e.starts_with("f.parameters.s.pattern: the pattern ")
                        && e.contains(quoted.trim_end_matches('"'))
                        && e.contains("position")
                        && !e.contains("refuses the pattern"),
                    "{p:?}: {e}"
                );
            }
        }
    }
    // the generator reaches both sides
    assert!(
        accepted > 1_000 && refused > 1_000,
        "{accepted} accepted, {refused} refused"
    );
}
