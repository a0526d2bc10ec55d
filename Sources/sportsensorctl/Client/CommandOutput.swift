// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import SystemCalls

/// Every file the CLI writes, standard output included, goes through `WholeFileWriter`: a write
/// that fails is an error with the fix (74 for a full disk or an I/O error, 73 for a file that
/// cannot be created), never a truncated file and exit 0.
enum CommandOutput {
    /// Replaces `path` with `bytes`, whole or not at all.
    static func write(_ bytes: [UInt8], toFile path: String) throws(CommandFailure) {
        if case .failure(let failure) = WholeFileWriter.replace(path, with: bytes) {
            throw Self.failure(failure, writing: path)
        }
    }

    /// What to tell the user about `failure` while writing `what`.
    static func failure(_ failure: WholeFileWriter.Failure, writing what: String) -> CommandFailure {
        if failure.isDiskFull {
            return CommandFailure(
                exitCode: 74,
                message: "cannot write \(what): the disk is full (\(failure)): free space on it and run the command "
                    + "again, or write to another disk")
        }
        if failure.isWriteError {
            return CommandFailure(
                exitCode: 74, message: "cannot write \(what) (\(failure)): check the disk and run the command again")
        }
        return CommandFailure(
            exitCode: 73,
            message: "cannot create \(what) (\(failure)): check that its directory exists and is writable")
    }
}

/// Writes bytes to standard output at once, checking every write. When the reader has gone
/// (`tail --json | head` ended: EPIPE), there is nobody left to tell anything: the command ends
/// quietly, as command-line tools do. Any other failure (a full disk under `> file`, `/dev/full`)
/// is reported on standard error and ends the command with 74.
func writeStandardOutput(_ data: Data) {
    let result = data.withUnsafeBytes { WholeFileWriter.writeAll($0, to: STDOUT_FILENO) }
    guard case .failure(let failure) = result else { return }
    if failure.errno == .brokenPipe { exit(EXIT_SUCCESS) }
    let error = CommandOutput.failure(failure, writing: "standard output")
    writeStandardError("error: \(error.message)\n")
    exit(error.exitCode)
}
