// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors

/// How a recording is analysed: the profile, the rules and every detector parameter.
///
/// The daemon records a session with it, `analyze` and `import` build it from the configuration
/// file and `--set`, and the store keeps it with the session, so `reanalyze` repeats exactly the
/// detection the session was recorded with.
public struct DetectionSettings: Hashable, Sendable {
    /// The profile: which detector runs.
    public var profile: DetectionProfile
    /// Standard or baseline rules.
    public var rules: DetectionRules
    /// Every profile's parameters (a session keeps them all, so switching its profile on
    /// re-analysis uses the values it was recorded with, too).
    public var parameters: DetectionParameters

    /// Settings for `profile`; the documented defaults unless given.
    public init(profile: DetectionProfile, rules: DetectionRules = .standard, parameters: DetectionParameters = .init())
    {
        self.profile = profile
        self.rules = rules
        self.parameters = parameters
    }

    /// A fresh detector running these settings.
    public var detector: ProfileDetector { ProfileDetector(profile: profile, rules: rules, parameters: parameters) }

    /// Sets one parameter of `profile` from `key=value` text (`min_flight=0.2`), the key as the
    /// configuration file names it under `[detection.<profile>]`.
    public mutating func set(_ assignment: String) throws(DetectionSettingsError) {
        guard let equals = assignment.firstIndex(of: "=") else {
            throw DetectionSettingsError(
                .malformed, "'\(assignment)' is not key=value", fix: "write it as, for example, min_flight=0.2")
        }
        let key = Self.trimmed(assignment[..<equals])
        let text = Self.trimmed(assignment[assignment.index(after: equals)...])
        if let field = DetectionParameterKeys.fields(for: profile).first(where: { $0.key == key }) {
            guard let value = Double(text) else {
                throw DetectionSettingsError(
                    .invalidValue, "\(key): '\(text)' is not a number",
                    fix: field.isSeconds ? "give seconds, such as 0.2" : "give a number of g, such as 1.3")
            }
            if let problem = field.problem(with: value) {
                throw DetectionSettingsError(.invalidValue, "\(key): \(problem.message)", fix: problem.fix)
            }
            parameters[keyPath: field.path] = value
        } else if let field = DetectionParameterKeys.integerFields(for: profile).first(where: { $0.key == key }) {
            guard let value = Int(text) else {
                throw DetectionSettingsError(
                    .invalidValue, "\(key): '\(text)' is not a whole number",
                    fix: "give \(field.range.lowerBound) to \(field.range.upperBound)")
            }
            if let problem = field.problem(with: value) {
                throw DetectionSettingsError(.invalidValue, "\(key): \(problem.message)", fix: problem.fix)
            }
            parameters[keyPath: field.path] = value
        } else {
            throw DetectionSettingsError(
                .unknownKey, "the \(profile.rawValue) profile has no parameter '\(key)'",
                fix: "use one of: \(DetectionParameterKeys.keys(for: profile).joined(separator: ", "))")
        }
    }

    /// The profile's parameters as `key=value` texts that `set(_:)` reads back, in table order.
    public var assignments: [String] {
        DetectionParameterKeys.fields(for: profile).map { "\($0.key)=\(parameters[keyPath: $0.path])" }
            + DetectionParameterKeys.integerFields(for: profile).map { "\($0.key)=\(parameters[keyPath: $0.path])" }
    }

    private static func trimmed(_ text: Substring) -> String {
        String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}

/// A `--set` that names no parameter of the profile or gives it a value it cannot take.
public struct DetectionSettingsError: CodedError, Hashable, Sendable {
    /// What kind of mistake.
    public struct Code: NamedCode {
        public let name: String
        /// Not `key=value`.
        public static let malformed = Code(name: "malformed")
        /// The profile has no parameter of that name.
        public static let unknownKey = Code(name: "unknownKey")
        /// The value is not a number, or out of the parameter's range.
        public static let invalidValue = Code(name: "invalidValue")
    }

    /// What kind of mistake.
    public var code: Code
    /// What was wrong.
    public var message: String
    /// What to give instead.
    public var fix: String?

    /// An error of kind `code`.
    public init(_ code: Code, _ message: String, fix: String) {
        self.code = code
        self.message = message
        self.fix = fix
    }
}

// MARK: Codable

extension DetectionSettings: Codable {
    /// The `userInfo` key of the profile to assume when the JSON names none: a session stored
    /// before its settings were kept whole (`{"rules":"baseline"}`) has its profile in its own
    /// column.
    public static let profileUserInfoKey = CodingUserInfoKey(rawValue: "sportsensord.detection.profile")!

    /// `{"profile":"jump","rules":"standard","parameters":{…}}` (see `DetectionParameters`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: DetectionCodingKey.self)
        try container.encode(profile.rawValue, forKey: "profile")
        try container.encode(rules.rawValue, forKey: "rules")
        try container.encode(parameters, forKey: "parameters")
    }

    /// Reads settings leniently, so every session ever stored loads: missing rules are standard,
    /// missing or unreadable parameters keep their defaults, and the shape stored before settings
    /// were kept whole (the profile's keys beside `profile` and `rules`, no `parameters`) is read
    /// into the profile's parameters. Only a missing profile with none in `userInfo` throws.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: DetectionCodingKey.self)
        let members = LenientMembers(container)
        let named = members["profile"].flatMap { try? container.decode(String.self, forKey: $0) }
        guard
            let profile = named.flatMap(DetectionProfile.init(rawValue:))
                ?? decoder.userInfo[Self.profileUserInfoKey] as? DetectionProfile
        else {
            throw DecodingError.keyNotFound(
                DetectionCodingKey("profile"),
                DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "detection settings without a known profile"))
        }
        self.profile = profile
        let rules = members["rules"].flatMap { try? container.decode(String.self, forKey: $0) }
        self.rules = rules.flatMap(DetectionRules.init(rawValue:)) ?? .standard
        if let key = members["parameters"] {
            parameters = (try? container.decode(DetectionParameters.self, forKey: key)) ?? DetectionParameters()
        } else {
            parameters = DetectionParameters()
            parameters.read(profile, from: container)
        }
    }
}

extension DetectionParameters: Codable {
    /// `{"table-tennis":{"min_peak_g":1.3,…},"jump":{"min_flight":0.15,…},"throw":{…},"steps":{…}}`: every
    /// parameter under its profile and key, as the configuration file names them.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: DetectionCodingKey.self)
        for profile in DetectionProfile.allCases {
            var block = container.nestedContainer(keyedBy: DetectionCodingKey.self, forKey: .init(profile.rawValue))
            for field in DetectionParameterKeys.fields(for: profile) {
                try block.encode(self[keyPath: field.path], forKey: .init(field.key))
            }
            for field in DetectionParameterKeys.integerFields(for: profile) {
                try block.encode(self[keyPath: field.path], forKey: .init(field.key))
            }
        }
    }

    /// Reads leniently: a missing profile or key, or a value its parameter cannot take, keeps the
    /// default; unknown keys are ignored.
    public init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: DetectionCodingKey.self)
        let members = LenientMembers(container)
        for profile in DetectionProfile.allCases {
            guard let key = members[profile.rawValue],
                let block = try? container.nestedContainer(keyedBy: DetectionCodingKey.self, forKey: key)
            else { continue }
            read(profile, from: block)
        }
    }

    /// Sets the profile's parameters that `container` holds with a value they can take.
    mutating func read(_ profile: DetectionProfile, from container: KeyedDecodingContainer<DetectionCodingKey>) {
        let members = LenientMembers(container)
        for field in DetectionParameterKeys.fields(for: profile) {
            guard let key = members[field.key], let value = try? container.decode(Double.self, forKey: key),
                field.problem(with: value) == nil
            else { continue }
            self[keyPath: field.path] = value
        }
        for field in DetectionParameterKeys.integerFields(for: profile) {
            guard let key = members[field.key], let number = try? container.decode(Double.self, forKey: key),
                number.rounded() == number, let value = Int(exactly: number), field.problem(with: value) == nil
            else { continue }
            self[keyPath: field.path] = value
        }
    }
}

extension DetectionProfile: Codable {}
extension DetectionRules: Codable {}

/// A coding key that is any string.
struct DetectionCodingKey: CodingKey, ExpressibleByStringLiteral {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
    init(stringLiteral name: String) { stringValue = name }
}

/// A keyed container's members found by name whatever key strategy its decoder uses: `min_flight`
/// and `minFlight` (what `.convertFromSnakeCase` turns it into) find the same member.
struct LenientMembers<Key: CodingKey> {
    private var keys: [String: Key] = [:]

    init(_ container: KeyedDecodingContainer<Key>) {
        for key in container.allKeys { keys[Self.folded(key.stringValue)] = key }
    }

    subscript(name: String) -> Key? { keys[Self.folded(name)] }

    private static func folded(_ name: String) -> String { String(name.lowercased().filter { $0 != "_" }) }
}
