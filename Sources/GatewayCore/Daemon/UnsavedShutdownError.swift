// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors
import SessionStore

/// Shutdown ended sessions whose end the store could not take: the daemon exits with a failure
/// instead of reporting a clean stop, naming the recovery files (or the loss).
public struct UnsavedShutdownError: CodedError, Sendable {
    /// `spilled` when every such session's rows are in a recovery file, else `unsaved`.
    public struct Code: NamedCode {
        public let name: String
        /// The rows are in recovery files that the next start imports.
        public static let spilled = Code(name: "spilled")
        /// Some rows could not be written anywhere.
        public static let unsaved = Code(name: "unsaved")
    }

    /// One error per session whose end is not in the database.
    public var failures: [StoreError]

    public var code: Code { failures.allSatisfy { $0.code == .spilled } ? .spilled : .unsaved }

    public var message: String {
        let head =
            code == .spilled
            ? "\(failures.count) session(s) could not be closed in the store and were spilled to recovery files, "
                + "imported at the next start (free space in the state directory first)"
            : "\(failures.count) session(s) could not be closed in the store, and not every sample could be spilled"
        return ([head] + failures.map(\.message)).joined(separator: "; ")
    }
}
