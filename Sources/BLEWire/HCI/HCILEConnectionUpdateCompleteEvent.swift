// SPDX-License-Identifier: GPL-2.0-or-later

/// LE Connection Update Complete (LE Meta subevent 0x03): a link's parameters changed, whichever
/// side asked (Core Vol 4 Part E 7.7.65.3).
public struct HCILEConnectionUpdateCompleteEvent: HCILESubevent {
    /// Whether the update succeeded.
    public var status: HCIErrorCode
    /// The link, 12 bits.
    public var connectionHandle: UInt16
    /// The connection interval in units of 1.25 ms.
    public var connectionInterval: UInt16
    /// How many connection events the peripheral may skip.
    public var peripheralLatency: UInt16
    /// The supervision timeout in units of 10 ms.
    public var supervisionTimeout: UInt16

    /// Creates the event.
    public init(
        status: HCIErrorCode = .success, connectionHandle: UInt16, connectionInterval: UInt16,
        peripheralLatency: UInt16 = 0, supervisionTimeout: UInt16
    ) {
        self.status = status
        self.connectionHandle = connectionHandle
        self.connectionInterval = connectionInterval
        self.peripheralLatency = peripheralLatency
        self.supervisionTimeout = supervisionTimeout
    }

    /// LE Connection Update Complete.
    public static let code: UInt8 = 0x03

    /// 0x03.
    public var subeventCode: UInt8 { Self.code }

    /// True for 0x03.
    public static func decodes(subeventCode code: UInt8) -> Bool { code == Self.code }

    /// Parses the 9 subevent parameter bytes.
    public init(subeventCode: UInt8, subeventParameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(subeventParameters, context: "LE Connection Update Complete")
        status = HCIErrorCode(rawValue: try reader.readUInt8())
        connectionHandle = try reader.readUInt16LE() & 0x0FFF
        connectionInterval = try reader.readUInt16LE()
        peripheralLatency = try reader.readUInt16LE()
        supervisionTimeout = try reader.readUInt16LE()
        try reader.expectEnd()
    }

    /// Appends the 9 subevent parameter bytes.
    public func encodeSubeventParameters(into buffer: inout [UInt8]) {
        buffer.append(status.rawValue)
        buffer.appendUInt16LE(connectionHandle & 0x0FFF)
        buffer.appendUInt16LE(connectionInterval)
        buffer.appendUInt16LE(peripheralLatency)
        buffer.appendUInt16LE(supervisionTimeout)
    }
}
