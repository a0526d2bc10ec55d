// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import Foundation
import GatewayTesting
import SDUSensor
import SeededRandomness
import Testing
import VirtualSensor

@testable import sportsensorctl

/// A recorded SDU session: the capture bytes and what the sensor really sent.
struct RecordedSession {
    var capture: [UInt8]
    var notifications: [VirtualSensorNotification]

    /// The samples a receiver can get: those of notifications sent intact.
    var deliveredSamples: [RawAcceleration] { notifications.filter { $0.fate == .sent }.flatMap(\.samples) }
    /// Samples that never arrived intact (dropped or malformed notifications) between the first
    /// and the last that did: a receiver cannot know of losses before or after those.
    var lostSamples: Int {
        guard let first = notifications.firstIndex(where: { $0.fate == .sent }),
            let last = notifications.lastIndex(where: { $0.fate == .sent })
        else { return 0 }
        return notifications[first...last].filter { $0.fate != .sent }.reduce(0) { $0 + $1.samples.count }
    }
}

/// Builds captures the way a real session looks: scan, connect, GATT discovery of the
/// accelerometer, CCCD write, then notifications from the virtual sensor's own generator (table
/// tennis motion, 100 Hz unless told, 3 samples each), arriving in connection events every 30 ms
/// (or `interval`) with a little latency, then a disconnection.
enum SessionRecorderFixture {
    static let valueHandle: UInt16 = 0x0015
    static let rate = 100.0

    static func session(
        datalink: BTSnoopDatalink, notifications count: Int = 700, faults: VirtualSensorConfiguration.Faults = .none,
        discovery: Bool = true, connections: [(UInt16, BluetoothAddress)] = [(0x0040, CaptureFixtures.sensorAddress)],
        seed: UInt64 = 11, rate: Double = SessionRecorderFixture.rate, interval: Double = 0.030
    ) -> RecordedSession {
        let accelerometer = SDUProfile.accelerometer
        var setup: [CaptureFixtures.ATTExchange] = []
        if discovery {
            let declaration = GATTCharacteristicDeclaration(
                properties: .notify, valueHandle: valueHandle, uuid: accelerometer)
            setup = [
                .init(
                    .hostToController,
                    ATTReadByTypeRequest(range: .init(start: 0x13, end: 0x16), attributeType: .characteristic).bytes),
                .init(
                    .controllerToHost,
                    ATTReadByTypeResponse(entries: [.init(handle: 0x14, value: declaration.bytes)]).bytes),
                .init(.hostToController, ATTWriteRequest(handle: 0x16, value: [0x01, 0x00]).bytes),
                .init(.controllerToHost, ATTWriteResponse().bytes),
            ]
        }
        var records: [HCIRecord] = []
        var truth: [VirtualSensorNotification] = []
        for (number, (handle, address)) in connections.enumerated() {
            var head = CaptureFixtures.sessionRecords(
                exchanges: setup, handle: handle, monitorPreamble: datalink == .linuxMonitor && number == 0)
            head.removeLast()  // the disconnection; it goes after the notifications
            // A later connection starts a second after the previous one ended, with its own address.
            let offset = (records.last.map { $0.timestamp + 1_000_000 } ?? head[0].timestamp) - head[0].timestamp
            head = head.map { record in
                var changed = record
                changed.timestamp += offset
                if case .event(let packet) = record.packet, let meta = try? HCILEMetaEvent(packet),
                    (try? HCILEConnectionCompleteEvent(meta)) != nil
                {
                    changed.packet = .event(
                        HCILEConnectionCompleteEvent(connectionHandle: handle, peerAddress: address).packet)
                }
                return changed
            }
            records += head
            var generator = NotificationGenerator(
                configuration: VirtualSensorConfiguration(seed: seed &+ UInt64(number), faults: faults))
            var source = MotionScriptSource(script: .tableTennis, seed: seed, rate: rate)
            var latency = SplitMix64(seed: seed ^ 0x5EED)
            let start = records.last!.timestamp + 100_000
            var previous = start
            for _ in 0..<count {
                guard let notification = generator.next(carrying: 3, from: &source) else { break }
                truth.append(notification)
                guard notification.fate != .dropped else { continue }
                // Taken at the last sample's time; delivered at the next 30 ms connection event, a
                // little later, and never before the notification ahead of it on the same link.
                let taken = Double(notification.firstSampleIndex + notification.samples.count) / rate
                let event = (taken / interval).rounded(.up) * interval + latency.unit() * 0.004
                let arrival = max(previous + 200, start + Int64(event * 1_000_000))
                previous = arrival
                let pdu = ATTHandleValueNotification(handle: valueHandle, value: notification.payload).bytes
                let frame = L2CAPBasicFrame(channelID: L2CAPBasicFrame.attributeProtocolCID, payload: pdu)
                for fragment in frame.fragments(handle: handle, fragmentSize: 27, firstBoundary: .firstFlushable) {
                    records.append(HCIRecord(timestamp: arrival, direction: .controllerToHost, packet: .acl(fragment)))
                }
            }
            records.append(
                HCIRecord(
                    timestamp: records.last!.timestamp + 1000, direction: .controllerToHost,
                    packet: .event(
                        HCIDisconnectionCompleteEvent(connectionHandle: handle, reason: .remoteUserTerminated).packet)))
        }
        let capture = try! BTSnoopWriter.file(datalink: datalink, records: records)
        return RecordedSession(capture: capture, notifications: truth)
    }
}

@Suite("decode: btsnoop captures to samples")
struct DecodeTests {
    static let datalinks: [BTSnoopDatalink] = [.hciUnencapsulated, .hciUART, .linuxMonitor]

    func decode(
        _ bytes: [UInt8], handle: UInt16? = nil, address: BluetoothAddress? = nil
    ) throws(InputError) -> (RecordingInput.DecodedCapture, SDUCaptureDecoder.SensorRecording) {
        let capture = try RecordingInput.decodeCapture(
            Data(bytes), path: "capture", configuration: .init(accelerometerHandle: handle, peer: address))
        return (capture, try RecordingInput.chooseRecording(capture, path: "capture", address: address, handle: handle))
    }

    @Test("every datalink gives back exactly the samples the sensor sent", arguments: datalinks)
    func exactSamples(datalink: BTSnoopDatalink) throws {
        let session = SessionRecorderFixture.session(datalink: datalink)
        let (capture, recording) = try decode(session.capture)
        #expect(capture.datalink == datalink)
        #expect(capture.stoppedEarly == nil)
        #expect(recording.readings == session.deliveredSamples)
        #expect(recording.readings.count == 2100)
        #expect(recording.valueHandle == SessionRecorderFixture.valueHandle)
        #expect(recording.peer?.octets == CaptureFixtures.sensorAddress.octets)
        #expect(recording.statistics.counterMode == .sampleCounter)
        #expect(recording.statistics.lostSamples == 0)
        // Indices are consecutive and the fitted period is the sensor's 10 ms.
        #expect(zip(recording.indices, recording.indices.dropFirst()).allSatisfy { $1 == $0 + 1 })
        let period = try #require(recording.period)
        #expect(abs(period - 0.01) < 0.00002)
        let samples = recording.samples()
        #expect(samples.first?.t == 0)
        #expect(abs(samples.last!.t - 20.99) < 0.05)
    }

    @Test("dropped and malformed notifications are counted and leave a gap in t", arguments: datalinks)
    func faults(datalink: BTSnoopDatalink) throws {
        let faults = VirtualSensorConfiguration.Faults(dropFraction: 0.05, malformedFraction: 0.02)
        let session = SessionRecorderFixture.session(datalink: datalink, faults: faults)
        let (_, recording) = try decode(session.capture)
        let malformed = session.notifications.filter { $0.fate == .malformed }.count
        #expect(malformed > 0 && session.notifications.contains { $0.fate == .dropped })
        #expect(recording.readings == session.deliveredSamples)
        #expect(recording.statistics.malformedNotifications == malformed)
        #expect(recording.statistics.lostSamples == session.lostSamples)
        // Each sample's t is its true index times the period: gaps stay gaps.
        let truth = session.notifications.filter { $0.fate == .sent }.flatMap { note in
            (0..<note.samples.count).map { Double(note.firstSampleIndex + $0) / SessionRecorderFixture.rate }
        }
        let times = recording.samples().map(\.t)
        let worst = zip(times, truth).map { abs($0 - ($1 - truth[0])) }.max() ?? 1
        #expect(worst < 0.02, "t is off by \(worst) s")
    }

    @Test("a capture without discovery needs --handle, and the error says which")
    func missingDiscovery() throws {
        let session = SessionRecorderFixture.session(datalink: .linuxMonitor, notifications: 50, discovery: false)
        #expect {
            try decode(session.capture)
        } throws: { error in
            let error = error as? InputError
            return error?.code == .noSensorData && error?.message.contains("--handle 0x0015") == true
        }
        let (_, recording) = try decode(session.capture, handle: 0x15)
        #expect(recording.readings == session.deliveredSamples)
        #expect { try decode(session.capture, handle: 0x20) } throws: { ($0 as? InputError)?.code == .noSensorData }
    }

    @Test("several sensors need --address, which picks one")
    func severalSensors() throws {
        let other = BluetoothAddress(string: "C0:11:22:33:44:55", kind: .random)!
        let session = SessionRecorderFixture.session(
            datalink: .hciUART, notifications: 40,
            connections: [(0x0040, CaptureFixtures.sensorAddress), (0x0041, other)])
        #expect {
            try decode(session.capture)
        } throws: { error in
            let error = error as? InputError
            return error?.code == .severalSensors && error?.message.contains("C0:11:22:33:44:55") == true
        }
        // The address type on the command line does not matter.
        let (_, recording) = try decode(session.capture, address: BluetoothAddress(string: "c0:11:22:33:44:55"))
        #expect(recording.peer?.octets == other.octets)
        #expect(recording.readings.count == 120)
    }

    @Test("a capture cut short still decodes every whole record before the cut")
    func truncated() throws {
        let session = SessionRecorderFixture.session(datalink: .hciUnencapsulated, notifications: 100)
        let (capture, recording) = try decode(Array(session.capture.dropLast(3)))
        #expect(capture.stoppedEarly?.code == .truncated)
        #expect(recording.readings.count == 300)
        #expect(recording.readings == session.deliveredSamples)
    }

    @Test("handles and addresses on the command line are checked")
    func options() throws {
        #expect(try RecordingInput.parseHandle("0x0015") == 0x15)
        #expect(try RecordingInput.parseHandle("21") == 21)
        for bad in ["0", "0x", "handle", "70000", "-1"] {
            #expect { try RecordingInput.parseHandle(bad) } throws: { ($0 as? InputError)?.exitCode == 64 }
        }
        #expect { try RecordingInput.parseAddress("FC:97:8B") } throws: { ($0 as? InputError)?.code == .invalidOption }
    }
}

@Suite("sportsensorctl decode, as a process")
struct DecodeProcessTests {
    /// The built `sportsensorctl`, next to the test bundle.
    static var executable: URL {
        URL(fileURLWithPath: BuiltProducts.path(of: "sportsensorctl") ?? "sportsensorctl (not built)")
    }

    func run(
        _ arguments: [String], environment: [String: String] = [:]
    ) async throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let result = try await runCommand(Self.executable.path, arguments, environment: environment)
        return (result.status, result.standardOutput, result.standardError)
    }

    @Test("prints the interchange CSV and --stats; bad input exits non-zero with the fix")
    func process() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path))
        let session = SessionRecorderFixture.session(datalink: .linuxMonitor, notifications: 30)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("decode-\(UUID().uuidString).btsnoop")
            .path
        try Data(session.capture).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }

        let result = try await run(["decode", "--stats", path])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first == "t,x,y,z")
        #expect(lines.count == 91)
        let parsed = try SampleCSV.parse(result.stdout)
        let counts = parsed.map {
            RawAcceleration(
                x: Int16(($0.x * 16384).rounded()), y: Int16(($0.y * 16384).rounded()),
                z: Int16(($0.z * 16384).rounded()))
        }
        #expect(counts == session.deliveredSamples)
        #expect(result.stderr.contains("samples: 90"))
        #expect(result.stderr.contains("counter: sample counter"))

        let missing = try await run(["decode", path + ".missing"])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("cannot read the file"))
        let csvPath = path + ".csv"
        try Data("t,x,y,z\n0,0,0,1\n".utf8).write(to: URL(fileURLWithPath: csvPath))
        defer { try? FileManager.default.removeItem(atPath: csvPath) }
        let csv = try await run(["decode", csvPath])
        #expect(csv.status == 65)
        #expect(csv.stderr.contains("btmon -w"))
    }
}
