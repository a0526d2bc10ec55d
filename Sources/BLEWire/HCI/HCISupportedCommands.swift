// SPDX-License-Identifier: GPL-2.0-or-later

/// The return parameters of Read Local Supported Commands: a status and the 64-octet
/// Supported_Commands bitmap (Core Vol 4 Part E 6.27 lists which octet and bit stand for which
/// command).
public struct HCISupportedCommands: Hashable, Sendable {
    /// The status the controller returned.
    public var status: HCIErrorCode
    /// The 64 octets of the bitmap.
    public var octets: [UInt8]

    /// Creates a bitmap from 64 octets (shorter input is zero-padded, longer is cut).
    public init(status: HCIErrorCode = .success, octets: [UInt8]) {
        self.status = status
        self.octets = Array((octets + [UInt8](repeating: 0, count: 64)).prefix(64))
    }

    /// Parses the return parameters: status then exactly 64 octets. A failed status with no
    /// bitmap (some controllers send only the status) yields an all-zero bitmap.
    public init(parsing returnParameters: some Collection<UInt8>) throws(WireError) {
        var reader = WireReader(returnParameters, context: "Read Local Supported Commands response")
        status = HCIErrorCode(rawValue: try reader.readUInt8())
        if status != .success && reader.isAtEnd {
            octets = [UInt8](repeating: 0, count: 64)
            return
        }
        octets = Array(try reader.readBytes(64))
        try reader.expectEnd()
    }

    /// Decodes a Command Complete event for Read Local Supported Commands.
    public init(_ event: HCICommandCompleteEvent) throws(WireError) {
        guard event.opcode == .readLocalSupportedCommands else {
            throw WireError(
                .wrongOpcode,
                "Command Complete for \(event.opcode), expected \(HCIOpcode.readLocalSupportedCommands)")
        }
        try self.init(parsing: event.returnParameters)
    }

    /// Appends status and the 64 octets.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(status.rawValue)
        buffer.append(contentsOf: octets)
    }

    /// Whether the bit for a command is set; out-of-range positions are false.
    public func supports(octet: Int, bit: Int) -> Bool {
        guard octets.indices.contains(octet), (0..<8).contains(bit) else { return false }
        return octets[octet] & (1 << UInt8(bit)) != 0
    }

    /// Sets or clears the bit for a command (for building fixtures); out-of-range positions are ignored.
    public mutating func set(octet: Int, bit: Int, _ supported: Bool = true) {
        guard octets.indices.contains(octet), (0..<8).contains(bit) else { return }
        if supported { octets[octet] |= 1 << UInt8(bit) } else { octets[octet] &= ~(1 << UInt8(bit)) }
    }

    // Bit positions: Core Vol 4 Part E 6.27 (Supported Commands table). Cross-checked against
    // BlueZ monitor/packet.c, whose opcode table gives each command's bit as octet * 8 + bit:
    // 0x2041 -> 301 (octet 37 bit 5), 0x2042 -> 302 (octet 37 bit 6).

    /// LE Set Extended Scan Parameters (octet 37 bit 5).
    public var supportsLESetExtendedScanParameters: Bool { supports(octet: 37, bit: 5) }
    /// LE Set Extended Scan Enable (octet 37 bit 6).
    public var supportsLESetExtendedScanEnable: Bool { supports(octet: 37, bit: 6) }
    /// True when both extended-scan commands are supported, so the scanner can use them.
    public var supportsExtendedScanning: Bool {
        supportsLESetExtendedScanParameters && supportsLESetExtendedScanEnable
    }
}
