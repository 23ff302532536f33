//! Exports of deep or shared record graphs (issue 28): Gemini, which has no references and
//! inlines every record, refuses a declaration past its documented limits instead of
//! recursing without bound (a chain overflowed the stack; a diamond grew exponentially);
//! the formats with `$defs` write every record once, whatever the graph. Sizes are
//! counted, never timed.

use appfunctions::export::Format;

/// The Gemini export's documented limits (docs/robustness.md, "Input limits").
const GEMINI_MAX_INLINE_DEPTH: usize = 32;
const GEMINI_MAX_INLINED_TYPES: usize = 1000;
use appfunctions::Dispatcher;

/// `R0 -> R1 -> … -> R{n-1}`: each record holds `width` fields of the next one.
fn graph(n: usize, width: usize) -> Dispatcher {
    let mut records = Vec::new();
    for i in 0..n {
        let mut fields = vec![format!(r#"{{"name":"label","type":"string"}}"#)];
        if i + 1 < n {
            for w in 0..width {
                fields.push(format!(
                    r#"{{"name":"next{w}","type":{{"record":"R{}"}},"optional":true}}"#,
                    i + 1
                ));
            }
        }
        records.push(format!(
            r#"{{"name":"R{i}","fields":[{}]}}"#,
            fields.join(",")
        ));
    }
    let d = Dispatcher::new();
    d.define_types(&format!(r#"{{"records":[{}]}}"#, records.join(",")))
        .unwrap();
    d.register_function(
        r#"{"id":"take","description":"Takes the root.","kind":"output","parameters":[{"name":"root","type":{"record":"R0"}}]}"#,
        None,
    )
    .unwrap();
    d
}

#[test]
fn gemini_refuses_records_nested_deeper_than_its_limit_and_names_it() {
    // within the limit: inlined
    let d = graph(GEMINI_MAX_INLINE_DEPTH, 1);
    let text = d.export(Format::Gemini).unwrap();
    assert_eq!(text.matches("\"label\":{").count(), GEMINI_MAX_INLINE_DEPTH);
    // past it (a 30,000-record chain once overflowed an 8 MiB stack): refused, named
    let e = graph(GEMINI_MAX_INLINE_DEPTH + 1, 1)
        .export(Format::Gemini)
        .unwrap_err()
        .to_string();
    assert!(e.contains("nested more than 32 named types deep"), "{e}");
    let e = graph(1_000, 1)
        .export(Format::Gemini)
        .unwrap_err()
        .to_string();
    assert!(e.contains("nested more than 32"), "{e}");
}

#[test]
fn gemini_refuses_a_declaration_that_would_inline_more_than_its_limit() {
    // two fields of the next record, 20 levels: 2^20 inlined records (30 levels once
    // passed 2 GB and aborted)
    let e = graph(20, 2).export(Format::Gemini).unwrap_err().to_string();
    assert!(
        e.contains(&format!("more than {GEMINI_MAX_INLINED_TYPES} named types")),
        "{e}"
    );
    // a small diamond is still inlined: 2^0 + … + 2^8 = 511 records
    let text = graph(9, 2).export(Format::Gemini).unwrap();
    assert_eq!(text.matches("\"label\":{").count(), 511);
}

#[test]
fn formats_with_defs_write_each_record_of_a_deep_or_shared_graph_once() {
    for (n, width) in [(1_000, 1), (30, 2)] {
        let d = graph(n, width);
        for format in [Format::Mcp, Format::OpenAi, Format::Anthropic] {
            let text = d.export(format).unwrap();
            // every record once in $defs (MCP: of the input and of the output schema): the
            // size is linear in the graph, not in its paths
            let copies = if format == Format::Mcp { 2 } else { 1 };
            assert_eq!(
                text.matches("\"label\":{").count(),
                n * copies,
                "{format} of {n}x{width}"
            );
            assert!(
                text.len() < copies * n * (200 + 120 * width),
                "{format}: {} bytes",
                text.len()
            );
        }
    }
}

#[test]
fn every_other_format_of_a_deep_or_shared_graph_is_linear_in_its_size() {
    for (n, width) in [(1_000, 1), (30, 2)] {
        let d = graph(n, width);
        for format in Format::ALL {
            if format == Format::Gemini {
                continue;
            }
            let text = d
                .export(format)
                .unwrap_or_else(|e| panic!("{format} of {n}x{width}: {e}"));
            // (Android XML: about 1.2 KB per record; a path-sized output of the 30-level
            // diamond would be 2^30 records)
            assert!(
                text.len() < 10_000 + n * width * 1_500,
                "{format} of {n}x{width}: {} bytes",
                text.len()
            );
        }
    }
}
