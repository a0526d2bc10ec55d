// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import Dispatch
import Foundation
import Glibc

/// An `--hci` value: `hci0`, or just the index `0`.
struct AdapterName: ExpressibleByArgument, Hashable, Sendable, CustomStringConvertible {
    /// The adapter's index, 0 for `hci0`.
    var index: UInt16

    /// Parses `hciN` or `N` (N at most 65535).
    init?(argument: String) {
        let digits = argument.hasPrefix("hci") ? String(argument.dropFirst(3)) : argument
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let index = UInt16(digits) else { return nil }
        self.index = index
    }

    /// `hci0`.
    var description: String { "hci\(index)" }
}

/// Lines for people on standard output, flushed at once (the VM test reads them from a pipe).
enum ConsoleLine {
    static func out(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// Runs `body` in a task that SIGINT and SIGTERM cancel, so every command that drives a
/// controller leaves it as it found it (scans and advertising disabled, links closed).
func runCancellingOnSignals<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let task = Task { try await body() }
    var sources: [any DispatchSourceSignal] = []
    for number in [SIGINT, SIGTERM] {
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(
            signal: number, queue: DispatchQueue(label: "sportsensor-dev.signal"))
        source.setEventHandler { task.cancel() }
        source.resume()
        sources.append(source)
    }
    defer {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
    return try await task.value
}
