// SPDX-License-Identifier: GPL-2.0-or-later

/// LE Set Advertising Data (0x2008): the advertising data a legacy advertiser sends, at most 31 bytes
/// (Core Vol 4 Part E 7.8.7).
///
/// On the wire the significant length is followed by a 31-byte field padded with zeros; this
/// type keeps the significant bytes only, and encoding pads them again.
public struct HCILESetAdvertisingDataCommand: HCIAdvertisingPayloadCommand {
    /// LE Set Advertising Data.
    public static let opcode = HCIOpcode.leSetAdvertisingData
    /// Names the command in parse errors.
    public static let name = "LE Set Advertising Data"

    /// The significant bytes, at most 31 (more are cut when encoding).
    public var data: [UInt8]

    /// Creates the command from raw bytes.
    public init(data: [UInt8]) {
        self.data = data
    }
}
