// SPDX-License-Identifier: GPL-2.0-or-later

/// The shape of every error the project throws (house rule 5): a ``code`` for programs to branch
/// on, a ``message`` for people that says what happened and what to do about it, and the
/// ``cause`` underneath, if any.
///
/// Conforming types share one ``description``, so errors read alike in logs and on the
/// terminal: `location: code: message; fix [details]; cause: cause`, each part there only when
/// the error has it.
///
/// ```swift
/// public struct StoreError: CodedError {
///     public var code: Code
///     public var message: String
///     public var cause: (any Error)?
/// }
/// ```
public protocol CodedError: Error, CustomStringConvertible {
    /// A kind of failure. Its `description` is the code's stable name (`linkLost`, `not-found`).
    associatedtype Code: Hashable & Sendable & CustomStringConvertible

    /// What kind of failure this is; stable across releases.
    var code: Code { get }
    /// What happened and how to fix it, for a person.
    var message: String { get }
    /// The error underneath (an `Errno`, a database error, a codec error), if any; nil by default.
    var cause: (any Error)? { get }
    /// Facts that locate the failure (the system call and its errno, the ATT request and
    /// handle), shown in brackets after the message; none by default.
    var details: [String] { get }
    /// Where in something a person wrote the mistake is (`config.toml:12: sessions.idle_stop_minutes`,
    /// `line 3`), printed first, as compilers print it, so an editor can jump there; nil by default.
    var location: String? { get }
    /// What to do about it, when the error keeps it apart from the message (the control API's
    /// `fix` field); nil by default, when the message says it.
    var fix: String? { get }
}

extension CodedError {
    /// No cause.
    public var cause: (any Error)? { nil }

    /// No details.
    public var details: [String] { [] }

    /// Not in a file or a request.
    public var location: String? { nil }

    /// The message says what to do.
    public var fix: String? { nil }

    /// `location: code: message; fix [details]; cause: cause`.
    public var description: String {
        var text = location.map { "\($0): " } ?? ""
        text += "\(code): \(message)"
        if let fix { text += "; \(fix)" }
        let details = self.details
        if !details.isEmpty { text += " [" + details.joined(separator: ", ") + "]" }
        if let cause { text += "; cause: \(cause)" }
        return text
    }
}

/// A ``CodedError`` that is equal to another when their codes and messages are. The cause is any
/// error and cannot be compared, so it takes no part in equality or the hash.
public protocol CodeAndMessageHashable: CodedError, Hashable {}

extension CodeAndMessageHashable {
    /// Equal codes and messages.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }

    /// Hashes the code and the message.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }
}

/// A ``CodedError/Code`` that is its own stable name (`not-found`, `linkLost`): its `description`,
/// which every coded error prints first, is the name.
public protocol NamedCode: Hashable, Sendable, CustomStringConvertible {
    /// The stable name.
    var name: String { get }
}

extension NamedCode {
    /// The name.
    public var description: String { name }
}

extension NamedCode where Self: RawRepresentable, RawValue == String {
    /// The raw value, so `enum Code: String, NamedCode { case linkLost }` is named `linkLost`
    /// (or its explicit raw value) with nothing more written.
    public var name: String { rawValue }
}
