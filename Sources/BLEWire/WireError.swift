// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors

/// The error every codec in `BLEWire` throws for bytes it cannot accept.
///
/// Parsing never traps: a truncated buffer, a length that disagrees with the payload, an
/// unknown opcode or a value outside its domain each become a `WireError` naming what was
/// expected, so a caller can count the malformed input and carry on.
public struct WireError: CodedError, Hashable, Sendable {
    /// What kind of problem the bytes had.
    public struct Code: NamedCode {
        public let name: String
        /// Fewer bytes than the structure needs.
        public static let truncated = Code(name: "truncated")
        /// The first byte names a different message than the one being parsed, or none known.
        public static let wrongOpcode = Code(name: "wrongOpcode")
        /// A length field or the total length disagrees with the structure.
        public static let wrongLength = Code(name: "wrongLength")
        /// A field holds a value outside its domain.
        public static let invalidValue = Code(name: "invalidValue")
        /// Well-formed, but a variant this implementation does not handle.
        public static let unsupported = Code(name: "unsupported")
    }

    /// What kind of problem the bytes had.
    public var code: Code
    /// Which structure was being parsed and what was wrong, for a log line.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    static func truncated(_ what: String, need: Int, have: Int) -> WireError {
        WireError(.truncated, "\(what): needs \(need) more byte(s), \(have) left")
    }
}
