// SPDX-License-Identifier: GPL-2.0-or-later

/// LE Connection Complete (LE Meta subevent 0x01): a new LE connection and the peer it goes to
/// (Core Vol 4 Part E 7.7.65.1).
public struct HCILEConnectionCompleteEvent: HCILESubevent {
    /// Whether the connection was established; on failure the other fields are not meaningful.
    public var status: HCIErrorCode
    /// The new connection handle (12 bits).
    public var connectionHandle: UInt16
    /// 0x00 central, 0x01 peripheral.
    public var role: UInt8
    /// The peer's address; its `kind` follows the peer address type (0x00 public, 0x01 random).
    public var peerAddress: BluetoothAddress
    /// Connection interval in units of 1.25 ms.
    public var connectionInterval: UInt16
    /// Peripheral latency in connection events.
    public var peripheralLatency: UInt16
    /// Supervision timeout in units of 10 ms.
    public var supervisionTimeout: UInt16
    /// Central clock accuracy code.
    public var centralClockAccuracy: UInt8

    /// Creates the event.
    public init(
        status: HCIErrorCode = .success, connectionHandle: UInt16, role: UInt8 = 0, peerAddress: BluetoothAddress,
        connectionInterval: UInt16 = 24, peripheralLatency: UInt16 = 0, supervisionTimeout: UInt16 = 72,
        centralClockAccuracy: UInt8 = 0
    ) {
        self.status = status
        self.connectionHandle = connectionHandle
        self.role = role
        self.peerAddress = peerAddress
        self.connectionInterval = connectionInterval
        self.peripheralLatency = peripheralLatency
        self.supervisionTimeout = supervisionTimeout
        self.centralClockAccuracy = centralClockAccuracy
    }

    /// 0x01.
    public var subeventCode: UInt8 { HCILEMetaEvent.connectionComplete }

    /// True for 0x01.
    public static func decodes(subeventCode code: UInt8) -> Bool { code == HCILEMetaEvent.connectionComplete }

    /// Parses the 18 subevent parameter bytes.
    public init(subeventCode: UInt8, subeventParameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(subeventParameters, context: "LE Connection Complete")
        status = HCIErrorCode(rawValue: try reader.readUInt8())
        connectionHandle = try reader.readUInt16LE() & 0x0FFF
        role = try reader.readUInt8()
        let addressType = try reader.readUInt8()
        peerAddress = try BluetoothAddress(littleEndian: &reader, kind: addressType & 1 == 1 ? .random : .public)
        connectionInterval = try reader.readUInt16LE()
        peripheralLatency = try reader.readUInt16LE()
        supervisionTimeout = try reader.readUInt16LE()
        centralClockAccuracy = try reader.readUInt8()
        try reader.expectEnd()
    }

    /// Appends the 18 subevent parameter bytes.
    public func encodeSubeventParameters(into buffer: inout [UInt8]) {
        buffer.append(status.rawValue)
        buffer.appendUInt16LE(connectionHandle & 0x0FFF)
        buffer.append(role)
        buffer.append(peerAddress.kind.rawValue)
        peerAddress.encode(into: &buffer)
        buffer.appendUInt16LE(connectionInterval)
        buffer.appendUInt16LE(peripheralLatency)
        buffer.appendUInt16LE(supervisionTimeout)
        buffer.append(centralClockAccuracy)
    }
}
