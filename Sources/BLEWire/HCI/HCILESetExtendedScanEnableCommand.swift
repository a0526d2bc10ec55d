// SPDX-License-Identifier: GPL-2.0-or-later

/// LE Set Extended Scan Enable (0x2042): start or stop an extended scan
/// (Core Vol 4 Part E 7.8.65).
public struct HCILESetExtendedScanEnableCommand: HCICommand {
    /// LE Set Extended Scan Enable.
    public static let opcode = HCIOpcode.leSetExtendedScanEnable

    /// Start (true) or stop (false) scanning.
    public var enable: Bool
    /// 0x00 report duplicates, 0x01 filter them, 0x02 filter them per scan period.
    public var filterDuplicates: UInt8
    /// Scan duration in units of 10 ms; 0 scans until disabled.
    public var duration: UInt16
    /// Period between scans in units of 1.28 s; 0 scans once.
    public var period: UInt16

    /// Creates the command; by default it scans continuously.
    public init(enable: Bool, filterDuplicates: UInt8 = 0x00, duration: UInt16 = 0, period: UInt16 = 0) {
        self.enable = enable
        self.filterDuplicates = filterDuplicates
        self.duration = duration
        self.period = period
    }

    /// Parses the six parameter bytes.
    public init(parameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(parameters, context: "LE Set Extended Scan Enable")
        enable = try HCIBoolean.read(&reader, "Enable")
        filterDuplicates = try reader.readUInt8()
        duration = try reader.readUInt16LE()
        period = try reader.readUInt16LE()
        try reader.expectEnd()
    }

    /// Appends the six parameter bytes.
    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(enable ? 1 : 0)
        buffer.append(filterDuplicates)
        buffer.appendUInt16LE(duration)
        buffer.appendUInt16LE(period)
    }
}
