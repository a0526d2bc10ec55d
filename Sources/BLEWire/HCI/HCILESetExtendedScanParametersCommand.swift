// SPDX-License-Identifier: GPL-2.0-or-later

/// LE Set Extended Scan Parameters (0x2041) for one PHY (Core Vol 4 Part E 7.8.64).
///
/// The command may configure the 1M and Coded PHYs together; this codec covers the single-PHY
/// case the scanner uses, and a parameter block naming both PHYs is `unsupported`.
public struct HCILESetExtendedScanParametersCommand: HCICommand {
    /// LE Set Extended Scan Parameters.
    public static let opcode = HCIOpcode.leSetExtendedScanParameters

    /// The primary advertising PHY to scan on.
    public enum PHY: UInt8, Hashable, Sendable {
        /// LE 1M (Scanning_PHYs bit 0).
        case le1M = 0x01
        /// LE Coded (Scanning_PHYs bit 2).
        case leCoded = 0x04
    }

    /// 0x00 public, 0x01 random, 0x02/0x03 resolvable with fallback.
    public var ownAddressType: UInt8
    /// 0x00 accept all advertisements.
    public var filterPolicy: UInt8
    /// Which PHY these parameters are for.
    public var phy: PHY
    /// 0x00 passive, 0x01 active.
    public var scanType: UInt8
    /// Scan interval in units of 0.625 ms.
    public var interval: UInt16
    /// Scan window in units of 0.625 ms.
    public var window: UInt16

    /// Creates the command; the defaults are an active 1M scan of 100 ms every 100 ms.
    public init(
        ownAddressType: UInt8 = 0x00, filterPolicy: UInt8 = 0x00, phy: PHY = .le1M, scanType: UInt8 = 0x01,
        interval: UInt16 = 0x00A0, window: UInt16 = 0x00A0
    ) {
        self.ownAddressType = ownAddressType
        self.filterPolicy = filterPolicy
        self.phy = phy
        self.scanType = scanType
        self.interval = interval
        self.window = window
    }

    /// Parses the eight parameter bytes of a one-PHY command.
    public init(parameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(parameters, context: "LE Set Extended Scan Parameters")
        ownAddressType = try reader.readUInt8()
        filterPolicy = try reader.readUInt8()
        let phys = try reader.readUInt8()
        guard let phy = PHY(rawValue: phys) else {
            throw WireError(
                .unsupported,
                "LE Set Extended Scan Parameters: Scanning_PHYs 0x\(BluetoothUUID.hex([phys])) is not exactly one PHY")
        }
        self.phy = phy
        scanType = try reader.readUInt8()
        interval = try reader.readUInt16LE()
        window = try reader.readUInt16LE()
        try reader.expectEnd()
    }

    /// Appends the eight parameter bytes.
    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(ownAddressType)
        buffer.append(filterPolicy)
        buffer.append(phy.rawValue)
        buffer.append(scanType)
        buffer.appendUInt16LE(interval)
        buffer.appendUInt16LE(window)
    }
}
