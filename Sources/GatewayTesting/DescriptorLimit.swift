// SPDX-License-Identifier: GPL-2.0-or-later
import Glibc

/// The process's open-file limit, for tests that hold thousands of client connections.
public enum DescriptorLimit {
    /// The limit could not be raised.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String
    }

    /// Raises the soft `RLIMIT_NOFILE` to `wanted` when it is lower (never lowers it: other
    /// suites of this process may hold descriptors).
    public static func raise(to wanted: rlim_t) throws {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            throw Failure(description: "getrlimit(RLIMIT_NOFILE) failed: errno \(errno)")
        }
        guard limit.rlim_cur < wanted else { return }
        guard limit.rlim_max >= wanted else {
            throw Failure(description: "the test needs \(wanted) descriptors; the hard limit is \(limit.rlim_max)")
        }
        limit.rlim_cur = wanted
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            throw Failure(description: "setrlimit(RLIMIT_NOFILE, \(wanted)) failed: errno \(errno)")
        }
    }
}
