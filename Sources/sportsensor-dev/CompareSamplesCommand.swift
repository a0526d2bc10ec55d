// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import Foundation
import SDUSensor

/// `sportsensor-dev itest-compare` (hidden): the checks of `make itest` on the files the VM run
/// produced, so they are code with tests rather than shell arithmetic.
struct CompareSamplesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "itest-compare",
        abstract: "Compare a stream's samples with the virtual sensor's ground truth and a decoded capture.",
        shouldDisplay: false
    )

    @Option(help: "The virtual sensor's --truth CSV.")
    var truth: String

    @Option(help: "The stream's --csv.")
    var received: String

    @Option(help: "The stream's --stats file (key=value lines).")
    var stats: String

    @Option(help: "`sportsensorctl decode` of the HCI capture.")
    var decoded: String

    @Option(help: "The sample rate the t columns were written with.")
    var rate = 100

    @Option(name: .customLong("min-samples"), help: "How many samples the stream must have received.")
    var minimumSamples = 2000

    @Option(name: .customLong("min-reconnects"), help: "How many reconnections must have happened.")
    var minimumReconnects = 1

    func run() throws {
        let read = { (path: String) throws -> String in try String(contentsOfFile: path, encoding: .utf8) }
        let report = try SampleComparison.compare(
            truth: SampleCSV.parse(read(truth)), received: SampleCSV.parse(read(received)),
            decoded: SampleCSV.parse(read(decoded)), streamStatistics: SampleComparison.keyValues(read(stats)),
            rate: Double(rate), minimumSamples: minimumSamples, minimumReconnects: minimumReconnects)
        for line in report.lines { print(line) }
        guard report.failures.isEmpty else {
            for failure in report.failures { print("FAIL: \(failure)") }
            throw ExitCode(1)
        }
        print("samples match")
    }
}

/// The comparisons of `make itest`.
enum SampleComparison {
    /// What the comparison found.
    struct Report: Hashable, Sendable {
        /// Findings for the log.
        var lines: [String] = []
        /// Every check that failed; empty when all passed.
        var failures: [String] = []
    }

    /// Parses `key=value` lines (others are ignored).
    static func keyValues(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return values
    }

    /// Checks that
    /// - the stream received at least `minimumSamples`, with strictly increasing indices (no
    ///   duplicate), each equal to the ground truth's sample at that index;
    /// - the indices it skipped between its first and last sample are exactly the `missing`
    ///   the stream reported (the gap is accounted), and the truth's samples in those gaps were
    ///   really sent, i.e. lost on the way (not invented);
    /// - at least `minimumReconnects` reconnections happened and none were duplicates;
    /// - the capture, decoded independently, holds every received reading in the same order, and
    ///   only readings the sensor sent; what it holds beyond the stream between the stream's
    ///   samples (notifications in flight when the link dropped) is at most what the stream skipped.
    static func compare(
        truth: [AccelerationSample], received: [AccelerationSample], decoded: [AccelerationSample],
        streamStatistics: [String: String], rate: Double, minimumSamples: Int, minimumReconnects: Int
    ) -> Report {
        var report = Report()
        func index(_ sample: AccelerationSample) -> Int { Int((sample.t * rate).rounded()) }
        func reading(_ sample: AccelerationSample) -> [Double] { [sample.x, sample.y, sample.z] }

        var truthByIndex: [Int: [Double]] = [:]
        for sample in truth { truthByIndex[index(sample)] = reading(sample) }
        report.lines.append(
            "truth: \(truth.count) samples sent; received: \(received.count); decoded from the capture: \(decoded.count)"
        )

        if received.count < minimumSamples {
            report.failures.append("the stream received \(received.count) samples, expected at least \(minimumSamples)")
        }
        var previous: Int?
        var skipped = 0
        var mismatches = 0
        for sample in received {
            let i = index(sample)
            if let previous {
                if i <= previous {
                    report.failures.append("sample index \(i) follows \(previous): a duplicate or reordering")
                } else {
                    skipped += i - previous - 1
                }
            }
            previous = i
            guard let expected = truthByIndex[i] else {
                report.failures.append("sample index \(i) was received but the sensor never sent it")
                continue
            }
            if expected != reading(sample) {
                mismatches += 1
                if mismatches <= 5 {
                    report.failures.append("sample \(i): received \(reading(sample)), the sensor sent \(expected)")
                }
            }
        }
        if mismatches > 5 { report.failures.append("… \(mismatches) samples differ in total") }
        report.lines.append("indices skipped between received samples: \(skipped)")

        let reportedMissing = streamStatistics["missing"].flatMap { Int($0) }
        if reportedMissing != skipped {
            report.failures.append(
                "the stream reported \(streamStatistics["missing"] ?? "no") missing samples, its indices skip \(skipped)"
            )
        }
        let duplicates = streamStatistics["duplicates_dropped"].flatMap { Int($0) } ?? -1
        let reconnects = streamStatistics["reconnects"].flatMap { Int($0) } ?? -1
        report.lines.append("reconnects: \(reconnects); duplicates dropped by the link: \(duplicates)")
        if reconnects < minimumReconnects {
            report.failures.append("\(reconnects) reconnections, expected at least \(minimumReconnects)")
        }

        // The capture shows what reached the central's host, decoded independently. It may hold
        // more than the stream kept: notifications in flight when the link dropped reach the HCI
        // layer but no longer the ATT socket, and the stream stops at its sample count. So:
        // everything the stream got must appear in the capture in the same order, and everything
        // in the capture must be something the sensor sent, in the same order.
        let readings = received.map(reading)
        let captured = decoded.map(reading)
        let sent = truth.map(reading)
        switch subsequencePositions(of: readings, in: captured) {
        case .failure(let failure):
            report.failures.append(
                "received sample \(failure.position) (\(readings[failure.position])) is not in the capture in that "
                    + "order")
        case .success(let positions):
            let lastPosition = positions.last ?? -1
            let onlyOnTheWire = lastPosition + 1 - readings.count
            report.lines.append(
                "samples in the capture the stream did not deliver (in flight at the drop): \(onlyOnTheWire)")
            if onlyOnTheWire > skipped {
                report.failures.append(
                    "the capture holds \(onlyOnTheWire) samples between the stream's that it did not deliver, more "
                        + "than the \(skipped) it skipped")
            }
        }
        if case .failure(let failure) = subsequencePositions(of: captured, in: sent) {
            report.failures.append(
                "captured sample \(failure.position) (\(captured[failure.position])) is not something the sensor "
                    + "sent in that order")
        }
        return report
    }

    /// Where each element of `needle` is found in `haystack`, matching in order (greedily, which
    /// finds a match whenever one exists); the position in `needle` of the first element that
    /// cannot be matched otherwise.
    static func subsequencePositions(of needle: [[Double]], in haystack: [[Double]]) -> Result<[Int], MatchFailure> {
        var positions: [Int] = []
        positions.reserveCapacity(needle.count)
        var next = 0
        for (position, element) in needle.enumerated() {
            while next < haystack.count, haystack[next] != element { next += 1 }
            guard next < haystack.count else { return .failure(MatchFailure(position: position)) }
            positions.append(next)
            next += 1
        }
        return .success(positions)
    }

    /// The first element of a sequence that is not in the other.
    struct MatchFailure: Error, Hashable {
        var position: Int
    }
}
