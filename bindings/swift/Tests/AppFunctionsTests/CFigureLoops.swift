import CAppFunctions
import Foundation

/// The C figure's call (ci/bench.sh's `af_execute_json` plain: benches/execute.rs, `create_order`
/// with three arguments and a handler answering `"ok"`) made from this process straight through
/// the C ABI, with no binding in between: a Swift call of a C function is the C call, and the
/// handler is a `@convention(c)` function. BenchTests times it in the same alternating batches
/// as the binding's loops, so the binding's figures can be divided by a C figure of the same
/// moment and process (as .NET's `SameCallInC` and Kotlin's same-JVM loops do), instead of one
/// taken by criterion in another minute of a shared machine.
///
/// Beside it, the core's own part of what the binding's calls ask of it, on the binding's echo
/// function (one string argument) with a C handler: `executeBlocking`'s `af_execute_json`, and
/// `await execute`'s `af_execute_async` with a cancel token kept for many calls and the default
/// deadline, answered inline (benches/execute.rs's `async_inline_token`).
///
/// And the realistic call made the same way (`realisticBatch`), the C app doing what the Swift
/// one of BenchTests does: scope hooks attaching the call's store as host data, the sign-in
/// delegate's `on_invoking` reading the function id, the telemetry delegate's `on_invoked`
/// reading the id, the platform and the outcome, the handler reading its arguments and its
/// store and answering a string, through `af_execute_async` with the kept token.
final class CFigureLoops {
    private let d: OpaquePointer
    /// The realistic call's dispatcher.
    private let r: OpaquePointer
    private let echoScoped: UnsafeMutablePointer<CChar>
    private let token: OpaquePointer
    /// C strings this object owns (freed in deinit): the function ids and the arguments.
    private let createOrder: UnsafeMutablePointer<CChar>
    private let echo: UnsafeMutablePointer<CChar>
    private let orderArgs: UnsafeMutablePointer<CChar>
    private let echoArgs: UnsafeMutablePointer<CChar>

    init() {
        d = af_dispatcher_new()
        token = af_cancel_token_new()
        createOrder = strdup("create_order")
        echo = strdup("echo")
        orderArgs = strdup(#"{"customer":"acme","quantity":2,"priority":"Normal"}"#)
        echoArgs = strdup(#"{"text":"hi"}"#)
        r = af_dispatcher_new()
        echoScoped = strdup("echo_scoped")
        // the criterion scenario's types and descriptor (benches/scenarios.rs), the Swift echo's
        precondition(af_define_types(d, #"{"enums":[{"name":"Priority","members":["Low","Normal","High"]}]}"#) == AF_OK)
        let ok: af_handler_fn = { _, call in
            let answer: StaticString = #""ok""#
            af_call_return(call, UnsafeRawPointer(answer.utf8Start).assumingMemoryBound(to: CChar.self))
        }
        let order = #"{"id":"create_order","parameters":[{"name":"customer","type":"string"},{"name":"quantity","type":"int32"},{"name":"priority","type":{"enum":"Priority"}}],"result":"string"}"#
        precondition(af_register_function(d, order, ok, nil, nil) == AF_OK)
        let echoDescriptor = #"{"id":"echo","parameters":[{"name":"text","type":"string"}],"result":"string"}"#
        precondition(af_register_function(d, echoDescriptor, ok, nil, nil) == AF_OK)
        // both answer success (what the loops below assume)
        for id in [createOrder, echo] {
            let out = af_execute_json(d, [invocation(id, token: nil)], id == echo ? echoArgs : orderArgs)!
            precondition(String(cString: out).hasPrefix(#"{"status":"success""#), String(cString: out))
            af_string_free(out)
        }

        let scoped: af_handler_fn = { _, call in
            // its argument and its store, then the answer (the text and the store's name)
            let args = af_call_args(call)!
            let store = af_call_host_data(call)!.assumingMemoryBound(to: CChar.self)
            precondition(args.pointee == CChar(UInt8(ascii: "{")) && store.pointee == CChar(UInt8(ascii: "o")))
            let answer: StaticString = #""hiorders""#
            af_call_return(call, UnsafeRawPointer(answer.utf8Start).assumingMemoryBound(to: CChar.self))
        }
        let scopedDescriptor = #"{"id":"echo_scoped","parameters":[{"name":"text","type":"string"}],"result":"string"}"#
        precondition(af_register_function(r, scopedDescriptor, scoped, nil, nil) == AF_OK)
        let begin: af_scope_fn = { _, call in
            _ = af_call_set_host_data(call, UnsafeMutableRawPointer(mutating: CFigureLoops.store.utf8Start), nil)
        }
        let end: af_scope_fn = { _, call in
            precondition(af_call_host_data(call) != nil)
        }
        precondition(af_set_scope_hooks(r, begin, end, nil, nil) == AF_OK)
        var signIn = af_delegate()
        signIn.struct_size = UInt32(MemoryLayout<af_delegate>.size)
        signIn.on_invoking = { _, call, gate in
            if strcmp(af_call_function_id(call), "cancel_order") == 0 {
                af_gate_open_app(gate, "Sign in to cancel orders.")
            } else {
                af_gate_allow(gate)
            }
        }
        precondition(af_add_delegate(r, &signIn, nil) == AF_OK)
        var telemetry = af_delegate()
        telemetry.struct_size = UInt32(MemoryLayout<af_delegate>.size)
        telemetry.on_invoked = { _, call, outcome in
            CFigureLoops.seen &+= Int(strlen(af_call_function_id(call)!)) &+ Int(af_call_platform(call))
                &+ (strncmp(outcome!, #"{"status":"success""#, 19) == 0 ? 1 : 0)
        }
        precondition(af_add_delegate(r, &telemetry, nil) == AF_OK)
        let out = af_execute_json(r, [invocation(echoScoped, token: nil)], echoArgs)!
        precondition(String(cString: out).hasPrefix(#"{"status":"success","result":"hiorders""#), String(cString: out))
        af_string_free(out)
    }

    /// The realistic call's store (what its scope hooks attach).
    private static let store: StaticString = "orders"
    /// What the telemetry read (kept so the reads stay; calls run one at a time).
    nonisolated(unsafe) private static var seen = 0

    deinit {
        af_dispatcher_free(d)
        af_dispatcher_free(r)
        af_cancel_token_free(token)
        for p in [createOrder, echo, orderArgs, echoArgs, echoScoped] { free(p) }
    }

    /// The criterion scenario's invocation (benches/scenarios.rs: platform other, not in the
    /// foreground, the default timeout), with `token`.
    private func invocation(_ id: UnsafePointer<CChar>, token: OpaquePointer?) -> af_invocation {
        var inv = af_invocation()
        inv.struct_size = UInt32(MemoryLayout<af_invocation>.size)
        inv.platform = AF_PLATFORM_OTHER
        inv.function_id = id
        inv.cancel_token = token
        return inv
    }

    /// `n` calls of the C figure's call (`af_execute_json`, then `af_string_free`), in ns per call.
    func figureBatch(_ n: Int) -> Double { jsonBatch(n, createOrder, orderArgs) }

    /// `n` calls of the echo through `af_execute_json`, in ns per call: what the binding's
    /// `executeBlocking` asks of the core.
    func echoBatch(_ n: Int) -> Double { jsonBatch(n, echo, echoArgs) }

    private func jsonBatch(_ n: Int, _ id: UnsafePointer<CChar>, _ args: UnsafePointer<CChar>) -> Double {
        var inv = invocation(id, token: nil)
        return Self.timed(n) {
            af_string_free(af_execute_json(d, &inv, args))
        }
    }

    /// `n` calls of the echo through `af_execute_async` with the kept token, answered inline, in
    /// ns per call: what the binding's `await execute` asks of the core.
    func asyncEchoBatch(_ n: Int) -> Double { asyncBatch(n, d, echo) }

    /// `n` realistic calls the same way (as the binding's `await execute` makes them), in ns per
    /// call.
    func realisticBatch(_ n: Int) -> Double { asyncBatch(n, r, echoScoped) }

    private func asyncBatch(_ n: Int, _ dispatcher: OpaquePointer, _ id: UnsafePointer<CChar>) -> Double {
        var inv = invocation(id, token: token)
        var first: UInt8 = 0
        let onOutcome: af_outcome_fn = { userData, json in
            // what a binding does with the outcome: hold on to it (here, its first byte)
            userData!.storeBytes(of: UInt8(bitPattern: json!.pointee), as: UInt8.self)
        }
        return Self.timed(n) {
            first = 0
            precondition(af_execute_async(dispatcher, &inv, echoArgs, onOutcome, &first) == AF_OK)
            precondition(first == UInt8(ascii: "{"), "the call answered inline")
        }
    }

    private static func timed(_ n: Int, _ call: () -> Void) -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<n { call() }
        let elapsed = clock.now - start
        return (Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9) / Double(n)
    }
}
