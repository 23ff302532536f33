// A stand-in for Apple's App Intents framework, compiled only where `canImport(AppIntents)`
// is false (Linux): the declarations the generated intents and AppFunctionsIntents use, each
// written from the page of Apple's reference cited above it, holding values and nothing more.
// What it proves and what only an Xcode build proves: bindings/swift/README.md, "App Intents".
//
// Two stand-in-only members let tests play the system's part, and say so in their names:
// `StandInSystem.currentMode` (the mode Siri would run an intent in) and
// `StandInSystem.foregroundRequests` (the dialogs an intent asked to continue in the app with).

import Foundation

// MARK: Texts

/// https://developer.apple.com/documentation/foundation/localizedstringresource
/// (Foundation on Apple platforms; a literal or an interpolation, looked up by its key.)
public struct LocalizedStringResource: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// https://developer.apple.com/documentation/foundation/localizedstringresource/key
    public let key: String
    public init(stringLiteral value: String) { key = value }
    public init(stringInterpolation: DefaultStringInterpolation) { key = String(stringInterpolation: stringInterpolation) }
    public var description: String { key }
}

/// https://developer.apple.com/documentation/appintents/intentdescription
public struct IntentDescription: Sendable, ExpressibleByStringInterpolation {
    public let descriptionText: LocalizedStringResource
    /// https://developer.apple.com/documentation/appintents/intentdescription/init(_:categoryname:searchkeywords:resultvaluename:)
    public init(_ descriptionText: LocalizedStringResource) { self.descriptionText = descriptionText }
    public init(stringLiteral value: String) { descriptionText = LocalizedStringResource(stringLiteral: value) }
    public init(stringInterpolation: DefaultStringInterpolation) {
        descriptionText = LocalizedStringResource(stringInterpolation: stringInterpolation)
    }
}

/// https://developer.apple.com/documentation/appintents/intentdialog
public struct IntentDialog: Sendable, ExpressibleByStringInterpolation {
    public let fullDialog: LocalizedStringResource
    /// https://developer.apple.com/documentation/appintents/intentdialog/init(_:)
    public init(_ fullDialog: LocalizedStringResource) { self.fullDialog = fullDialog }
    public init(stringLiteral value: String) { fullDialog = LocalizedStringResource(stringLiteral: value) }
    public init(stringInterpolation: DefaultStringInterpolation) {
        fullDialog = LocalizedStringResource(stringInterpolation: stringInterpolation)
    }
}

/// https://developer.apple.com/documentation/appintents/typedisplayrepresentation
public struct TypeDisplayRepresentation: Sendable, ExpressibleByStringInterpolation {
    public let name: LocalizedStringResource
    /// https://developer.apple.com/documentation/appintents/typedisplayrepresentation/init(name:numericformat:)
    public init(name: LocalizedStringResource) { self.name = name }
    public init(stringLiteral value: String) { name = LocalizedStringResource(stringLiteral: value) }
    public init(stringInterpolation: DefaultStringInterpolation) {
        name = LocalizedStringResource(stringInterpolation: stringInterpolation)
    }
}

/// https://developer.apple.com/documentation/appintents/displayrepresentation
public struct DisplayRepresentation: Sendable, ExpressibleByStringInterpolation {
    public let title: LocalizedStringResource
    public let subtitle: LocalizedStringResource?
    /// https://developer.apple.com/documentation/appintents/displayrepresentation/init(title:subtitle:image:)
    public init(title: LocalizedStringResource, subtitle: LocalizedStringResource? = nil) {
        self.title = title
        self.subtitle = subtitle
    }
    public init(stringLiteral value: String) { self.init(title: LocalizedStringResource(stringLiteral: value)) }
    public init(stringInterpolation: DefaultStringInterpolation) {
        self.init(title: LocalizedStringResource(stringInterpolation: stringInterpolation))
    }
}

// MARK: Modes

/// https://developer.apple.com/documentation/appintents/intentmodes (iOS 26)
public struct IntentModes: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// https://developer.apple.com/documentation/appintents/intentmodes/background
    public static let background = IntentModes(rawValue: 1)
    /// https://developer.apple.com/documentation/appintents/intentmodes/foreground
    /// ("equivalent to the immediate mode")
    public static let foreground = IntentModes.foreground(.immediate)

    /// https://developer.apple.com/documentation/appintents/intentmodes/foreground(_:)
    public static func foreground(_ foregroundMode: ForegroundMode) -> IntentModes {
        IntentModes(rawValue: foregroundMode.rawValue)
    }

    /// https://developer.apple.com/documentation/appintents/intentmodes/foregroundmode
    public struct ForegroundMode: Sendable, Equatable {
        let rawValue: Int
        /// https://developer.apple.com/documentation/appintents/intentmodes/foregroundmode/immediate
        public static let immediate = ForegroundMode(rawValue: 2)
        /// https://developer.apple.com/documentation/appintents/intentmodes/foregroundmode/dynamic
        public static let dynamic = ForegroundMode(rawValue: 4)
        /// https://developer.apple.com/documentation/appintents/intentmodes/foregroundmode/deferred
        public static let deferred = ForegroundMode(rawValue: 8)
    }

    /// https://developer.apple.com/documentation/appintents/intentmodes/current: compared with
    /// its static values (`systemContext.currentMode == .background`, the page's example).
    public struct Current: Sendable, Equatable {
        let mode: Int
        public static let background = Current(mode: 1)
        public static let foreground = Current(mode: 2)
        /// https://developer.apple.com/documentation/appintents/intentmodes/current/cancontinueinforeground
        public var canContinueInForeground: Bool { self == .background }
    }
}

/// https://developer.apple.com/documentation/appintents/intentsystemcontext
public struct IntentSystemContext: Sendable {
    /// https://developer.apple.com/documentation/appintents/intentsystemcontext/currentmode
    public let currentMode: IntentModes.Current
}

/// The stand-in's window onto what the system would do: set by tests, read by nobody else.
public enum StandInSystem {
    /// The mode the system runs an intent in (`systemContext.currentMode`).
    @TaskLocal public static var currentMode: IntentModes.Current = .background
    /// The dialogs intents asked to continue in the foreground with, in order (each
    /// request is granted, as when the person agrees).
    public static let foregroundRequests = StandInLog()
}

/// A list of texts shared across tasks.
public final class StandInLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    public var all: [String] { lock.lock(); defer { lock.unlock() }; return items }
    public func append(_ s: String) { lock.lock(); items.append(s); lock.unlock() }
    public func removeAll() { lock.lock(); items.removeAll(); lock.unlock() }
}

// MARK: Intents

/// https://developer.apple.com/documentation/appintents/appintent
public protocol AppIntent: Sendable {
    associatedtype PerformResult: IntentResult
    /// https://developer.apple.com/documentation/appintents/appintent/title
    static var title: LocalizedStringResource { get }
    /// https://developer.apple.com/documentation/appintents/appintent/description
    static var description: IntentDescription? { get }
    /// https://developer.apple.com/documentation/appintents/appintent/openappwhenrun
    static var openAppWhenRun: Bool { get }
    /// https://developer.apple.com/documentation/appintents/appintent/supportedmodes (iOS 26)
    static var supportedModes: IntentModes { get }
    init()
    /// https://developer.apple.com/documentation/appintents/appintent/perform()
    func perform() async throws -> PerformResult
}

extension AppIntent {
    public static var description: IntentDescription? { nil }
    public static var openAppWhenRun: Bool { false }
    public static var supportedModes: IntentModes { .background }
    /// https://developer.apple.com/documentation/appintents/appintent/parameter
    public typealias Parameter<Value> = IntentParameter<Value>

    /// https://developer.apple.com/documentation/appintents/appintent/systemcontext
    public var systemContext: IntentSystemContext { IntentSystemContext(currentMode: StandInSystem.currentMode) }

    /// https://developer.apple.com/documentation/appintents/appintent/continueinforeground(_:alwaysconfirm:)
    public func continueInForeground(_ dialog: IntentDialog? = nil, alwaysConfirm: Bool = true) async throws {
        StandInSystem.foregroundRequests.append(dialog?.fullDialog.key ?? "")
    }
}

/// https://developer.apple.com/documentation/appintents/foregroundcontinuableintent (iOS 16.4 to 26)
public protocol ForegroundContinuableIntent: AppIntent {}

extension ForegroundContinuableIntent {
    /// https://developer.apple.com/documentation/appintents/foregroundcontinuableintent/requesttocontinueinforeground(_:continuation:)
    @discardableResult
    public func requestToContinueInForeground<ResultValue: Sendable>(
        _ dialog: IntentDialog? = nil,
        continuation: @MainActor () async throws -> ResultValue = { () }
    ) async throws -> ResultValue {
        StandInSystem.foregroundRequests.append(dialog?.fullDialog.key ?? "")
        return try await continuation()
    }
}

/// https://developer.apple.com/documentation/appintents/intentparameter (`@Parameter`)
@propertyWrapper
public final class IntentParameter<Value>: @unchecked Sendable {
    public let title: LocalizedStringResource
    public let parameterDescription: LocalizedStringResource?
    public let defaultValue: Value?
    private var value: Value?

    /// https://developer.apple.com/documentation/appintents/intentparameter/init(title:description:default:requestvaluedialog:inputoptions:)
    public init(title: LocalizedStringResource, description: LocalizedStringResource? = nil, default defaultValue: Value? = nil) {
        self.title = title
        parameterDescription = description
        self.defaultValue = defaultValue
    }

    /// https://developer.apple.com/documentation/appintents/intentparameter/wrappedvalue
    public var wrappedValue: Value {
        get {
            if let value { return value }
            if let defaultValue { return defaultValue }
            if let none = (Value.self as? any ExpressibleByNilLiteral.Type)?.init(nilLiteral: ()) as? Value {
                return none
            }
            fatalError("the parameter \(title) was read before it was set")
        }
        set { value = newValue }
    }
}

// MARK: Results

/// https://developer.apple.com/documentation/appintents/intentresult
public protocol IntentResult: Sendable {}

/// https://developer.apple.com/documentation/appintents/returnsvalue
public protocol ReturnsValue<Value>: IntentResult {
    associatedtype Value
}

/// https://developer.apple.com/documentation/appintents/providesdialog
public protocol ProvidesDialog: IntentResult {}

/// What a test reads from a result whose type is opaque (`some IntentResult & ...`).
public protocol StandInResult {
    var standInDialog: IntentDialog? { get }
}

/// https://developer.apple.com/documentation/appintents/intentresultcontainer: what
/// `.result(...)` makes; `standInValue` and `standInDialog` let tests read it.
public struct IntentResultContainer<Value>: ReturnsValue, ProvidesDialog, StandInResult, @unchecked Sendable {
    public let standInValue: Value?
    public let standInDialog: IntentDialog?
}

extension IntentResult {
    /// https://developer.apple.com/documentation/appintents/intentresult/result(dialog:)
    public static func result(dialog: IntentDialog) -> Self where Self == IntentResultContainer<Never> {
        IntentResultContainer(standInValue: nil, standInDialog: dialog)
    }

    /// https://developer.apple.com/documentation/appintents/intentresult/result(value:dialog:)
    public static func result<V>(value: V, dialog: IntentDialog) -> Self where Self == IntentResultContainer<V> {
        IntentResultContainer(standInValue: value, standInDialog: dialog)
    }
}

// MARK: Enums and entities

/// https://developer.apple.com/documentation/appintents/appenum
public protocol AppEnum: RawRepresentable, CaseIterable, Hashable, Sendable {
    /// https://developer.apple.com/documentation/appintents/typedisplayrepresentable/typedisplayrepresentation
    static var typeDisplayRepresentation: TypeDisplayRepresentation { get }
    /// https://developer.apple.com/documentation/appintents/caseDisplayRepresentable/casedisplayrepresentations
    static var caseDisplayRepresentations: [Self: DisplayRepresentation] { get }
}

/// https://developer.apple.com/documentation/appintents/appentity
public protocol AppEntity: Identifiable, Sendable {
    associatedtype DefaultQuery: EntityQuery where DefaultQuery.Entity == Self
    /// https://developer.apple.com/documentation/appintents/typedisplayrepresentable/typedisplayrepresentation
    static var typeDisplayRepresentation: TypeDisplayRepresentation { get }
    /// https://developer.apple.com/documentation/appintents/appentity/defaultquery
    static var defaultQuery: DefaultQuery { get }
    /// https://developer.apple.com/documentation/appintents/displayrepresentable/displayrepresentation
    var displayRepresentation: DisplayRepresentation { get }
}

extension AppEntity {
    /// https://developer.apple.com/documentation/appintents/appentity/property
    public typealias Property<Value> = EntityProperty<Value>
}

/// https://developer.apple.com/documentation/appintents/entityproperty (`@Property`)
@propertyWrapper
public final class EntityProperty<Value>: @unchecked Sendable {
    public let title: LocalizedStringResource
    private var value: Value?

    /// https://developer.apple.com/documentation/appintents/entityproperty/init(title:)
    public init(title: LocalizedStringResource) { self.title = title }

    /// https://developer.apple.com/documentation/appintents/entityproperty/wrappedvalue
    public var wrappedValue: Value {
        get {
            if let value { return value }
            fatalError("the property \(title) was read before it was set")
        }
        set { value = newValue }
    }
}

/// https://developer.apple.com/documentation/appintents/entityquery
public protocol EntityQuery: Sendable {
    associatedtype Entity: AppEntity
    init()
    /// https://developer.apple.com/documentation/appintents/entityquery/entities(for:)
    func entities(for identifiers: [Entity.ID]) async throws -> [Entity]
    /// https://developer.apple.com/documentation/appintents/entityquery/suggestedentities()
    func suggestedEntities() async throws -> [Entity]
}

extension EntityQuery {
    public func suggestedEntities() async throws -> [Entity] { [] }
}

/// https://developer.apple.com/documentation/appintents/entitystringquery
public protocol EntityStringQuery: EntityQuery {
    /// https://developer.apple.com/documentation/appintents/entitystringquery/entities(matching:)
    func entities(matching string: String) async throws -> [Entity]
}

// MARK: App Shortcuts

/// https://developer.apple.com/documentation/appintents/appshortcutsprovider
public protocol AppShortcutsProvider {
    /// https://developer.apple.com/documentation/appintents/appshortcutsprovider/appshortcuts
    @AppShortcutsBuilder static var appShortcuts: [AppShortcut] { get }
}

/// https://developer.apple.com/documentation/appintents/appshortcutsbuilder
@resultBuilder
public enum AppShortcutsBuilder {
    public static func buildBlock(_ components: AppShortcut...) -> [AppShortcut] { components }
}

/// https://developer.apple.com/documentation/appintents/appshortcut
public struct AppShortcut: Sendable {
    public let phrases: [String]
    public let shortTitle: LocalizedStringResource
    public let systemImageName: String

    /// https://developer.apple.com/documentation/appintents/appshortcut/init(intent:phrases:shorttitle:systemimagename:)-8yntq
    public init<Intent: AppIntent>(intent: Intent, phrases: [AppShortcutPhrase<Intent>],
                                   shortTitle: LocalizedStringResource, systemImageName: String) {
        self.phrases = phrases.map(\.text)
        self.shortTitle = shortTitle
        self.systemImageName = systemImageName
    }
}

/// https://developer.apple.com/documentation/appintents/appshortcutphrase: a literal whose
/// interpolations are tokens (`\(.applicationName)`), never arbitrary values.
public struct AppShortcutPhrase<Intent: AppIntent>: ExpressibleByStringInterpolation, Sendable {
    /// The phrase with `${applicationName}` where the token stands (the strings files' form).
    public let text: String

    /// https://developer.apple.com/documentation/appintents/appshortcutphrase/init(_:)
    public init(_ value: String) { text = value }
    public init(stringLiteral value: String) { text = value }
    public init(stringInterpolation: StringInterpolation) { text = stringInterpolation.text }

    public struct StringInterpolation: StringInterpolationProtocol {
        var text = ""
        public init(literalCapacity: Int, interpolationCount: Int) {}
        public mutating func appendLiteral(_ literal: String) { text += literal }
        public mutating func appendInterpolation(_ token: AppShortcutPhraseToken) {
            switch token {
            case .applicationName: text += "${applicationName}"
            }
        }
    }
}

/// https://developer.apple.com/documentation/appintents/appshortcutphrasetoken
public enum AppShortcutPhraseToken: Sendable {
    /// https://developer.apple.com/documentation/appintents/appshortcutphrasetoken/applicationname
    case applicationName
}
