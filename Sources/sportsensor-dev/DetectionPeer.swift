// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors
import Detection
import Foundation
import SDUSensor

/// Why the batch peer of `bench` could not run, and what to do about it.
struct DetectionPeerError: CodeAndMessageHashable {
    enum Code: String, NamedCode {
        case missing
        case failed
        case badOutput = "bad-output"
    }

    var code: Code
    var message: String
}

/// What one run of `scripts/detection-peer.py` printed.
struct DetectionPeerResult: Decodable, Equatable {
    var profile: String
    var samples: Int
    var events: Int
    /// The best repeat's compute time, s.
    var seconds: Double
    var repeats: Int

    var samplesPerSecond: Double { Double(samples) / seconds }
}

/// The batch peer of the streaming detectors: numpy + scipy (Debian's `python3-numpy` and
/// `python3-scipy`) over the same Int16 samples, run by `scripts/detection-peer.py` in a child
/// process, so the ratio is measured side by side in one run.
struct DetectionPeer {
    /// Debian's interpreter, where `python3-numpy` and `python3-scipy` install (a `python3` earlier on
    /// PATH, a virtual environment or pyenv, may lack them or carry other versions).
    static let defaultPython = "/usr/bin/python3"
    static let defaultScript = "scripts/detection-peer.py"

    var python = DetectionPeer.defaultPython
    var script = DetectionPeer.defaultScript

    private var remedy: String {
        "install Debian's python3-numpy and python3-scipy (`make deps` does), or run `bench --no-peer` to skip the "
            + "peer"
    }

    /// Fails with what to install when the interpreter, numpy, scipy or the script is missing.
    func check() throws {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw DetectionPeerError(code: .missing, message: "\(python) is not an executable Python: \(remedy)")
        }
        guard FileManager.default.isReadableFile(atPath: script) else {
            throw DetectionPeerError(
                code: .missing,
                message: "the peer script \(script) is not readable: run from the repository's root or pass "
                    + "--peer-script PATH")
        }
        let (status, _, errors) = try Self.execute(python, ["-c", "import numpy, scipy.signal"])
        guard status == 0 else {
            throw DetectionPeerError(
                code: .missing,
                message: "\(python) cannot import numpy and scipy (\(Self.lastLine(errors))): \(remedy)")
        }
    }

    /// glibc's malloc tunables that keep freed arrays in the heap: by default every array above 128 KiB
    /// (600 s of one axis at 100 Hz is 480 kB) is a fresh `mmap` whose pages fault in on first touch, and
    /// freed memory is trimmed back to the kernel. With these the peer times numpy's arithmetic alone.
    static let warmAllocator = ["MALLOC_MMAP_THRESHOLD_": "33554432", "MALLOC_TRIM_THRESHOLD_": "1073741824"]

    /// Runs the peer for `profile` over `samplesFile` (written by `write(_:to:)`), with `environment`
    /// added to this process's.
    func run(
        profile: DetectionProfile, samplesFile: String, rate: Double, repeats: Int, environment: [String: String] = [:]
    ) throws -> DetectionPeerResult {
        let arguments = [
            script, "--profile", profile.rawValue, "--rate", "\(rate)", "--repeats", "\(repeats)", samplesFile,
        ]
        let (status, output, errors) = try Self.execute(python, arguments, environment: environment)
        guard status == 0 else {
            throw DetectionPeerError(
                code: .failed,
                message: "\(script) --profile \(profile.rawValue) exited with status \(status) "
                    + "(\(Self.lastLine(errors))): \(remedy)")
        }
        guard let result = try? JSONDecoder().decode(DetectionPeerResult.self, from: output),
            result.seconds > 0, result.profile == profile.rawValue
        else {
            let text = String(decoding: output, as: UTF8.self)
            throw DetectionPeerError(
                code: .badOutput,
                message: "\(script) printed \(text.debugDescription), not one JSON object with profile, samples, "
                    + "events, seconds and repeats for \(profile.rawValue): is it this tree's script?")
        }
        return result
    }

    /// Writes `raw` as little-endian Int16 x, y, z triplets, the peer's input.
    static func write(_ raw: [RawAcceleration], to path: String) throws {
        var bytes = [UInt8]()
        bytes.reserveCapacity(raw.count * 6)
        for sample in raw {
            for axis in [sample.x, sample.y, sample.z] {
                let bits = UInt16(bitPattern: axis)
                bytes.append(UInt8(truncatingIfNeeded: bits))
                bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
            }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    private static func lastLine(_ data: Data) -> String {
        String(decoding: data, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? "no message"
    }

    /// Runs `executable` with `arguments`; returns its exit status, standard output and standard error.
    private static func execute(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:]
    ) throws -> (Int32, Data, Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Output is one line and errors a traceback at most, both far below a pipe's 64 KiB: reading one
        // after the other cannot leave the child blocked on a full pipe.
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, outputData, errorData)
    }
}
