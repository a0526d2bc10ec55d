// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors

/// A configuration the daemon refuses to start with: which file, line and key, what is wrong and
/// how to fix it. The executable prints it and exits with status 78 (`EX_CONFIG`) before starting
/// anything.
public struct ConfigurationError: CodedError, Hashable, Sendable {
    /// What kind of mistake.
    public struct Code: NamedCode {
        /// The stable name.
        public let name: String

        /// The file cannot be read.
        public static let unreadable = Code(name: "unreadable")
        /// The file is not valid TOML.
        public static let syntax = Code(name: "syntax")
        /// A key or section this version does not know.
        public static let unknownKey = Code(name: "unknown-key")
        /// A value of the wrong TOML type.
        public static let wrongType = Code(name: "wrong-type")
        /// A value of the right type outside what is allowed.
        public static let invalidValue = Code(name: "invalid-value")
    }

    /// The exit status for a bad configuration (`EX_CONFIG` from sysexits.h).
    public static let exitStatus: Int32 = 78

    /// What kind of mistake.
    public var code: Code
    /// The file, or `command line` / `environment` for a flag or a variable.
    public var file: String
    /// The 1-based line, when known.
    public var line: Int?
    /// The dotted key (`sessions.idle_stop_minutes`), when one is to blame.
    public var key: String?
    /// What is wrong.
    public var message: String
    /// How to fix it.
    public var fix: String?

    /// Creates an error.
    public init(_ code: Code, file: String, line: Int? = nil, key: String? = nil, message: String, fix: String) {
        self.code = code
        self.file = file
        self.line = line
        self.key = key
        self.message = message
        self.fix = fix
    }

    /// `FILE:LINE: KEY`, first in the description as compilers print it, so editors jump there
    /// (`FILE:LINE: KEY: CODE: MESSAGE; FIX`).
    public var location: String? {
        var text = file
        if let line { text += ":\(line)" }
        if let key { text += ": \(key)" }
        return text
    }
}
