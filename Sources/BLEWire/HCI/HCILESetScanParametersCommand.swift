// SPDX-License-Identifier: GPL-2.0-or-later

/// LE Set Scan Parameters (0x200B): legacy scan type, interval and window
/// (Core Vol 4 Part E 7.8.10).
public struct HCILESetScanParametersCommand: HCICommand {
    /// LE Set Scan Parameters.
    public static let opcode = HCIOpcode.leSetScanParameters

    /// 0x00 passive, 0x01 active (sends scan requests to get scan responses).
    public var scanType: UInt8
    /// Scan interval in units of 0.625 ms (0x0004...0x4000).
    public var interval: UInt16
    /// Scan window in units of 0.625 ms, at most `interval`.
    public var window: UInt16
    /// 0x00 public, 0x01 random, 0x02/0x03 resolvable with fallback.
    public var ownAddressType: UInt8
    /// 0x00 accept all advertisements; other values filter by the accept list.
    public var filterPolicy: UInt8

    /// Creates the command; the defaults are an active scan of 100 ms every 100 ms.
    public init(
        scanType: UInt8 = 0x01, interval: UInt16 = 0x00A0, window: UInt16 = 0x00A0, ownAddressType: UInt8 = 0x00,
        filterPolicy: UInt8 = 0x00
    ) {
        self.scanType = scanType
        self.interval = interval
        self.window = window
        self.ownAddressType = ownAddressType
        self.filterPolicy = filterPolicy
    }

    /// Parses the seven parameter bytes.
    public init(parameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(parameters, context: "LE Set Scan Parameters")
        scanType = try reader.readUInt8()
        interval = try reader.readUInt16LE()
        window = try reader.readUInt16LE()
        ownAddressType = try reader.readUInt8()
        filterPolicy = try reader.readUInt8()
        try reader.expectEnd()
    }

    /// Appends the seven parameter bytes.
    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(scanType)
        buffer.appendUInt16LE(interval)
        buffer.appendUInt16LE(window)
        buffer.append(ownAddressType)
        buffer.append(filterPolicy)
    }
}
