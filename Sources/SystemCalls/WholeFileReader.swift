// SPDX-License-Identifier: GPL-2.0-or-later
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads files whole and says why not: a file that is not there is told apart from one that
/// cannot be read (`EIO` from a failing card, `EACCES`, `EISDIR`), which a reader must not take
/// for the end of its data.
public enum WholeFileReader {
    /// A failed read: the call that failed and its `errno` (the writer's type: one shape for both).
    public typealias Failure = WholeFileWriter.Failure

    /// The bytes of `path`, or nil when there is no such file (`ENOENT`).
    public static func contents(of path: String) -> Result<[UInt8]?, Failure> {
        let descriptor: Int32
        switch syscall("open", { open(path, O_RDONLY | O_CLOEXEC) }) {
        case .success(let opened): descriptor = opened
        case .failure(.noSuchFileOrDirectory): return .success(nil)
        case .failure(let error): return .failure(Failure(call: "open", errno: error))
        }
        defer { _ = syscall("close", retryingOnEINTR: false) { close(descriptor) } }
        var bytes: [UInt8] = []
        var piece = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let result = piece.withUnsafeMutableBytes { buffer in
                syscall("read") { read(descriptor, buffer.baseAddress, buffer.count) }
            }
            switch result {
            case .success(0): return .success(bytes)
            case .success(let count): bytes += piece[..<count]
            case .failure(let error): return .failure(Failure(call: "read", errno: error))
            }
        }
    }
}
