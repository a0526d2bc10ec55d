// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors

/// A link-state name from the wire that is none of `LinkStateName`'s: a daemon newer (or older)
/// than this program. Refused rather than read as some other state, which would show a sensor as
/// connected, say, when it is not.
public struct LinkStateNameError: CodedError, CodeAndMessageHashable, Sendable {
    /// What kind of failure.
    public struct Code: NamedCode {
        /// The stable name.
        public let name: String
        /// The name is not one this build knows.
        public static let unknownName = Code(name: "unknown-link-state")
    }

    /// What kind of failure.
    public let code: Code
    /// What was wrong, where, and what to do.
    public let message: String
    /// The name as it arrived.
    public let name: String
    /// The decoder's account: where in the document the name was (`DecodingError.dataCorrupted`).
    public let cause: (any Error)?

    /// The error for `name` found at `codingPath`.
    public init(unknown name: String, at codingPath: [any CodingKey]) {
        let path = codingPath.map(\.stringValue).joined(separator: ".")
        let known = LinkStateName.allCases.map(\.rawValue).joined(separator: ", ")
        code = .unknownName
        self.name = name
        message =
            "unknown link state \"\(TerminalText.escaped(name))\" at \(path.isEmpty ? "the top level" : path) "
            + "(known: \(known)): run a sportsensorctl of the same version as sportsensord "
            + "(`sportsensorctl status` shows the daemon's)"
        cause = DecodingError.dataCorrupted(
            .init(codingPath: codingPath, debugDescription: "\"\(name)\" is not a LinkStateName"))
    }
}
