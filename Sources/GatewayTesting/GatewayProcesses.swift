// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// Finds the project's executables next to the running test binary (`.build/<config>/`).
public enum BuiltProducts {
    /// The path of the executable product `name` built with the tests, or nil when it is not there.
    public static func path(of name: String) -> String? {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }
}

/// What a finished command did.
public struct CommandResult: Sendable, CustomStringConvertible {
    /// The exit status (or 128 + the signal that ended it).
    public var status: Int32
    /// Everything it wrote to stdout.
    public var standardOutput: String
    /// Everything it wrote to stderr.
    public var standardError: String

    /// `status N, stdout …, stderr …` for failure messages.
    public var description: String {
        "status \(status)\n--- stdout\n\(standardOutput)\n--- stderr\n\(standardError)"
    }
}

/// Why a test process could not be run or did not behave.
public struct ProcessHarnessError: Error, CustomStringConvertible {
    /// What happened.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

/// A child process whose stdout is read line by line as it arrives (a `tail`, a daemon).
public final class LineCollectingProcess: Sendable {
    /// The process.
    public let process: Process
    private let buffer = LineBuffer()

    private final class LineBuffer: Sendable {
        let lines = NIOLockedValueBox<[String]>([])
        let finished = NIOLockedValueBox(false)
    }

    /// Starts `executable` with `arguments` and `environment` added to this process's; stderr
    /// goes to `standardErrorPath` (or is discarded).
    public init(
        executable: String, arguments: [String], environment: [String: String] = [:],
        standardErrorPath: String? = nil
    ) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        if let standardErrorPath {
            guard FileManager.default.createFile(atPath: standardErrorPath, contents: nil) else {
                throw ProcessHarnessError("cannot create \(standardErrorPath)")
            }
            process.standardError = FileHandle(forWritingAtPath: standardErrorPath)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        self.process = process
        try process.run()
        let reader = output.fileHandleForReading
        let thread = Thread { [buffer] in
            var pending = Data()
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    buffer.lines.withLockedValue { $0.append(line) }
                }
            }
            buffer.finished.withLockedValue { $0 = true }
        }
        thread.start()
    }

    /// The lines read so far.
    public var output: [String] { buffer.lines.withLockedValue { $0 } }

    /// True once stdout reached its end.
    public var isOutputFinished: Bool { buffer.finished.withLockedValue { $0 } }

    /// Sends `signal` to the process.
    public func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits up to `timeout` for the process to exit; returns its status (128 + signal when a
    /// signal ended it), or nil when it is still running.
    public func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
        // Let the reader drain what was written last.
        for _ in 0..<100 where !isOutputFinished { try? await Task.sleep(for: .milliseconds(10)) }
        return process.terminationReason == .uncaughtSignal
            ? 128 + process.terminationStatus : process.terminationStatus
    }

    /// Waits up to `timeout` (real time) until `condition` holds for the lines read so far.
    public func waitForOutput(timeout: Duration, until condition: ([String]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(output) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition(output)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// Runs `executable` to completion (at most `timeout`, then SIGKILL) and returns what it did.
public func runCommand(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:],
    timeout: Duration = .seconds(60)
) async throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    // Files rather than pipes: a full pipe buffer can never block the child.
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cmd-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let outPath = directory.appendingPathComponent("out").path
    let errPath = directory.appendingPathComponent("err").path
    guard FileManager.default.createFile(atPath: outPath, contents: nil),
        FileManager.default.createFile(atPath: errPath, contents: nil)
    else { throw ProcessHarnessError("cannot create the output files in \(directory.path)") }
    let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
    let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let deadline = ContinuousClock.now + timeout
    while process.isRunning {
        if ContinuousClock.now >= deadline {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw ProcessHarnessError("\(executable) \(arguments.joined(separator: " ")) ran longer than \(timeout)")
        }
        try await Task.sleep(for: .milliseconds(10))
    }
    try out.close()
    try err.close()
    let status =
        process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    return CommandResult(
        status: status,
        standardOutput: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
        standardError: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
}
