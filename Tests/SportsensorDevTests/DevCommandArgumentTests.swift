// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLEWire
import SDUSensor
import Testing

@testable import sportsensor_dev

@Suite("sportsensor-dev Bluetooth commands: arguments")
struct BluetoothCommandArgumentTests {
    @Test("--hci takes hciN or N", arguments: [("hci0", 0), ("hci1", 1), ("3", 3), ("hci65535", 65535)])
    func adapterNames(argument: String, index: Int) throws {
        #expect(try #require(AdapterName(argument: argument)).index == UInt16(index))
        #expect(AdapterName(argument: argument)?.description == "hci\(index)")
    }

    @Test("--hci rejects everything else", arguments: ["", "hci", "hciX", "hci-1", "hci65536", "usb0", "hci٣"])
    func badAdapterNames(argument: String) {
        #expect(AdapterName(argument: argument) == nil)
    }

    @Test("virtual-sensor validates its options")
    func virtualSensorValidation() throws {
        let good = try VirtualSensorCommand.parse(["--hci", "hci1", "--disconnect-after", "1000", "--truth", "t.csv"])
        #expect(good.hci.index == 1 && good.disconnectAfter == 1000 && good.script == .tableTennis && good.rate == 100)
        for bad in [
            ["--hci", "hci1", "--rate", "10"], ["--hci", "hci1", "--disconnect-after", "0"],
            ["--hci", "hci1", "--connections", "0"], ["--hci", "hci1", "--readvertise-every", "-1"],
            ["--hci", "hci1", "--name", String(repeating: "A", count: 27)], ["--hci", "bt1"], [],
        ] {
            #expect(throws: (any Error).self, "\(bad)") { _ = try VirtualSensorCommand.parse(bad) }
        }
        _ = try VirtualSensorCommand.parse(["--hci", "1", "--name", String(repeating: "A", count: 26)])
    }

    @Test("stream validates its options")
    func streamValidation() throws {
        let good = try StreamCommand.parse(["--hci", "hci0", "--address", "00:AA:01:01:00:01", "--samples", "2000"])
        #expect(good.samples == 2000 && good.address == "00:AA:01:01:00:01" && !good.random)
        for bad in [
            ["--hci", "hci0", "--samples", "0"], ["--hci", "hci0", "--address", "00:AA:01"],
            ["--hci", "hci0", "--scan-seconds", "0"], ["--hci", "hci0", "--max-backoff", "0"],
            ["--hci", "hci0", "--rate", "0"], ["--hci", "hci0", "--timeout", "-5"],
        ] {
            #expect(throws: (any Error).self, "\(bad)") { _ = try StreamCommand.parse(bad) }
        }
    }

    @Test("scan validates its options")
    func scanValidation() throws {
        #expect(try HCIScanCommand.parse(["--hci", "hci0"]).seconds == 5)
        #expect(throws: (any Error).self) { _ = try HCIScanCommand.parse(["--hci", "hci0", "--seconds", "0"]) }
    }
}

@Suite("sportsensor-dev hci-scan: listing")
struct ScanListingTests {
    private let sensor = ScannedAdvertiser(
        address: BluetoothAddress(string: "FC:97:8B:75:10:AB", kind: .random)!, name: "BC05FC978B7510AB", rssi: -60,
        isConnectable: true, isSDUSensor: true)
    private let other = ScannedAdvertiser(
        address: BluetoothAddress(string: "00:11:22:33:44:55")!, name: nil, rssi: nil, isConnectable: false,
        isSDUSensor: false)

    @Test("SDU sensors first, each line with address kind, name, RSSI and connectability")
    func ordering() {
        let lines = ScanListing.lines([other, sensor])
        #expect(
            lines == [
                "FC:97:8B:75:10:AB (random)  \"BC05FC978B7510AB\"  -60 dBm  connectable  SDU",
                "00:11:22:33:44:55 (public)  (no name)  RSSI ?  not connectable",
            ])
        #expect(ScanListing.lines([]) == ["no advertisers seen"])
    }

    @Test("a name or SDU recognition seen once is kept when later reports lack it")
    func merging() {
        let collector = ScanCollector()
        collector.add(sensor)
        var later = sensor
        later.name = nil
        later.isSDUSensor = false
        later.rssi = -70
        collector.add(later)
        #expect(
            collector.all == [
                ScannedAdvertiser(
                    address: sensor.address, name: sensor.name, rssi: -70, isConnectable: true, isSDUSensor: true)
            ])
    }
}

@Suite("sportsensor-dev itest-compare")
struct SampleComparisonTests {
    private func sample(_ index: Int, _ x: Int16) -> AccelerationSample {
        AccelerationSample(t: Double(index) / 100, raw: RawAcceleration(x: x, y: -x, z: 16384))
    }

    /// Truth 0..<20; the stream got 0..<8 and 11..<20 (a 3-sample gap at the reconnection).
    private var truth: [AccelerationSample] { (0..<20).map { sample($0, Int16($0 * 100)) } }
    private var received: [AccelerationSample] { truth.filter { !(8..<11).contains(Int(($0.t * 100).rounded())) } }
    private let stats = ["missing": "3", "duplicates_dropped": "0", "reconnects": "1"]

    private func compare(
        truth: [AccelerationSample]? = nil, received: [AccelerationSample]? = nil,
        decoded: [AccelerationSample]? = nil, stats: [String: String]? = nil, minimumSamples: Int = 17
    ) -> SampleComparison.Report {
        SampleComparison.compare(
            truth: truth ?? self.truth, received: received ?? self.received,
            decoded: decoded ?? self.truth, streamStatistics: stats ?? self.stats, rate: 100,
            minimumSamples: minimumSamples, minimumReconnects: 1)
    }

    @Test("exact samples, an accounted gap, one reconnection, a matching capture: no failures")
    func passing() {
        let report = compare()
        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.lines.contains("indices skipped between received samples: 3"))
    }

    @Test("a duplicate index fails")
    func duplicate() {
        let report = compare(received: received + [sample(19, 1900)])
        #expect(report.failures.contains { $0.contains("duplicate") })
    }

    @Test("a value differing from the truth fails, naming the sample")
    func valueMismatch() {
        var changed = received
        changed[2] = sample(2, 201)
        let report = compare(received: changed, decoded: changed)
        #expect(report.failures.contains { $0.hasPrefix("sample 2:") })
    }

    @Test("a gap the stream did not report fails")
    func unaccountedGap() {
        var wrong = stats
        wrong["missing"] = "0"
        #expect(compare(stats: wrong).failures.contains { $0.contains("reported 0 missing") })
    }

    @Test("a sample the sensor never sent fails")
    func invented() {
        #expect(compare(received: received + [sample(25, 1)]).failures.contains { $0.contains("never sent") })
    }

    @Test("too few samples or no reconnection fail")
    func counts() {
        #expect(compare(minimumSamples: 2000).failures.contains { $0.contains("expected at least 2000") })
        var none = stats
        none["reconnects"] = "0"
        #expect(compare(stats: none).failures.contains { $0.contains("0 reconnections") })
    }

    @Test("the capture may hold the samples in flight at the drop and samples after the stream stopped")
    func captureInFlight() {
        let report = compare(decoded: truth)
        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.lines.contains("samples in the capture the stream did not deliver (in flight at the drop): 3"))
        #expect(compare(decoded: received).failures.isEmpty)
    }

    @Test("a capture without a received sample, or with fewer samples, fails")
    func captureMissingSamples() {
        var decoded = truth
        decoded[5] = sample(5, 7)
        #expect(compare(decoded: decoded).failures.contains { $0.hasPrefix("received sample 5 ") })
        #expect(compare(decoded: Array(truth.prefix(3))).failures.contains { $0.hasPrefix("received sample 3 ") })
    }

    @Test("a captured sample the sensor never sent fails")
    func captureInvented() {
        let decoded = Array(truth.prefix(4)) + [sample(4, 12345)] + Array(truth.dropFirst(4))
        #expect(compare(decoded: decoded).failures.contains { $0.hasPrefix("captured sample 4 ") })
    }

    @Test("subsequence matching keeps order and reports the first element it cannot place")
    func subsequence() {
        #expect(SampleComparison.subsequencePositions(of: [[1], [3]], in: [[1], [2], [2], [3]]) == .success([0, 3]))
        #expect(SampleComparison.subsequencePositions(of: [[3], [1]], in: [[1], [3]]) == .failure(.init(position: 1)))
        #expect(SampleComparison.subsequencePositions(of: [], in: [[1]]) == .success([]))
    }

    @Test("key=value parsing keeps values with = and skips other lines")
    func keyValues() {
        #expect(
            SampleComparison.keyValues("a=1\nnoise\nending=gave up (x=y)\n")
                == ["a": "1", "ending": "gave up (x=y)"])
    }
}
