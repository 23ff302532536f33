import Foundation

/// A snapshot of what a dispatcher offers (`af_registry_json`).
public struct AppFunctionRegistry: Sendable {
    /// The declared functions in registration order, then the generated `search_{entity}`.
    public let functions: [AppFunctionInfo]
    /// The registry as the core wrote it (docs/descriptors.md, "The registry").
    public let json: String

    init(dispatcher: AppFunctionDispatcher, json: String) {
        self.json = json
        let root = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
        let list = root?["functions"] as? [[String: Any]] ?? []
        functions = list.map { AppFunctionInfo(dispatcher: dispatcher, $0) }
    }

    /// The function with this id, if any.
    public subscript(_ id: String) -> AppFunctionInfo? { functions.first { $0.id == id } }
}

/// One function as the registry describes it.
public struct AppFunctionInfo: Sendable, Identifiable {
    public struct Parameter: Sendable {
        public let name: String
        public let type: AppFunctionType?
        public let description: String?
        public let isOptional: Bool
        /// The default's JSON text, when there is one.
        public let defaultJSON: String?
    }

    public let id: String
    public let title: String?
    public let description: String?
    public let parameters: [Parameter]
    /// `.void` for functions without a result.
    public let resultType: AppFunctionType?
    public let opensApp: Bool
    public let requiresPermission: Bool
    public let isEnabled: Bool
    /// True for the generated `search_{entity}` functions.
    public let isGenerated: Bool
    private let dispatcher: AppFunctionDispatcher

    init(dispatcher: AppFunctionDispatcher, _ o: [String: Any]) {
        self.dispatcher = dispatcher
        id = o["id"] as? String ?? ""
        title = o["title"] as? String
        description = o["description"] as? String
        parameters = (o["parameters"] as? [[String: Any]] ?? []).map { p in
            Parameter(
                name: p["name"] as? String ?? "",
                type: p["type"].flatMap(AppFunctionType.init(jsonObject:)),
                description: p["description"] as? String,
                isOptional: p["optional"] as? Bool ?? false,
                defaultJSON: p["default"].flatMap { v -> String? in
                    if v is NSNull { return nil }
                    guard let d = try? JSONSerialization.data(withJSONObject: v, options: [.fragmentsAllowed]) else {
                        return nil
                    }
                    return String(decoding: d, as: UTF8.self)
                })
        }
        resultType = o["result"].flatMap(AppFunctionType.init(jsonObject:))
        opensApp = o["opensApp"] as? Bool ?? false
        requiresPermission = o["requiresPermission"] as? Bool ?? false
        isEnabled = o["enabled"] as? Bool ?? true
        isGenerated = o["generated"] as? Bool ?? false
    }

    /// The JSON Schema (draft 2020-12) of the parameters: what an AI tool or MCP adapter
    /// offers a model.
    public func parametersJSONSchema() -> String {
        (try? dispatcher.parametersJSONSchema(id)) ?? #"{"type":"object"}"#
    }

    /// The JSON Schema (draft 2020-12) of the result (`null` for void).
    public func resultJSONSchema() -> String {
        (try? dispatcher.resultJSONSchema(id)) ?? "null"
    }
}
