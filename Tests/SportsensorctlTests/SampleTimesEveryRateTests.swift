// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import Detection
import Foundation
import SDUSensor
import SessionStore
import Testing

@testable import sportsensorctl

/// A capture of a sensor at each rate it can be set to, three samples a notification, imported
/// (the decoder the gateway runs, not told the rate), then read back from the store and exported:
/// sample times are distinct and increasing in the store and in every export of samples (CSV,
/// btsnoop decoded again). The 400 Hz daemon end to end is `SampleRateEndToEndTests`.
@Suite("Sample times at every rate: store and exports")
struct SampleTimesEveryRateTests {
    static func increasing(_ times: [Double]) -> Bool {
        zip(times, times.dropFirst()).allSatisfy { $0 < $1 }
    }

    @Test("times strictly increase in the store, export csv and export btsnoop", arguments: [25.0, 50, 100, 200, 400])
    func everyRate(rate: Double) async throws {
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        // 20 s; at 200 Hz and up the link's connection interval is 7.5 ms, as such sensors use.
        let session = SessionRecorderFixture.session(
            datalink: .linuxMonitor, notifications: Int(rate * 20 / 3), rate: rate,
            interval: rate >= 200 ? 0.0075 : 0.030)
        let path = try directory.write("session.btsnoop", session.capture)
        let store = try directory.open()
        let imported = try await store.importRecording(
            try SessionImport.read(path).recording, settings: DetectionSettings(profile: .tableTennis), athlete: nil,
            sensor: nil, startedAt: nil)

        let stored = try await store.samples(of: imported.session.id).map(\.t)
        #expect(stored.count > Int(rate * 19), "\(stored.count) samples at \(rate) Hz")
        #expect(Self.increasing(stored), "the store's times at \(rate) Hz")

        let csv = String(
            decoding: try await ExportCommand.export(imported.session, format: .csv, store: store), as: UTF8.self)
        let printed = csv.split(separator: "\n").dropFirst().map { String($0.prefix { $0 != "," }) }
        #expect(printed.count == stored.count)
        #expect(Set(printed).count == printed.count, "distinct as printed at \(rate) Hz")
        #expect(Self.increasing(printed.compactMap(Double.init)), "the CSV's times at \(rate) Hz")

        let capture = try await ExportCommand.export(imported.session, format: .btsnoop, store: store)
        let decoded = try RecordingInput.chooseRecording(
            try RecordingInput.decodeCapture(
                Data(capture), path: "export", configuration: SDUCaptureDecoder.Configuration()),
            path: "export", address: nil, handle: nil)
        let again = decoded.samples().map(\.t)
        #expect(again.count == stored.count)
        #expect(Self.increasing(again), "the exported capture's times, decoded, at \(rate) Hz")
    }
}
