import CAppFunctions
import Foundation

/// A value behind a lock (NSLock: available on every platform the package supports).
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Number of live `UserDataBox`es (see `AppFunctionsLibrary.liveUserDataCount`).
let liveBoxes = Counter()

/// An `Int` under a lock (not `Locked<Int>`: a generic class's metadata is made at its first
/// use, on the way to the first registration, issue 30).
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func add(_ n: Int) {
        lock.lock()
        value += n
        lock.unlock()
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}

/// Everything handed to the C library as `user_data` is a subclass of this box, passed with
/// `Unmanaged.passRetained` and released exactly once by `releaseUserData`.
class UserDataBox: @unchecked Sendable {
    init() { liveBoxes.add(1) }
    deinit { liveBoxes.add(-1) }

    /// Hands one retained reference to C.
    final func retainedPointer() -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(self).toOpaque()
    }
}

/// `free_user_data` for every box: balances `retainedPointer()`.
let releaseUserData: af_free_fn = { userData in
    guard let userData else { return }
    Unmanaged<UserDataBox>.fromOpaque(userData).release()
}

/// Borrows a box given to C as user data (no retain change).
@inline(__always)
func box<T: UserDataBox>(_ userData: UnsafeMutableRawPointer?, as type: T.Type) -> T? {
    guard let userData else { return nil }
    return Unmanaged<UserDataBox>.fromOpaque(userData).takeUnretainedValue() as? T
}

/// Runs `body` with the box given to C as user data when it is a `T`, as a guaranteed reference:
/// no retain and release, where `box(_:as:)`'s strong reference makes a pair. Only for a callback
/// that uses the box before it returns, while the core holds the user data. False (and `body`
/// not run) when there is no box or it is not a `T`.
@inline(__always)
func withBox<T: UserDataBox>(_ userData: UnsafeMutableRawPointer?, as type: T.Type, _ body: (T) -> Void) -> Bool {
    guard let userData, Unmanaged<UserDataBox>.fromOpaque(userData)._withUnsafeGuaranteedRef({ $0 is T }) else {
        return false
    }
    Unmanaged<T>.fromOpaque(userData)._withUnsafeGuaranteedRef(body)
    return true
}

/// Values the C library refers to by an integer key instead of a pointer (host scopes,
/// running handler tasks). A key that was already removed finds nothing, so a late or
/// concurrent callback can never touch freed memory.
final class HandleTable<Value>: @unchecked Sendable {
    private var next: UInt = 1
    private var values: [UInt: Value] = [:]
    private let lock = NSLock()

    func insert(_ value: Value) -> UInt {
        lock.lock()
        defer { lock.unlock() }
        let key = next
        next &+= 1
        if next == 0 { next = 1 }
        values[key] = value
        return key
    }

    func get(_ key: UInt) -> Value? {
        lock.lock()
        defer { lock.unlock() }
        return values[key]
    }

    @discardableResult
    func remove(_ key: UInt) -> Value? {
        lock.lock()
        defer { lock.unlock() }
        return values.removeValue(forKey: key)
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return values.count
    }
}

extension UInt {
    /// A table key as `void *` for C.
    var asUserData: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: self) }
    /// A table key back from C.
    init(userData: UnsafeRawPointer?) { self = UInt(bitPattern: userData) }
}

/// An `af_call *` (or `af_gate *`): a generation-checked handle, not a pointer, so it may be
/// kept and used from any thread; after its call ended the library refuses it safely.
struct CallHandle: @unchecked Sendable {
    let raw: OpaquePointer
}

struct GateHandle: @unchecked Sendable {
    let raw: OpaquePointer
}

/// The message of the last failed `af_` call on this thread.
func lastError() -> String {
    String(cString: af_last_error())
}

/// Takes an owned string from the library and frees it.
func takeString(_ p: UnsafeMutablePointer<CChar>?) -> String? {
    guard let p else { return nil }
    defer { af_string_free(p) }
    return String(cString: p)
}
