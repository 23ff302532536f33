import CAppFunctions

/// Facts about the native library this package is linked with.
public enum AppFunctionsLibrary {
    /// The C ABI version this binding was written for (`AF_ABI_VERSION`).
    public static let expectedABIVersion: UInt32 = 1

    /// The ABI version the loaded native library reports (`af_abi_version()`).
    public static var abiVersion: UInt32 { af_abi_version() }

    /// The native crate's version, e.g. "0.1.0" (`af_version()`).
    public static var version: String { String(cString: af_version()) }

    /// The release this Swift package belongs to: the crate and every binding share one
    /// version (`ci/versions.sh` checks it), so it equals `version` when the package and
    /// the native library come from the same release.
    public static let packageVersion = "0.1.0"

    /// How many host objects (handler, lookup, delegate, hook and log boxes) the native
    /// library currently holds for this process. It drops back when dispatchers are
    /// released; tests use it to prove nothing leaks.
    public static var liveUserDataCount: Int { liveBoxes.count }

    /// Evaluated once, before the first dispatcher is created: a library built for another
    /// ABI would corrupt memory in subtle ways, so it stops the process with a clear message.
    static let checkedABI: Bool = {
        let found = af_abi_version()
        if found != expectedABIVersion {
            fatalError("""
                AppFunctions: the native library libappfunctions \(String(cString: af_version())) \
                has C ABI version \(found), but this Swift package was written for ABI version \
                \(expectedABIVersion). Use the library and the Swift package from the same release.
                """)
        }
        // the error codes' names come from the core (af_error_code_name), not a table here
        for code in AppFunctionErrorCode.allCases {
            let name = af_error_code_name(code.cValue).map { String(cString: $0) }
            if name != code.rawValue {
                fatalError("AppFunctions: error code \(code.cValue) is \(name ?? "unknown") in the native library but \(code.rawValue) here")
            }
        }
        return true
    }()
}
