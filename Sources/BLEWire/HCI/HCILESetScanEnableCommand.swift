// SPDX-License-Identifier: GPL-2.0-or-later

/// LE Set Scan Enable (0x200C): start or stop a legacy scan (Core Vol 4 Part E 7.8.11).
public struct HCILESetScanEnableCommand: HCICommand {
    /// LE Set Scan Enable.
    public static let opcode = HCIOpcode.leSetScanEnable

    /// Start (true) or stop (false) scanning.
    public var enable: Bool
    /// Whether the controller should drop duplicate advertisements.
    public var filterDuplicates: Bool

    /// Creates the command.
    public init(enable: Bool, filterDuplicates: Bool = false) {
        self.enable = enable
        self.filterDuplicates = filterDuplicates
    }

    /// Parses the two parameter bytes; values other than 0 and 1 are `invalidValue`.
    public init(parameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(parameters, context: "LE Set Scan Enable")
        enable = try HCIBoolean.read(&reader, "LE_Scan_Enable")
        filterDuplicates = try HCIBoolean.read(&reader, "Filter_Duplicates")
        try reader.expectEnd()
    }

    /// Appends the two parameter bytes.
    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(enable ? 1 : 0)
        buffer.append(filterDuplicates ? 1 : 0)
    }
}

/// Reads the one-byte booleans HCI commands use (0x00 or 0x01).
enum HCIBoolean {
    static func read(_ reader: inout WireReader, _ field: String) throws(WireError) -> Bool {
        let value = try reader.readUInt8()
        guard value <= 1 else {
            throw WireError(.invalidValue, "\(reader.context): \(field) is \(value), expected 0 or 1")
        }
        return value == 1
    }
}
