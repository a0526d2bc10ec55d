// SPDX-License-Identifier: GPL-2.0-or-later

/// One ATT PDU found in a capture, with where and when it travelled.
public struct CapturedATTPDU: Hashable, Sendable {
    /// Microseconds since the Unix epoch (of the ACL fragment that completed the PDU).
    public var timestamp: Int64
    /// Host→controller for PDUs we sent, controller→host for PDUs the peer sent.
    public var direction: HCIDirection
    /// The controller (hciN) the connection runs on.
    public var controllerIndex: UInt16
    /// The LE connection handle.
    public var connectionHandle: UInt16
    /// The peer, when the capture holds the connection's LE (Enhanced) Connection Complete.
    public var peer: BluetoothAddress?
    /// The ATT PDU bytes (opcode first), for the ATT codecs to parse.
    public var pdu: [UInt8]

    /// Creates a value.
    public init(
        timestamp: Int64, direction: HCIDirection, controllerIndex: UInt16, connectionHandle: UInt16,
        peer: BluetoothAddress?, pdu: [UInt8]
    ) {
        self.timestamp = timestamp
        self.direction = direction
        self.controllerIndex = controllerIndex
        self.connectionHandle = connectionHandle
        self.peer = peer
        self.pdu = pdu
    }

    /// Seconds since the Unix epoch.
    public var seconds: Double { Double(timestamp) / 1_000_000 }
}

/// Pulls ATT PDUs out of a stream of capture records: follows LE connections (peer address per
/// controller and handle), reassembles ACL fragments into L2CAP frames per controller, handle
/// and direction, and returns the frames on the ATT channel (CID 4).
///
/// Feed records in capture order with `push`; it returns the PDUs each record completed.
/// What it could not use is counted in `statistics`, never thrown.
public struct CaptureATTExtractor: Sendable {
    /// Counts of what the extractor saw and skipped.
    public struct Statistics: Hashable, Sendable {
        /// Records pushed.
        public var records = 0
        /// ACL packets reassembled.
        public var aclPackets = 0
        /// ATT PDUs returned.
        public var attPDUs = 0
        /// Whole L2CAP frames on channels other than ATT (signalling, SMP, ...).
        public var nonATTFrames = 0
        /// Fragments or partial frames thrown away by reassembly (orphan continuations, overflow,
        /// interrupted or oversize frames, frames cut off by a disconnection).
        public var droppedFragments = 0
        /// Data bytes in those drops.
        public var droppedBytes = 0
        /// Command, event or ACL packets whose header did not parse.
        public var malformedPackets = 0
        /// Events for connections that did not decode (for example a cut LE Connection Complete).
        public var malformedConnectionEvents = 0
        /// Records that are not HCI traffic the extractor uses (SCO, ISO, monitor notes, unknown).
        public var otherRecords = 0
        /// LE connections seen opening.
        public var connections = 0
        /// Connections seen closing.
        public var disconnections = 0

        /// All zero.
        public init() {}
    }

    private struct LinkKey: Hashable, Sendable {
        var controller: UInt16
        var handle: UInt16
    }

    private struct StreamKey: Hashable, Sendable {
        var controller: UInt16
        var direction: HCIDirection
    }

    /// What was seen and skipped so far.
    public private(set) var statistics = Statistics()
    private var peers: [LinkKey: BluetoothAddress] = [:]
    private var reassemblers: [StreamKey: L2CAPReassembler] = [:]
    private let maximumFrameSize: Int

    /// Creates an extractor; `maximumFrameSize` bounds the bytes buffered per handle and direction.
    public init(maximumFrameSize: Int = 0xFFFF) {
        self.maximumFrameSize = maximumFrameSize
    }

    /// The peer of an open connection, as far as the capture has shown it.
    public func peer(controllerIndex: UInt16, connectionHandle: UInt16) -> BluetoothAddress? {
        peers[LinkKey(controller: controllerIndex, handle: connectionHandle)]
    }

    /// Feeds one record; returns the ATT PDUs it completed (zero or one).
    public mutating func push(_ record: HCIRecord) -> [CapturedATTPDU] {
        statistics.records += 1
        switch record.packet {
        case .event(let event):
            handle(event, controller: record.controllerIndex)
            return []
        case .acl(let packet):
            return handle(packet, record: record)
        case .command:
            return []
        case .malformed:
            statistics.malformedPackets += 1
            return []
        case .sco, .iso, .monitor, .unknown:
            statistics.otherRecords += 1
            return []
        }
    }

    /// Feeds every record in order and returns every ATT PDU.
    public mutating func extract(_ records: some Sequence<HCIRecord>) -> [CapturedATTPDU] {
        records.flatMap { push($0) }
    }

    private mutating func handle(_ event: HCIEventPacket, controller: UInt16) {
        switch event.eventCode {
        case .leMeta:
            guard let code = event.parameters.first else { return }
            do throws(WireError) {
                if HCILEConnectionCompleteEvent.decodes(subeventCode: code) {
                    let complete = try HCILEConnectionCompleteEvent(event)
                    if complete.status == .success {
                        opened(complete.connectionHandle, peer: complete.peerAddress, controller: controller)
                    }
                } else if HCILEEnhancedConnectionCompleteEvent.decodes(subeventCode: code) {
                    let complete = try HCILEEnhancedConnectionCompleteEvent(event)
                    if complete.status == .success {
                        opened(complete.connectionHandle, peer: complete.peerAddress, controller: controller)
                    }
                }
            } catch {
                statistics.malformedConnectionEvents += 1
            }
        case .disconnectionComplete:
            do throws(WireError) {
                let done = try HCIDisconnectionCompleteEvent(event)
                guard done.status == .success else { return }
                statistics.disconnections += 1
                peers[LinkKey(controller: controller, handle: done.connectionHandle)] = nil
                discardPartialFrames(handle: done.connectionHandle, controller: controller)
            } catch {
                statistics.malformedConnectionEvents += 1
            }
        default:
            return
        }
    }

    private mutating func opened(_ handle: UInt16, peer: BluetoothAddress, controller: UInt16) {
        statistics.connections += 1
        // A handle is reused only after its disconnection; anything still buffered is stale.
        discardPartialFrames(handle: handle, controller: controller)
        peers[LinkKey(controller: controller, handle: handle)] = peer
    }

    private mutating func discardPartialFrames(handle: UInt16, controller: UInt16) {
        for direction in [HCIDirection.hostToController, .controllerToHost] {
            let key = StreamKey(controller: controller, direction: direction)
            guard var reassembler = reassemblers[key] else { continue }
            if let drop = reassembler.discard(handle: handle) { count(drop) }
            reassemblers[key] = reassembler
        }
    }

    private mutating func count(_ drop: L2CAPReassembler.Drop) {
        statistics.droppedFragments += 1
        statistics.droppedBytes += drop.byteCount
    }

    private mutating func handle(_ packet: HCIACLDataPacket, record: HCIRecord) -> [CapturedATTPDU] {
        statistics.aclPackets += 1
        let key = StreamKey(controller: record.controllerIndex, direction: record.direction)
        var reassembler = reassemblers[key] ?? L2CAPReassembler(maximumFrameSize: maximumFrameSize)
        let output = reassembler.push(packet)
        reassemblers[key] = reassembler
        for drop in output.drops { count(drop) }
        var pdus: [CapturedATTPDU] = []
        for completed in output.frames {
            guard completed.frame.channelID == L2CAPBasicFrame.attributeProtocolCID else {
                statistics.nonATTFrames += 1
                continue
            }
            statistics.attPDUs += 1
            pdus.append(
                CapturedATTPDU(
                    timestamp: record.timestamp, direction: record.direction, controllerIndex: record.controllerIndex,
                    connectionHandle: completed.handle,
                    peer: peers[LinkKey(controller: record.controllerIndex, handle: completed.handle)],
                    pdu: completed.frame.payload))
        }
        return pdus
    }
}
