// SPDX-License-Identifier: GPL-2.0-or-later

/// LE Enhanced Connection Complete, v1 (LE Meta subevent 0x0A) and v2 (0x29): LE Connection
/// Complete plus the resolvable private addresses in use, and in v2 the advertising set and
/// periodic-sync handles (Core Vol 4 Part E 7.7.65.10; v2 layout cross-checked against Zephyr's
/// `bt_hci_evt_le_enh_conn_complete_v2`).
public struct HCILEEnhancedConnectionCompleteEvent: HCILESubevent {
    /// Whether the connection was established.
    public var status: HCIErrorCode
    /// The new connection handle (12 bits).
    public var connectionHandle: UInt16
    /// 0x00 central, 0x01 peripheral.
    public var role: UInt8
    /// Peer address type as sent: 0x00 public, 0x01 random, 0x02 public identity (resolved
    /// from an RPA), 0x03 random static identity (resolved).
    public var peerAddressType: UInt8
    /// The peer's (identity) address; `kind` is random for odd address types.
    public var peerAddress: BluetoothAddress
    /// Our own resolvable private address on this connection, all zero if none was used.
    public var localResolvablePrivateAddress: [UInt8]
    /// The peer's resolvable private address, all zero if none was used.
    public var peerResolvablePrivateAddress: [UInt8]
    /// Connection interval in units of 1.25 ms.
    public var connectionInterval: UInt16
    /// Peripheral latency in connection events.
    public var peripheralLatency: UInt16
    /// Supervision timeout in units of 10 ms.
    public var supervisionTimeout: UInt16
    /// Central clock accuracy code.
    public var centralClockAccuracy: UInt8
    /// v2 only: the advertising set the connection came from (0xFF none); nil for v1.
    public var advertisingHandle: UInt8?
    /// v2 only: the periodic advertising sync handle (0xFFFF none); nil for v1.
    public var syncHandle: UInt16?

    /// Creates a v1 event, or a v2 event when both v2 handles are given.
    public init(
        status: HCIErrorCode = .success, connectionHandle: UInt16, role: UInt8 = 0, peerAddressType: UInt8? = nil,
        peerAddress: BluetoothAddress, localResolvablePrivateAddress: [UInt8] = [0, 0, 0, 0, 0, 0],
        peerResolvablePrivateAddress: [UInt8] = [0, 0, 0, 0, 0, 0], connectionInterval: UInt16 = 24,
        peripheralLatency: UInt16 = 0, supervisionTimeout: UInt16 = 72, centralClockAccuracy: UInt8 = 0,
        advertisingHandle: UInt8? = nil, syncHandle: UInt16? = nil
    ) {
        self.status = status
        self.connectionHandle = connectionHandle
        self.role = role
        self.peerAddressType = peerAddressType ?? peerAddress.kind.rawValue
        self.peerAddress = peerAddress
        self.localResolvablePrivateAddress = localResolvablePrivateAddress
        self.peerResolvablePrivateAddress = peerResolvablePrivateAddress
        self.connectionInterval = connectionInterval
        self.peripheralLatency = peripheralLatency
        self.supervisionTimeout = supervisionTimeout
        self.centralClockAccuracy = centralClockAccuracy
        self.advertisingHandle = advertisingHandle
        self.syncHandle = syncHandle
    }

    /// 0x29 when the v2 handles are present, else 0x0A.
    public var subeventCode: UInt8 {
        isV2 ? HCILEMetaEvent.enhancedConnectionCompleteV2 : HCILEMetaEvent.enhancedConnectionComplete
    }

    /// True when both v2 fields are present.
    public var isV2: Bool { advertisingHandle != nil && syncHandle != nil }

    /// True for 0x0A and 0x29.
    public static func decodes(subeventCode code: UInt8) -> Bool {
        code == HCILEMetaEvent.enhancedConnectionComplete || code == HCILEMetaEvent.enhancedConnectionCompleteV2
    }

    /// Parses 30 (v1) or 33 (v2) subevent parameter bytes.
    public init(subeventCode: UInt8, subeventParameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(subeventParameters, context: "LE Enhanced Connection Complete")
        status = HCIErrorCode(rawValue: try reader.readUInt8())
        connectionHandle = try reader.readUInt16LE() & 0x0FFF
        role = try reader.readUInt8()
        peerAddressType = try reader.readUInt8()
        peerAddress = try BluetoothAddress(littleEndian: &reader, kind: peerAddressType & 1 == 1 ? .random : .public)
        localResolvablePrivateAddress = Array(try reader.readBytes(6))
        peerResolvablePrivateAddress = Array(try reader.readBytes(6))
        connectionInterval = try reader.readUInt16LE()
        peripheralLatency = try reader.readUInt16LE()
        supervisionTimeout = try reader.readUInt16LE()
        centralClockAccuracy = try reader.readUInt8()
        if subeventCode == HCILEMetaEvent.enhancedConnectionCompleteV2 {
            advertisingHandle = try reader.readUInt8()
            syncHandle = try reader.readUInt16LE()
        } else {
            advertisingHandle = nil
            syncHandle = nil
        }
        try reader.expectEnd()
    }

    /// Appends 30 (v1) or 33 (v2) subevent parameter bytes.
    public func encodeSubeventParameters(into buffer: inout [UInt8]) {
        buffer.append(status.rawValue)
        buffer.appendUInt16LE(connectionHandle & 0x0FFF)
        buffer.append(role)
        buffer.append(peerAddressType)
        peerAddress.encode(into: &buffer)
        buffer.append(contentsOf: Self.sixBytes(localResolvablePrivateAddress))
        buffer.append(contentsOf: Self.sixBytes(peerResolvablePrivateAddress))
        buffer.appendUInt16LE(connectionInterval)
        buffer.appendUInt16LE(peripheralLatency)
        buffer.appendUInt16LE(supervisionTimeout)
        buffer.append(centralClockAccuracy)
        if let advertisingHandle, let syncHandle {
            buffer.append(advertisingHandle)
            buffer.appendUInt16LE(syncHandle)
        }
    }

    private static func sixBytes(_ bytes: [UInt8]) -> [UInt8] {
        Array((bytes + [0, 0, 0, 0, 0, 0]).prefix(6))
    }
}
