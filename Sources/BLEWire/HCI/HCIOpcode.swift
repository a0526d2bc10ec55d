// SPDX-License-Identifier: GPL-2.0-or-later

/// An HCI command opcode: a 6-bit opcode group field (OGF) and a 10-bit command field (OCF),
/// `opcode = OGF << 10 | OCF`, little-endian on the wire (Core Vol 4 Part E 5.4.1).
public struct HCIOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 16-bit opcode.
    public var rawValue: UInt16

    /// Wraps a 16-bit opcode.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Builds an opcode from its group and command fields; bits beyond their widths are dropped.
    public init(ogf: UInt8, ocf: UInt16) {
        self.rawValue = UInt16(ogf & 0x3F) << 10 | (ocf & 0x03FF)
    }

    /// The opcode group field (0x08 for LE controller commands).
    public var ogf: UInt8 { UInt8(rawValue >> 10) }
    /// The opcode command field.
    public var ocf: UInt16 { rawValue & 0x03FF }

    /// `0x200B`.
    public var description: String {
        "0x" + BluetoothUUID.hex([UInt8(rawValue >> 8), UInt8(truncatingIfNeeded: rawValue)])
    }

    /// Read Local Supported Commands (informational parameters, 0x1002).
    public static let readLocalSupportedCommands = HCIOpcode(rawValue: 0x1002)
    /// LE Set Advertising Parameters (0x2006).
    public static let leSetAdvertisingParameters = HCIOpcode(rawValue: 0x2006)
    /// LE Set Advertising Data (0x2008).
    public static let leSetAdvertisingData = HCIOpcode(rawValue: 0x2008)
    /// LE Set Scan Response Data (0x2009).
    public static let leSetScanResponseData = HCIOpcode(rawValue: 0x2009)
    /// LE Set Advertising Enable (0x200A).
    public static let leSetAdvertisingEnable = HCIOpcode(rawValue: 0x200A)
    /// LE Set Scan Parameters (0x200B).
    public static let leSetScanParameters = HCIOpcode(rawValue: 0x200B)
    /// LE Set Scan Enable (0x200C).
    public static let leSetScanEnable = HCIOpcode(rawValue: 0x200C)
    /// LE Create Connection (0x200D).
    public static let leCreateConnection = HCIOpcode(rawValue: 0x200D)
    /// LE Set Extended Scan Parameters (0x2041).
    public static let leSetExtendedScanParameters = HCIOpcode(rawValue: 0x2041)
    /// LE Set Extended Scan Enable (0x2042).
    public static let leSetExtendedScanEnable = HCIOpcode(rawValue: 0x2042)
    /// Disconnect (0x0406).
    public static let disconnect = HCIOpcode(rawValue: 0x0406)
}
