// SPDX-License-Identifier: GPL-2.0-or-later
import Glibc
import SystemCalls
import SystemPackage

/// The control socket's file: making room for it before the server binds, restricting it once
/// bound, removing it on shutdown. Each step is one short, non-blocking system call.
enum UnixSocketFile {
    /// The longest path `sockaddr_un.sun_path` holds (108 bytes with the terminating NUL).
    static let maximumPathLength = 107

    /// Makes `path` ready to bind: creates its directory if missing (mode 0755: the socket's own
    /// mode guards access), and removes a stale socket that nothing listens on. Refuses when a
    /// process accepts connections on it, or when something that is not a socket is there.
    static func prepare(path: String) throws(ControlServerError) {
        guard !path.isEmpty, path.utf8.count <= maximumPathLength else {
            throw ControlServerError(
                .invalidConfiguration,
                "the control socket path '\(path)' is empty or longer than \(maximumPathLength) bytes: "
                    + "configure a shorter control socket path")
        }
        try createDirectories(for: path)

        var info = stat()
        switch syscall("lstat", { lstat(path, &info) }) {
        case .failure(.noSuchFileOrDirectory):
            return
        case .failure(let errno):
            throw ControlServerError(
                .socketPathUnusable, "cannot inspect the control socket path \(path): \(errno)", cause: errno)
        case .success:
            break
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw ControlServerError(
                .socketPathOccupied,
                "\(path) exists and is not a socket: move it away or configure another control socket path")
        }
        switch probe(path: path) {
        case .listening:
            throw ControlServerError(
                .socketInUse,
                "another sportsensord is already listening on \(path): stop it (systemctl stop sportsensord) "
                    + "or configure another control socket path")
        case .failed(let errno):
            throw ControlServerError(
                .socketPathUnusable,
                "cannot tell whether anything listens on \(path) (\(errno)): check its permissions or remove it",
                cause: errno)
        case .stale:
            switch syscall("unlink", { unlink(path) }) {
            case .success, .failure(.noSuchFileOrDirectory):
                return
            case .failure(let errno):
                throw ControlServerError(
                    .socketPathUnusable,
                    "cannot remove the stale control socket \(path): \(errno); remove it by hand", cause: errno)
            }
        }
    }

    /// What a connection attempt tells about a socket file.
    enum Probe: Equatable {
        /// A process accepts connections (or its backlog is full, which means the same).
        case listening
        /// Nobody listens: a socket left behind by a process that died.
        case stale
        /// The attempt failed for another reason (permissions, most likely).
        case failed(Errno)
    }

    /// Connects to `path` without blocking and closes again at once.
    static func probe(path: String) -> Probe {
        let descriptor: Int32
        switch syscall("socket", { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0) }) {
        case .success(let value): descriptor = value
        case .failure(let errno): return .failed(errno)
        }
        defer { _ = syscall("close", retryingOnEINTR: false) { Glibc.close(descriptor) } }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.prefix(maximumPathLength).enumerated() { buffer[index] = byte }
        }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                syscall("connect") { connect(descriptor, socketAddress, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }
        switch result {
        case .success, .failure(.resourceTemporarilyUnavailable), .failure(.nowInProgress):
            return .listening
        case .failure(.connectionRefused), .failure(.noSuchFileOrDirectory):
            return .stale
        case .failure(let errno):
            return .failed(errno)
        }
    }

    /// Creates the missing directories above `path`.
    static func createDirectories(for path: String) throws(ControlServerError) {
        var components = path.split(separator: "/", omittingEmptySubsequences: true).dropLast()
        var directory = path.hasPrefix("/") ? "" : "."
        while let component = components.first {
            components = components.dropFirst()
            directory += "/" + component
            switch syscall("mkdir", { mkdir(directory, 0o755) }) {
            case .success, .failure(.fileExists):
                continue
            case .failure(let errno):
                throw ControlServerError(
                    .socketPathUnusable,
                    "cannot create the control socket's directory \(directory): \(errno); create it (systemd: "
                        + "RuntimeDirectory=sportsensord) or configure another control socket path",
                    cause: errno)
            }
        }
    }

    /// What `restrict` did, for the log.
    struct Restriction: Equatable {
        /// True when the group was found and the socket given to it.
        var groupApplied: Bool
        /// A failure worth a warning, if any.
        var problem: String?
    }

    /// Gives the bound socket mode 0660 and, when the group exists, that group: members of it
    /// may then use `sportsensorctl` without root.
    static func restrict(path: String, mode: mode_t, group: String?) -> Restriction {
        var restriction = Restriction(groupApplied: false, problem: nil)
        if case .failure(let errno) = syscall("chmod", { chmod(path, mode) }) {
            restriction.problem = "cannot chmod \(path): \(errno)"
        }
        guard let group, let gid = groupID(named: group) else { return restriction }
        // Under the unit the daemon runs as that group already: no chown (which its system
        // call filter forbids) is needed.
        var status = stat()
        if case .success = syscall("stat", { stat(path, &status) }), status.st_gid == gid {
            restriction.groupApplied = true
            return restriction
        }
        switch syscall("chown", { chown(path, uid_t.max, gid) }) {
        case .success:
            restriction.groupApplied = true
        case .failure(let errno):
            let problem = "cannot give \(path) to group \(group): \(errno) (run as root or as a member of it)"
            restriction.problem = restriction.problem.map { "\($0); \(problem)" } ?? problem
        }
        return restriction
    }

    /// The group's id, or nil when no such group exists.
    static func groupID(named name: String) -> gid_t? {
        var group = Glibc.group()
        var result: UnsafeMutablePointer<Glibc.group>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        let status = buffer.withUnsafeMutableBufferPointer { bytes in
            getgrnam_r(name, &group, bytes.baseAddress, bytes.count, &result)
        }
        guard status == 0, result != nil else { return nil }
        return group.gr_gid
    }

    /// The socket file's identity (device and inode), to remove only the file this server bound.
    static func identity(path: String) -> (dev_t, ino_t)? {
        var info = stat()
        guard case .success = syscall("lstat", { lstat(path, &info) }) else { return nil }
        return (info.st_dev, info.st_ino)
    }

    /// Removes the socket file if it is still the one identified by `identity`.
    static func remove(path: String, identity: (dev_t, ino_t)?) {
        guard let identity, let current = self.identity(path: path), current == identity else { return }
        _ = syscall("unlink") { unlink(path) }
    }
}
