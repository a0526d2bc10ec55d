// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import Foundation
import SDUSensor

/// General and audio compressors run on the same samples the store keeps, in the same run of
/// `bench-store --motion`: the counts as little-endian Int16 x, y, z triplets (6 bytes a sample,
/// no times or indices), compressed by Debian's `flac -8` (as 3 channels of 16-bit audio),
/// `xz -9e` and `zstd -19`. Their output bytes per sample sit next to the store's.
struct CompressionPeers {
    /// A peer's name, command line and its output's size.
    struct Figure {
        var name: String
        var bytes: Int
    }

    static let commands: [(name: String, arguments: [String])] = [
        (
            "flac -8",
            [
                "flac", "-8", "--silent", "--force-raw-format", "--endian=little", "--sign=signed", "--channels=3",
                "--bps=16", "--sample-rate=100", "--no-seektable", "--stdout",
            ]
        ),
        ("xz -9e", ["xz", "-9e", "--stdout"]),
        ("zstd -19", ["zstd", "-19", "--stdout", "--quiet"]),
    ]

    /// Each peer's output size for `raw`, compressed from a file in `directory`.
    static func measure(_ raw: [RawAcceleration], directory: String) throws -> [Figure] {
        let input = directory + "/peer-samples.s16le"
        // The same Int16 triplets the detection peer reads.
        try DetectionPeer.write(raw, to: input)
        defer { try? FileManager.default.removeItem(atPath: input) }
        return try commands.map { name, arguments in
            Figure(name: name, bytes: try outputSize(arguments + [input]))
        }
    }

    /// Bytes `arguments` (a command found on PATH) writes to standard output.
    static func outputSize(_ arguments: [String]) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch {
            throw HarnessError(
                .peerFailed, "cannot run \(arguments[0]): install flac, xz-utils and zstd (make deps)", cause: error)
        }
        var size = 0
        while true {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            size += chunk.count
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw HarnessError(
                .peerFailed,
                "\(arguments[0]) exited with \(process.terminationStatus): is it installed? (make bench-store installs it)"
            )
        }
        return size
    }
}
