import AppFunctions
import Foundation

// Seed 004's examples as a Swift app: the FileSystemToolkit and DatabaseToolkit of "The
// Collapse Attribute" and "Collapse with Instructions", the SearchToolkit of "Dynamic
// Instructions with Expressions", and the plain functions of "Return Types", "Requiring
// Permission", "Conditional Functions", the generic form's `{metadata.X}` and "ToolKind —
// Structured Output". The Swift twin of tests/views.rs and tests/c/test_views_seed.c.

let dbResult = "Available: Query, Insert, Update, Delete. Always use transactions for multiple operations."
let dbPrompt = "CRITICAL: Never execute DELETE without a WHERE clause."

/// What conditions and `{metadata.X}` placeholders may name (seed 004's `IToolMetadata`).
struct AgentMetadata: Codable, Sendable {
    var ProviderName = "Default"
    var HasAdvancedFeatures = false
    var searchers: String?
}

struct WeatherReport: AppFunctionRecord, Equatable {
    var city: String
    var tempCelsius: Double
    var condition: String

    static let typeDescription: String? = "A weather report"

    @AppFunctionFieldsBuilder static var fields: [AppFunctionField] {
        AppFunctionField("city", String.self, description: "City name")
        AppFunctionField("tempCelsius", Double.self, description: "Temperature in Celsius")
        AppFunctionField("condition", String.self, description: "Weather condition (e.g., 'sunny', 'cloudy')")
    }
}

struct PathArgs: Codable { var path: String }
struct WriteArgs: Codable { var path: String; var content: String }
struct SQLArgs: Codable { var sql: String }
struct TableArgs: Codable { var table: String }
struct QueryArgs: Codable { var query: String }
struct SearchArgs: Codable { var query: String; var maxResults: Int32 }
struct AddArgs: Codable { var a: Int32; var b: Int32 }
struct MessageArgs: Codable { var message: String }
struct TripArgs: Codable { var departure: AppFunctionDate; var nights: Int32 }

/// A value shared by the test and the handlers.
final class Shared<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var _value: Value
    init(_ value: Value) { _value = value }
    var value: Value {
        get { lock.lock(); defer { lock.unlock() }; return _value }
        set { lock.lock(); _value = newValue; lock.unlock() }
    }
    func update(_ f: (inout Value) -> Void) { lock.lock(); f(&_value); lock.unlock() }
}

/// The app's state: files, statements run, messages logged, what the permission dialog says.
final class AgentApp: Sendable {
    let files = Shared<[String: String]>([:])
    let statements = Shared<[String]>([])
    let logged = Shared<[String]>([])
    let approve = Shared(true)
    let textsAsked = Shared(0)
    let slowCancelled = Shared(0)
}

func registerAgentApp(on d: AppFunctionDispatcher, app: AgentApp) throws {
    try d.setMetadataSchema(properties: ["ProviderName", "HasAdvancedFeatures", "searchers"])

    // The Collapse Attribute: [Collapse("File operations ...")] public class FileSystemToolkit
    try d.defineToolkit(AppFunctionToolkit("file_system", description: "File operations for reading, writing, and managing files"))
    try d.register(AppFunctionDescriptor("read_file", description: "Reads a file", toolkit: "file_system") {
        AppFunctionParameter("path", String.self)
    }) { (_, a: PathArgs) -> String in
        guard let text = app.files.value[a.path] else { throw AppFunctionError(.entityNotFound, "no file \(a.path)") }
        return text
    }
    try d.register(AppFunctionDescriptor("write_file", description: "Writes a file", toolkit: "file_system") {
        AppFunctionParameter("path", String.self)
        AppFunctionParameter("content", String.self)
    }) { (_, a: WriteArgs) in app.files.update { $0[a.path] = a.content } }
    // Requiring Permission: [RequiresPermission] public void DeleteFile(string path)
    try d.register(AppFunctionDescriptor("delete_file", description: "Delete a file from the filesystem",
                                         requiresPermission: true, toolkit: "file_system") {
        AppFunctionParameter("path", String.self)
    }) { (_, a: PathArgs) in app.files.update { $0[a.path] = nil } }
    try d.setPermissionHandler { _ in app.approve.value }

    // Collapse with Instructions
    try d.defineToolkit(AppFunctionToolkit("database", description: "Database operations",
                                           functionResult: dbResult, systemPrompt: dbPrompt))
    try d.register(AppFunctionDescriptor("query", description: "Runs a query", toolkit: "database") {
        AppFunctionParameter("sql", String.self)
    }) { (_, a: SQLArgs) -> String in
        app.statements.update { $0.append(a.sql) }
        return "1 row"
    }
    try d.register(AppFunctionDescriptor("insert", description: "Inserts a row", toolkit: "database") {
        AppFunctionParameter("table", String.self)
    }) { (_, a: TableArgs) -> Int32 in
        app.statements.update { $0.append("INSERT INTO \(a.table)") }
        return 1
    }

    // Dynamic Instructions with Expressions: GetAvailableSearchers() and SearchGuidelines
    try d.defineToolkit(AppFunctionToolkit("search", description: "Search operations"), metadata: AgentMetadata.self) { which, metadata in
        app.textsAsked.update { $0 += 1 }
        switch which {
        case .functionResult: return "Available: \(metadata.searchers ?? "none")"
        case .systemPrompt: return "Always prefer exact matches over fuzzy matches."
        }
    }
    try d.register(AppFunctionDescriptor("web_search", description: "Search the web for information", toolkit: "search") {
        AppFunctionParameter("query", String.self, description: "The search query")
        AppFunctionParameter("maxResults", Int32.self, description: "Maximum number of results (1-10)", default: 5)
    }) { (_, a: SearchArgs) -> [String] in
        (1...min(2, Int(a.maxResults))).map { "\(a.query) result \($0)" }
    }

    // Basic usage, custom names, the generic form's template, conditional functions
    try d.register(AppFunctionDescriptor("add", description: "Add two numbers together and return the sum") {
        AppFunctionParameter("a", Int32.self)
        AppFunctionParameter("b", Int32.self)
    }) { (_, a: AddArgs) -> Int32 in a.a + a.b }
    try d.register(AppFunctionDescriptor("search_web", description: "Search using {metadata.ProviderName}") {
        AppFunctionParameter("query", String.self)
    }) { (_, a: QueryArgs) -> String in "results for \(a.query)" }
    try d.register(AppFunctionDescriptor("advanced_search", description: "Advanced search with filters",
                                         condition: "HasAdvancedFeatures") {
        AppFunctionParameter("query", String.self)
    }) { (_, a: QueryArgs) -> String in "advanced results for \(a.query)" }

    // Return Types: void (returns confirmation message), and the date type
    try d.register(AppFunctionDescriptor("log_message", description: "Write a message to the log") {
        AppFunctionParameter("message", String.self)
    }) { (_, a: MessageArgs) in app.logged.update { $0.append(a.message) } }
    try d.register(AppFunctionDescriptor("plan_trip", description: "The day of return") {
        AppFunctionParameter("departure", AppFunctionDate.self)
        AppFunctionParameter("nights", Int32.self)
    }) { (_, a: TripArgs) -> AppFunctionDate in
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let back = utc.date(byAdding: .day, value: Int(a.nights), to: a.departure.date(in: utc.timeZone))!
        return AppFunctionDate(back, in: utc.timeZone)
    }

    // ToolKind — Structured Output
    try d.registerOutput(AppFunctionDescriptor("report", description: "Report the weather") {
        AppFunctionParameter("city", String.self, description: "City name")
        AppFunctionParameter("tempCelsius", Double.self, description: "Temperature in Celsius")
        AppFunctionParameter("condition", String.self, description: "Weather condition (e.g., 'sunny', 'cloudy')")
    }, result: WeatherReport.self)

    // A call that waits until it is cancelled
    try d.register(AppFunctionDescriptor("slow", description: "Waits until the call is cancelled")) { (_, _: NoArguments) -> String in
        do {
            try await Task.sleep(for: .seconds(60))
        } catch {
            app.slowCancelled.update { $0 += 1 }
            throw error
        }
        return "late"
    }
}
