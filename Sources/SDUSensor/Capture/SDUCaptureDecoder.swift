// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire

/// Turns a capture of HCI traffic (`btmon -w`, Android's snoop log, `hcidump`) into the samples
/// each SDU sensor in it sent.
///
/// Feed records in capture order with `push(_:)`, then call `finish()`. The decoder follows LE
/// connections and ATT through `CaptureATTExtractor`, learns the accelerometer's value handle
/// from the GATT discovery it sees (a characteristic declaration or a Find Information entry of
/// type `SDUProfile.accelerometer`, per connection) unless one is configured, and decodes the
/// notifications on that handle with one `SDUStreamDecoder` per sensor, so a sensor that
/// reconnects within the capture continues with the same counter and no duplicate.
///
/// A file is decoded in two passes per sensor: the first, as notifications are pushed, learns
/// what the header is (sample counter, packet counter or neither); `finish()` then decodes the
/// sensor's notifications again with that mode known from the first one. A live decoder must
/// index the first few samples before it can know, so a loss among them would shift their
/// times; a recording need not.
///
/// Only PDUs the peer sent (controller → host) count: a capture taken on a machine that also
/// runs a virtual sensor holds that sensor's outgoing notifications too, and those are the
/// other side's business.
public struct SDUCaptureDecoder: Sendable {
    /// What to decode.
    public struct Configuration: Hashable, Sendable {
        /// The accelerometer's value handle, for captures that start after GATT discovery.
        public var accelerometerHandle: UInt16?
        /// Decode only this peer (matched by its six octets; public or random does not matter).
        public var peer: BluetoothAddress?
        /// Counter and clock settings of each sensor's stream decoder.
        public var stream: SDUStreamDecoder.Configuration

        /// Decodes every sensor, with handles from discovery.
        public init(
            accelerometerHandle: UInt16? = nil, peer: BluetoothAddress? = nil,
            stream: SDUStreamDecoder.Configuration = .init()
        ) {
            self.accelerometerHandle = accelerometerHandle
            self.peer = peer
            self.stream = stream
        }
    }

    /// One sensor's decoded samples.
    public struct SensorRecording: Hashable, Sendable {
        /// The sensor's address, when the capture holds its connection event.
        public var peer: BluetoothAddress?
        /// `hciN/0xHHHH` of the first connection, for a sensor whose address is unknown.
        public var connectionLabel: String
        /// The value handle its samples came from.
        public var valueHandle: UInt16
        /// Unwrapped sample indices, one per sample, strictly increasing.
        public var indices: [Int64]
        /// The readings, in order.
        public var readings: [RawAcceleration]
        /// Seconds per sample, fitted over the whole capture; nil when fewer than two
        /// notifications were decoded.
        public var period: Double?
        /// Counter, loss and malformed counts.
        public var statistics: SDUStreamStatistics

        /// The sensor's address, or its connection when the address is unknown.
        public var name: String { peer?.description ?? connectionLabel }

        /// Samples in g with `t` in seconds since the first sample: the index distance times the
        /// fitted period (or `fallbackPeriod`), so a lost stretch leaves a gap in `t`.
        public func samples(fallbackPeriod: Double = 0.01) -> [AccelerationSample] {
            guard let first = indices.first else { return [] }
            let step = period ?? fallbackPeriod
            return zip(indices, readings).map { index, raw in
                AccelerationSample(t: Double(index - first) * step, raw: raw)
            }
        }
    }

    /// The decoded capture.
    public struct Result: Sendable {
        /// One entry per sensor, in the order their first sample appeared.
        public var recordings: [SensorRecording]
        /// ATT PDUs that were not the accelerometer's notifications (discovery, other handles,
        /// other peers, our own requests).
        public var ignoredPDUs: Int
        /// Notifications received on handles no discovery identified, per handle, for the hint
        /// "pass --handle" when a capture starts after discovery.
        public var unidentifiedNotifications: [UInt16: Int]
        /// What connection tracking and L2CAP reassembly skipped.
        public var extraction: CaptureATTExtractor.Statistics
    }

    private struct ConnectionKey: Hashable {
        var controller: UInt16
        var handle: UInt16
    }

    private struct SensorStream {
        var recording: SensorRecording
        /// The first pass: learns the counter mode.
        var decoder: SDUStreamDecoder
        /// Every accelerometer notification with its arrival time, for the second pass.
        var notifications: [(value: [UInt8], arrival: Double)] = []
    }

    private let configuration: Configuration
    private var extractor = CaptureATTExtractor()
    /// The accelerometer value handle each connection's discovery revealed.
    private var discoveredHandles: [ConnectionKey: UInt16] = [:]
    /// Streams by sensor identity: the peer address when known, else the connection.
    private var streams: [String: SensorStream] = [:]
    private var order: [String] = []
    private var ignored = 0
    private var unidentified: [UInt16: Int] = [:]
    private var scratch: [IndexedSample] = []
    private var firstTimestamp: Int64?

    /// A decoder with `configuration`.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Feeds one capture record.
    public mutating func push(_ record: HCIRecord) {
        if firstTimestamp == nil { firstTimestamp = record.timestamp }
        for captured in extractor.push(record) { handle(captured) }
    }

    private mutating func handle(_ captured: CapturedATTPDU) {
        guard captured.direction == .controllerToHost else {
            ignored += 1
            return
        }
        if let wanted = configuration.peer, captured.peer?.octets != wanted.octets {
            ignored += 1
            return
        }
        let key = ConnectionKey(controller: captured.controllerIndex, handle: captured.connectionHandle)
        guard let pdu = try? ATTPDU(parsing: captured.pdu) else {
            ignored += 1
            return
        }
        switch pdu {
        case .readByTypeResponse(let response):
            for entry in response.entries {
                if let declaration = try? GATTCharacteristicDeclaration(parsing: entry.value),
                    declaration.uuid == SDUProfile.accelerometer
                {
                    discoveredHandles[key] = declaration.valueHandle
                }
            }
            ignored += 1
        case .findInformationResponse(let response):
            for entry in response.entries where entry.type == SDUProfile.accelerometer {
                discoveredHandles[key] = entry.handle
            }
            ignored += 1
        case .handleValueNotification(let notification):
            deliver(notification.handle, notification.value, captured, key)
        case .handleValueIndication(let indication):
            deliver(indication.handle, indication.value, captured, key)
        default:
            ignored += 1
        }
    }

    private mutating func deliver(_ handle: UInt16, _ value: [UInt8], _ captured: CapturedATTPDU, _ key: ConnectionKey)
    {
        guard let valueHandle = configuration.accelerometerHandle ?? discoveredHandles[key] else {
            unidentified[handle, default: 0] += 1
            ignored += 1
            return
        }
        guard handle == valueHandle else {
            ignored += 1
            return
        }
        let label = "hci\(captured.controllerIndex)/0x" + String(captured.connectionHandle, radix: 16)
        let identity = captured.peer?.description ?? label
        if streams[identity] == nil {
            let recording = SensorRecording(
                peer: captured.peer, connectionLabel: label, valueHandle: valueHandle, indices: [], readings: [],
                period: nil, statistics: SDUStreamStatistics())
            streams[identity] = SensorStream(
                recording: recording, decoder: SDUStreamDecoder(configuration: configuration.stream))
            order.append(identity)
        }
        // Relative seconds keep full precision (absolute Unix microseconds as a Double lose it).
        let arrival = Double(captured.timestamp - (firstTimestamp ?? captured.timestamp)) / 1_000_000
        scratch.removeAll(keepingCapacity: true)
        _ = streams[identity]!.decoder.decode(notification: value, arrivalTime: arrival, into: &scratch)
        streams[identity]!.notifications.append((value, arrival))
    }

    /// The recordings decoded so far: each sensor's notifications decoded again with the counter
    /// mode the first pass found, and the period fitted over all of them.
    public func finish() -> Result {
        let recordings = order.compactMap { identity -> SensorRecording? in
            guard let stream = streams[identity] else { return nil }
            return decode(stream)
        }
        return Result(
            recordings: recordings, ignoredPDUs: ignored, unidentifiedNotifications: unidentified,
            extraction: extractor.statistics)
    }

    private func decode(_ stream: SensorStream) -> SensorRecording {
        var configuration = self.configuration.stream
        let learned = stream.decoder.statistics.counterMode
        configuration.counter.assumedMode = learned == .detecting ? nil : learned
        var decoder = SDUStreamDecoder(configuration: configuration)
        var recording = stream.recording
        var fit = SamplePeriodFit()
        var samples: [IndexedSample] = []
        for notification in stream.notifications {
            samples.removeAll(keepingCapacity: true)
            _ = decoder.decode(notification: notification.value, arrivalTime: notification.arrival, into: &samples)
            guard let last = samples.last else { continue }
            fit.add(lastIndex: last.index, arrivalTime: notification.arrival)
            for sample in samples {
                recording.indices.append(sample.index)
                recording.readings.append(sample.raw)
            }
        }
        recording.period = fit.period
        recording.statistics = decoder.statistics
        return recording
    }
}
