import CAppFunctions
import Foundation

/// Published dispatchers: one process-wide table shared by every language in the process, so an
/// App Intent that the system runs during a cold start waits for the app's dispatcher — made in
/// Swift, or by a .NET MAUI app's C# — instead of failing.
extension AppFunctionDispatcher {
    /// The name every binding publishes under and waits for unless told otherwise.
    public static let defaultPublicationName = "default"

    /// How long `published(_:timeout:)` waits unless told otherwise: 10 seconds.
    public static let defaultPublicationTimeout: Duration = .seconds(10)

    /// Publishes this dispatcher for the whole process under `name`, replacing an earlier
    /// publication of that name. Releasing the dispatcher (or `shutdown`) withdraws it.
    public func publish(as name: String = AppFunctionDispatcher.defaultPublicationName) throws {
        guard !name.isEmpty else { throw AppFunctionError(.invalidArgument, "the publication name is empty") }
        let st = af_dispatcher_publish(raw, name)
        guard st == AF_OK else { throw AppFunctionError(.invalidArgument, "publishing as \"\(name)\": \(lastError())") }
    }

    /// Withdraws the publication under `name`; false when nothing was published there.
    @discardableResult
    public static func unpublish(_ name: String = AppFunctionDispatcher.defaultPublicationName) -> Bool {
        _ = AppFunctionsLibrary.checkedABI
        return af_dispatcher_unpublish(name) == AF_OK
    }

    /// Blocks up to `timeout` for a dispatcher published under `name` and returns a handle to it
    /// (the publisher's handlers and delegates run through it; releasing it never withdraws the
    /// publication). Never call it on the main thread: `waitForPublished` is the async form.
    /// Throws `.timedOut`, whose message names the name and the wait, when nothing was published.
    public static func published(
        _ name: String = AppFunctionDispatcher.defaultPublicationName,
        timeout: Duration = AppFunctionDispatcher.defaultPublicationTimeout
    ) throws -> AppFunctionDispatcher {
        _ = AppFunctionsLibrary.checkedABI
        let ms: UInt32 = timeout <= .zero ? 0 : AppFunctionInvocation.milliseconds(timeout)
        var out: OpaquePointer?
        let st = af_dispatcher_published_new(name, ms, &out)
        if st == AF_ERR_TIMED_OUT { throw AppFunctionError(.timedOut, lastError()) }
        guard st == AF_OK, let out else {
            throw AppFunctionError(.invalidArgument, "af_dispatcher_published_new: \(lastError())")
        }
        return AppFunctionDispatcher(publishedHandle: out)
    }

    /// `published(_:timeout:)` on a thread of its own, so no task's thread blocks.
    public static func waitForPublished(
        _ name: String = AppFunctionDispatcher.defaultPublicationName,
        timeout: Duration = AppFunctionDispatcher.defaultPublicationTimeout
    ) async throws -> AppFunctionDispatcher {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<AppFunctionDispatcher, Error>) in
            Thread.detachNewThread {
                c.resume(with: Result { try AppFunctionDispatcher.published(name, timeout: timeout) })
            }
        }
    }

    /// This dispatcher's registrations as a descriptor bundle (JSON): what build steps make the
    /// App Intents source and the Android assets from (`exportBundle(_:format:)`).
    public func bundleJSON() -> String {
        takeString(af_dispatcher_bundle_json(raw)) ?? "{}"
    }

    /// What `export(format:)` gives for a dispatcher with exactly the registrations of
    /// `bundleJSON`, without a running app. Throws with the core's message (the item and path of
    /// a bad bundle, or the unknown format).
    public static func exportBundle(_ bundleJSON: String, format: String) throws -> String {
        _ = AppFunctionsLibrary.checkedABI
        guard let s = takeString(af_bundle_export_copy(bundleJSON, format)) else {
            throw AppFunctionError(.invalidArgument, lastError())
        }
        return s
    }
}
