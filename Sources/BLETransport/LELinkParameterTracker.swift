// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire

/// The parameters a controller settled on for one LE link: what the central actually got, which
/// may differ from the range the host asked for.
public struct LELinkParameters: Sendable, Hashable, CustomStringConvertible {
    /// The connection interval in units of 1.25 ms.
    public var intervalUnits: UInt16
    /// How many connection events the peripheral may skip.
    public var peripheralLatency: UInt16
    /// The supervision timeout in units of 10 ms.
    public var supervisionTimeoutUnits: UInt16

    /// Parameters in the controller's units.
    public init(intervalUnits: UInt16, peripheralLatency: UInt16, supervisionTimeoutUnits: UInt16) {
        self.intervalUnits = intervalUnits
        self.peripheralLatency = peripheralLatency
        self.supervisionTimeoutUnits = supervisionTimeoutUnits
    }

    /// The connection interval.
    public var interval: Duration { .microseconds(Int64(intervalUnits) * 1250) }
    /// The supervision timeout.
    public var supervisionTimeout: Duration { .milliseconds(Int64(supervisionTimeoutUnits) * 10) }
    /// Connection events per second.
    public var eventsPerSecond: Double { 800 / Double(max(1, intervalUnits)) }

    /// `interval 30 ms, latency 0, supervision timeout 420 ms`.
    public var description: String {
        let milliseconds = Double(intervalUnits) * 1.25
        let interval = milliseconds == milliseconds.rounded() ? "\(Int(milliseconds))" : "\(milliseconds)"
        return "interval \(interval) ms, latency \(peripheralLatency), "
            + "supervision timeout \(Int(supervisionTimeoutUnits) * 10) ms"
    }
}

/// Follows the LE links of one adapter through the HCI events the kernel copies to raw sockets,
/// and reports each link's parameters when it comes up and whenever they change. Pure: packets
/// in, reports out; ``LELinkParameterMonitor`` reads the packets.
///
/// The handle-to-peer table starts empty, so updates of links that came up before the tracker
/// started are not reported (their peer is unknown).
public struct LELinkParameterTracker: Sendable {
    /// What changed.
    public enum Report: Sendable, Hashable {
        /// A link came up with these parameters; `isCentral` when this adapter connected.
        case connected(peer: BluetoothAddress, isCentral: Bool, LELinkParameters)
        /// A known link's parameters changed.
        case updated(peer: BluetoothAddress, isCentral: Bool, LELinkParameters)
    }

    private var links: [UInt16: (peer: BluetoothAddress, isCentral: Bool)] = [:]

    /// A tracker that knows no links.
    public init() {}

    /// How many links it knows.
    public var linkCount: Int { links.count }

    /// Handles one packet from a raw HCI socket (H4 type byte first); anything but a successful
    /// connection, parameter update or disconnection is ignored, as are malformed events.
    public mutating func received(_ bytes: [UInt8]) -> Report? {
        guard bytes.first == HCIPacketType.event.rawValue,
            let event = try? HCIEventPacket(parsing: bytes.dropFirst())
        else { return nil }
        switch event.eventCode {
        case .disconnectionComplete:
            if let disconnection = try? HCIDisconnectionCompleteEvent(event), disconnection.status == .success {
                links[disconnection.connectionHandle] = nil
            }
            return nil
        case .leMeta:
            return leMeta(event)
        default:
            return nil
        }
    }

    private mutating func leMeta(_ event: HCIEventPacket) -> Report? {
        guard let meta = try? HCILEMetaEvent(event) else { return nil }
        if let complete = try? HCILEConnectionCompleteEvent(meta), complete.status == .success {
            return connected(
                handle: complete.connectionHandle, peer: complete.peerAddress, role: complete.role,
                parameters: LELinkParameters(
                    intervalUnits: complete.connectionInterval, peripheralLatency: complete.peripheralLatency,
                    supervisionTimeoutUnits: complete.supervisionTimeout))
        }
        if let complete = try? HCILEEnhancedConnectionCompleteEvent(meta), complete.status == .success {
            return connected(
                handle: complete.connectionHandle, peer: complete.peerAddress, role: complete.role,
                parameters: LELinkParameters(
                    intervalUnits: complete.connectionInterval, peripheralLatency: complete.peripheralLatency,
                    supervisionTimeoutUnits: complete.supervisionTimeout))
        }
        if let update = try? HCILEConnectionUpdateCompleteEvent(meta), update.status == .success,
            let link = links[update.connectionHandle]
        {
            return .updated(
                peer: link.peer, isCentral: link.isCentral,
                LELinkParameters(
                    intervalUnits: update.connectionInterval, peripheralLatency: update.peripheralLatency,
                    supervisionTimeoutUnits: update.supervisionTimeout))
        }
        return nil
    }

    private mutating func connected(
        handle: UInt16, peer: BluetoothAddress, role: UInt8, parameters: LELinkParameters
    ) -> Report {
        let isCentral = role == 0x00
        links[handle] = (peer, isCentral)
        return .connected(peer: peer, isCentral: isCentral, parameters)
    }
}
