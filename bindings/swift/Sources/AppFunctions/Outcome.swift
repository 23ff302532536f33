import CAppFunctions
import Foundation

/// The closed list of error codes, mirrored from the core (`AF_CODE_*`).
public enum AppFunctionErrorCode: String, Sendable, CaseIterable, Codable {
    case functionNotFound = "FunctionNotFound"
    case disabled = "Disabled"
    case invalidArgument = "InvalidArgument"
    case entityNotFound = "EntityNotFound"
    case denied = "Denied"
    case permissionDenied = "PermissionDenied"
    case cancelled = "Cancelled"
    case timedOut = "TimedOut"
    /// The handler reported an error or threw.
    case handlerFailed = "HandlerFailed"
    case limitExceeded = "LimitExceeded"
    case notSupported = "NotSupported"
    case internalError = "InternalError"

    /// The `AF_CODE_*` value.
    public var cValue: Int32 {
        switch self {
        case .functionNotFound: return AF_CODE_FUNCTION_NOT_FOUND
        case .disabled: return AF_CODE_DISABLED
        case .invalidArgument: return AF_CODE_INVALID_ARGUMENT
        case .entityNotFound: return AF_CODE_ENTITY_NOT_FOUND
        case .denied: return AF_CODE_DENIED
        case .permissionDenied: return AF_CODE_PERMISSION_DENIED
        case .cancelled: return AF_CODE_CANCELLED
        case .timedOut: return AF_CODE_TIMED_OUT
        case .handlerFailed: return AF_CODE_HANDLER_FAILED
        case .limitExceeded: return AF_CODE_LIMIT_EXCEEDED
        case .notSupported: return AF_CODE_NOT_SUPPORTED
        case .internalError: return AF_CODE_INTERNAL_ERROR
        }
    }
}

/// Throw this from a handler or entity lookup to end the call with a specific code
/// (any other error becomes `HandlerFailed` with the error's description).
public struct AppFunctionError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: AppFunctionErrorCode
    public var message: String
    /// The core's status when a registration or setup call failed, as its constant is spelled
    /// (`"AF_ERR_DUPLICATE"` for an id registered twice, `"AF_ERR_INVALID"` for a malformed
    /// descriptor...); nil when the error did not come from a status.
    public var status: String?

    public init(_ code: AppFunctionErrorCode, _ message: String, status: String? = nil) {
        self.code = code
        self.message = message
        self.status = status
    }

    /// The id was registered already (`AF_ERR_DUPLICATE`).
    public var isDuplicate: Bool { status == "AF_ERR_DUPLICATE" }

    public var description: String { "\(code.rawValue): \(message)" }
}

/// How a call ended.
public enum AppFunctionStatus: String, Sendable, Codable {
    case success
    case error
    /// Apple: continue in the app (an `openApp` gate or an `opensApp` function, not in the
    /// foreground). Rerun the call with `isForeground: true` once the app is open.
    case openApp
}

/// A call's outcome. `execute` never throws: every failure is an outcome.
public struct AppFunctionOutcome: Sendable, CustomStringConvertible {
    public let status: AppFunctionStatus
    /// The result as the JSON text the core wrote (`nil` when the outcome has none).
    public let resultJSON: String?
    /// Text for the assistant to say (`context.say(_:)`, or the gate's message for openApp).
    public let dialog: String?
    public let errorCode: AppFunctionErrorCode?
    public let message: String?
    /// The whole outcome JSON: `{"status", "result", "dialog", "errorCode", "message"}`.
    public var json: String { storedJSON ?? Self.plainSuccessJSON(resultJSON) }
    /// The outcome's JSON as the core wrote it; nil for a plain success (a result, nothing
    /// else), whose text `json` writes again when asked: most callers never ask.
    private let storedJSON: String?
    /// True for an output tool's outcome: the arguments are the final, structured result and
    /// the agent's run ends here.
    public let isFinal: Bool

    public var isSuccess: Bool { status == .success }

    /// The call asked for the app (`.openApp`: apple, not in the foreground) instead of being
    /// refused: it has not run and may yet run when it is rerun in the foreground. What
    /// `onInvoked` receives says so; for a refusal (`Denied`) it is false.
    public var appRequested: Bool { status == .openApp }

    /// Decodes the result (dates as ISO 8601); throws when there is none or it does not fit.
    public func result<T: Decodable>(as type: T.Type = T.self) throws -> T {
        guard let resultJSON else {
            throw AppFunctionError(errorCode ?? .internalError, message ?? "the outcome has no result")
        }
        return try AppJSON.decode(type, from: resultJSON)
    }

    public var description: String {
        switch status {
        case .success: return "success \(resultJSON ?? "null")" + (dialog.map { " dialog: \($0)" } ?? "")
        case .openApp: return "openApp: \(dialog ?? message ?? "")"
        case .error: return "error \(errorCode?.rawValue ?? "?"): \(message ?? "")"
        }
    }

    init(json: String) {
        var json = json
        let fields = json.withUTF8 { Self.read($0) }
        storedJSON = json
        guard let fields else {
            self.status = .error
            self.resultJSON = nil
            self.dialog = nil
            self.errorCode = .internalError
            self.message = "the outcome JSON could not be read: \(json.prefix(200))"
            self.isFinal = false
            return
        }
        (status, resultJSON, dialog, errorCode, message, isFinal) = fields
    }

    /// The outcome JSON the core lends: a plain success keeps only its result's text, any
    /// other outcome is copied once, into `json`.
    init(cString: UnsafePointer<CChar>) {
        let u = UnsafeBufferPointer(start: UnsafeRawPointer(cString).assumingMemoryBound(to: UInt8.self), count: strlen(cString))
        if let result = Self.plainSuccessResult(u) {
            self.init(plainSuccess: result)
        } else {
            self.init(json: String(decoding: u, as: UTF8.self))
        }
    }

    private init(plainSuccess result: String?) {
        status = .success
        resultJSON = result
        dialog = nil
        errorCode = nil
        message = nil
        storedJSON = nil
        isFinal = false
    }

    private static var plainHead: StaticString { #"{"status":"success","result":"# }
    private static var plainTail: StaticString { #","dialog":null,"errorCode":null,"message":null}"# }

    /// What the core writes for a success with this result and nothing else.
    private static func plainSuccessJSON(_ result: String?) -> String {
        var out = JSONOut(capacity: plainHead.utf8CodeUnitCount + plainTail.utf8CodeUnitCount + (result?.utf8.count ?? 4))
        out.ascii(plainHead)
        if let result { out.raw(result) } else { out.ascii("null") }
        out.ascii(plainTail)
        return out.text
    }

    private typealias Fields = (AppFunctionStatus, String?, String?, AppFunctionErrorCode?, String?, Bool)

    /// The members of the core's outcome object, read in one pass over its bytes.
    private static func read(_ u: UnsafeBufferPointer<UInt8>) -> Fields? {
        if let result = plainSuccessResult(u) { return (.success, result, nil, nil, nil, false) }
        return readMembers(u)
    }

    /// The core writes a success without dialog as exactly `{"status":"success","result":`,
    /// the result, and `,"dialog":null,"errorCode":null,"message":null}` (src/model/outcome.rs):
    /// its result, or nil for any other outcome (read member by member).
    private static func plainSuccessResult(_ u: UnsafeBufferPointer<UInt8>) -> String?? {
        let head = plainHead, tail = plainTail
        let h = head.utf8CodeUnitCount, t = tail.utf8CodeUnitCount
        guard u.count > h + t, let base = u.baseAddress,
              memcmp(base, head.utf8Start, h) == 0, memcmp(base + (u.count - t), tail.utf8Start, t) == 0
        else { return nil }
        let result = UnsafeBufferPointer(rebasing: u[h..<(u.count - t)])
        return RawJSON.equals(result, "null") ? .some(nil) : String(decoding: result, as: UTF8.self)
    }

    private static func readMembers(_ u: UnsafeBufferPointer<UInt8>) -> Fields? {
        var status: AppFunctionStatus?
        var result: String?
        var dialog: String?
        var code: AppFunctionErrorCode?
        var message: String?
        var isFinal = false
        let ok = RawJSON.forEachMember(of: u) { key, value in
            if RawJSON.equals(key, "status") {
                status = RawJSON.string(value).flatMap(AppFunctionStatus.init(rawValue:))
            } else if RawJSON.equals(key, "result") {
                result = RawJSON.equals(value, "null") ? nil : String(decoding: value, as: UTF8.self)
            } else if RawJSON.equals(key, "dialog") {
                dialog = RawJSON.string(value)
            } else if RawJSON.equals(key, "errorCode") {
                code = RawJSON.string(value).flatMap(AppFunctionErrorCode.init(rawValue:))
            } else if RawJSON.equals(key, "message") {
                message = RawJSON.string(value)
            } else if RawJSON.equals(key, "final") {
                isFinal = RawJSON.equals(value, "true")
            }
        }
        guard ok, let status else { return nil }
        return (status, result, dialog, code, message, isFinal)
    }

    init(failure code: AppFunctionErrorCode, _ message: String) {
        status = .error
        resultJSON = nil
        dialog = nil
        errorCode = code
        self.message = message
        isFinal = false
        storedJSON = JSONValue.object([
            ("status", .string("error")), ("result", .null), ("dialog", .null),
            ("errorCode", .string(code.rawValue)), ("message", .string(message)),
        ]).text
    }
}

/// Where a call comes from.
public enum AppFunctionPlatform: Int32, Sendable, Codable {
    /// An in-process call: a test, an in-app assistant, MCP.
    case other = 0
    /// Siri, Shortcuts, Spotlight (App Intents).
    case apple = 1
    /// Android AppFunctions callers such as Gemini.
    case android = 2
}

/// A request to run a function. Defaults: `.other`, not in the foreground, no timeout —
/// so an `openApp` gate refuses the call the way Android does (in the foreground it passes).
public struct AppFunctionInvocation: Sendable {
    public var functionId: String
    public var platform: AppFunctionPlatform
    /// Apple: the app is in the foreground for this run (the rerun after `openApp`).
    public var isForeground: Bool
    /// Android: the calling package.
    public var callerPackage: String?
    /// Ends the call `TimedOut` after this long (milliseconds precision). nil: the
    /// dispatcher's default (30 s unless `setDefaultTimeout` changed it);
    /// `AppFunctionInvocation.noTimeout` (or anything from 49.7 days up): none at all.
    public var timeout: Duration?
    /// A value of the host's that the call carries and the library never reads (a request's
    /// session, a DI scope of the caller's, a trace): every callback of the call (delegates,
    /// the handler, the permission hook, the scope hooks and the call's entity lookups) reads
    /// it back as `context.invocationContext`. The call holds it (a class instance retained)
    /// from its start until its outcome has been delivered, and not after: a callback still
    /// running then reads nil. `Sendable`, as the invocation is: it is read on the threads
    /// and tasks that run the call.
    public var hostContext: (any Sendable)? {
        didSet { hasHostContext = hostContext != nil }
    }
    /// `hostContext` is set: what a call's start tests (testing the optional existential
    /// itself copies it and destroys the copy, about 150 instructions a call).
    private(set) var hasHostContext: Bool

    /// A timeout that never elapses (`AF_TIMEOUT_NONE`).
    public static let noTimeout: Duration = .seconds(Int64(UInt32.max))

    public init(
        _ functionId: String,
        platform: AppFunctionPlatform = .other,
        isForeground: Bool = false,
        callerPackage: String? = nil,
        timeout: Duration? = nil,
        hostContext: (any Sendable)? = nil
    ) {
        self.functionId = functionId
        self.platform = platform
        self.isForeground = isForeground
        self.callerPackage = callerPackage
        self.timeout = timeout
        self.hostContext = hostContext
        hasHostContext = hostContext != nil
    }

    /// `af_invocation.timeout_ms`: 0 (nil) is the dispatcher's default, `AF_TIMEOUT_NONE` none.
    var timeoutMilliseconds: UInt32 {
        guard let timeout else { return 0 }
        return Self.milliseconds(timeout)
    }

    /// A duration in whole milliseconds, rounded up, at least 1; `AF_TIMEOUT_NONE`
    /// (UInt32.max) from 49.7 days up.
    static func milliseconds(_ d: Duration) -> UInt32 {
        let (s, atto) = d.components
        if s < 0 || (s == 0 && atto <= 0) { return 1 }
        let ms = Double(s) * 1000 + Double(atto) / 1e15
        return ms >= Double(UInt32.max) ? AF_TIMEOUT_NONE : max(1, UInt32(ms.rounded(.up)))
    }
}
