// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLEWire
import Detection
import Foundation
import SDUSensor
import SessionStore
import StoreFormats

/// `sportsensorctl export`: a stored session as a sample CSV, event JSON lines or a btsnoop capture.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a stored session's samples (csv, btsnoop) or events (jsonl).",
        discussion: """
            csv: the samples in the interchange format (Docs/FORMATS.md), so import then export \
            gives back the same samples. jsonl: the stored events in the `analyze` schema. \
            btsnoop: a btmon-style capture (datalink 2001) of the session that `decode` reads \
            back to the same samples.
            """
    )

    /// What to write.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case csv
        case jsonl
        case btsnoop
    }

    @OptionGroup var state: StateDirectoryOptions

    @Option(help: "csv, jsonl or btsnoop.")
    var format: Format

    @Option(help: "Write to this file instead of standard output.")
    var output: String?

    @Argument(help: "The session id or a unique prefix of it.")
    var id: String

    func run() async throws {
        try await reportingFailures {
            let store = try state.openStoreReadOnly()
            let record = try await store.session(idPrefix: id)
            let bytes = try await Self.export(record, format: format, store: store)
            if let output {
                try CommandOutput.write(bytes, toFile: output)
            } else {
                writeStandardOutput(Data(bytes))
            }
        }
    }

    /// The exported file's bytes.
    static func export(_ record: SessionRecord, format: Format, store: SessionStore) async throws -> [UInt8] {
        switch format {
        case .jsonl:
            let events = try await store.events(of: record.id)
            return Array(events.map { $0.jsonLine + "\n" }.joined().utf8)
        case .csv:
            let samples = try await samplesOrFailure(record, store: store)
            var text = SampleCSV.header + "\n"
            text.reserveCapacity(samples.count * 40)
            for sample in samples { text += SampleCSV.line(AccelerationSample(t: sample.t, raw: sample.raw)) + "\n" }
            return Array(text.utf8)
        case .btsnoop:
            let samples = try await samplesOrFailure(record, store: store)
            do throws(WireError) {
                return try SessionCapture.file(
                    samples: samples, sensor: record.sensor ?? SessionCapture.placeholderAddress(for: record.id),
                    startedAt: record.startedAt)
            } catch {
                throw CommandFailure.data("cannot build a capture of session \(record.idText): \(error.message)")
            }
        }
    }

    /// The session's samples with times to the microsecond; an error when none are left.
    static func samplesOrFailure(_ record: SessionRecord, store: SessionStore) async throws -> [IndexedSample] {
        let samples = try await store.samples(of: record.id).map {
            IndexedSample(index: $0.index, t: StoreTime.microseconds($0.t), raw: $0.raw)
        }
        guard !samples.isEmpty else {
            throw CommandFailure.noInput(
                "session \(record.idText) has no stored samples (pruned with --samples-only, or none recorded); "
                    + "its events are still there: export them with --format jsonl")
        }
        return samples
    }
}

/// A synthetic btmon capture (btsnoop datalink 2001) of a stored session, as a sensor would have
/// produced it: the monitor's index records, an LE connection to the sensor, GATT discovery of the
/// accelerometer characteristic and the CCCD write, one notification per run of up to three
/// consecutive samples (a 2-byte sample counter, then x, y, z as Int16), and the disconnection.
///
/// `decode` times samples by the sample period fitted to the notifications' arrival times (the
/// lower hull of arrival against sample index), so the arrival times are chosen to make that fit
/// give back the stored rate: each notification arrives at its last sample's stored time, the
/// first and last exactly, the ones in between raised where needed to lie above the line joining
/// those two. Decoding the file then gives the stored counts and indices exactly, and times within
/// a microsecond of the stored ones for a session recorded at a steady rate.
enum SessionCapture {
    /// The ATT handles of the synthetic sensor's characteristic declaration, value and CCCD.
    static let declarationHandle: UInt16 = 0x0014
    static let valueHandle: UInt16 = 0x0015
    static let cccdHandle: UInt16 = 0x0016
    /// The LE connection handle.
    static let connectionHandle: UInt16 = 0x0040
    /// Samples per notification, as the sensor sends them at the default ATT MTU.
    static let samplesPerNotification = 3

    /// The capture file's bytes.
    static func file(samples: [IndexedSample], sensor: BluetoothAddress, startedAt: Date) throws(WireError) -> [UInt8] {
        try BTSnoopWriter.file(
            datalink: .linuxMonitor, records: records(samples: samples, sensor: sensor, startedAt: startedAt))
    }

    /// A random static address made from the session id, for sessions imported without a sensor.
    static func placeholderAddress(for id: UUID) -> BluetoothAddress {
        let bytes = withUnsafeBytes(of: id.uuid) { Array($0.prefix(6)) }
        let text = ([bytes[0] | 0xC0] + bytes[1...]).map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: ":")
        return BluetoothAddress(string: text, kind: .random)!
    }

    /// Runs of consecutive indices, at most `samplesPerNotification` long.
    static func notifications(_ samples: [IndexedSample]) -> [ArraySlice<IndexedSample>] {
        var runs: [ArraySlice<IndexedSample>] = []
        var start = 0
        while start < samples.count {
            var end = start + 1
            while end < samples.count, end - start < samplesPerNotification,
                samples[end].index == samples[end - 1].index + 1
            {
                end += 1
            }
            runs.append(samples[start..<end])
            start = end
        }
        return runs
    }

    /// Microseconds after the first notification at which each notification arrives.
    static func arrivalOffsets(_ runs: [ArraySlice<IndexedSample>]) -> [Int64] {
        guard let firstRun = runs.first, let lastRun = runs.last, let first = firstRun.last, let last = lastRun.last
        else { return [] }
        let micro = { (t: Double) -> Int64 in Int64(((t - first.t) * 1e6).rounded()) }
        let total = max(micro(last.t), 0)
        let span = Double(last.index - first.index)
        return runs.enumerated().map { position, run in
            let sample = run[run.endIndex - 1]
            if position == 0 { return 0 }
            if position == runs.count - 1 { return total }
            let line = span > 0 ? Double(total) * Double(sample.index - first.index) / span : 0
            return max(micro(sample.t), Int64(line.rounded(.up)) + 1)
        }
    }

    /// The capture's records.
    static func records(samples: [IndexedSample], sensor: BluetoothAddress, startedAt: Date) -> [HCIRecord] {
        var records: [HCIRecord] = []
        var time = Int64((startedAt.timeIntervalSince1970 * 1e6).rounded())
        func add(_ direction: HCIDirection, _ packet: HCIPacket, at timestamp: Int64? = nil) {
            if let timestamp { time = timestamp }
            records.append(HCIRecord(timestamp: time, direction: direction, packet: packet))
            time += 1000
        }
        func att(_ direction: HCIDirection, _ pdu: [UInt8], at timestamp: Int64? = nil) {
            let frame = L2CAPBasicFrame(channelID: L2CAPBasicFrame.attributeProtocolCID, payload: pdu)
            let boundary: HCIACLDataPacket.PacketBoundary =
                direction == .hostToController ? .firstNonFlushable : .firstFlushable
            for (number, fragment) in frame.fragments(
                handle: connectionHandle, fragmentSize: 27, firstBoundary: boundary
            )
            .enumerated() {
                add(direction, .acl(fragment), at: number == 0 ? timestamp : nil)
            }
        }

        // btmon's index records: a primary controller hci0 on USB, opened.
        var newIndex: [UInt8] = [0x00, 0x01]
        BluetoothAddress(string: "00:00:00:00:00:00")!.encode(into: &newIndex)
        newIndex += Array("hci0".utf8) + [UInt8](repeating: 0, count: 4)
        add(.controllerToHost, .monitor(.newIndex, payload: newIndex))
        add(.controllerToHost, .monitor(.openIndex, payload: []))
        add(
            .controllerToHost,
            .event(HCILEConnectionCompleteEvent(connectionHandle: connectionHandle, peerAddress: sensor).packet))
        let declaration = GATTCharacteristicDeclaration(
            properties: .notify, valueHandle: valueHandle, uuid: SDUProfile.accelerometer)
        att(
            .hostToController,
            ATTReadByTypeRequest(
                range: .init(start: declarationHandle, end: cccdHandle), attributeType: .characteristic
            ).bytes)
        att(
            .controllerToHost,
            ATTReadByTypeResponse(entries: [.init(handle: declarationHandle, value: declaration.bytes)]).bytes)
        att(.hostToController, ATTWriteRequest(handle: cccdHandle, value: [0x01, 0x00]).bytes)
        att(.controllerToHost, ATTWriteResponse().bytes)

        let runs = notifications(samples)
        let start = time
        for (run, offset) in zip(runs, arrivalOffsets(runs)) {
            var payload: [UInt8] = []
            payload.reserveCapacity(2 + 6 * run.count)
            payload.appendUInt16LE(UInt16(truncatingIfNeeded: run[run.startIndex].index))
            for sample in run {
                payload.appendInt16LE(sample.raw.x)
                payload.appendInt16LE(sample.raw.y)
                payload.appendInt16LE(sample.raw.z)
            }
            att(
                .controllerToHost, ATTHandleValueNotification(handle: valueHandle, value: payload).bytes,
                at: start + offset)
        }
        add(
            .controllerToHost,
            .event(
                HCIDisconnectionCompleteEvent(connectionHandle: connectionHandle, reason: .remoteUserTerminated).packet)
        )
        return records
    }
}
