// SPDX-License-Identifier: GPL-2.0-or-later

/// A Bluetooth UUID: always held as 128 bits, shortened to 16 or 32 bits when it derives from
/// the Bluetooth Base UUID `00000000-0000-1000-8000-00805F9B34FB`.
///
/// On the wire (ATT, advertising data) UUIDs are little-endian and 2, 4 or 16 bytes long;
/// printed, a 16-bit UUID is four hex digits (`2902`) and any other is the canonical
/// 8-4-4-4-12 upper-case form.
public struct BluetoothUUID: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The 16 bytes in the order they are printed (most significant first).
    public let bytes: [UInt8]

    /// The last 12 bytes of the Bluetooth Base UUID, shared by every 16- and 32-bit UUID.
    static let baseSuffix: [UInt8] = [0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5F, 0x9B, 0x34, 0xFB]

    /// Creates a UUID from its 16 bytes, most significant first. Returns nil for another length.
    public init?(bigEndianBytes: some Collection<UInt8>) {
        guard bigEndianBytes.count == 16 else { return nil }
        self.bytes = Array(bigEndianBytes)
    }

    /// A 16-bit UUID assigned by the Bluetooth SIG (for example `0x2902`, the CCCD).
    public init(_ short: UInt16) {
        self.init(uuid32: UInt32(short))
    }

    /// A 32-bit UUID on the Bluetooth Base UUID.
    public init(uuid32: UInt32) {
        self.bytes =
            [
                UInt8(truncatingIfNeeded: uuid32 >> 24), UInt8(truncatingIfNeeded: uuid32 >> 16),
                UInt8(truncatingIfNeeded: uuid32 >> 8), UInt8(truncatingIfNeeded: uuid32),
            ] + Self.baseSuffix
    }

    /// Parses `2902`, `0x2902`, `0000180D` (32-bit) or `A2C70010-8F31-11E3-B148-0002A5D5C51B`
    /// (dashes optional, any case). Returns nil for anything else.
    public init?(string: String) {
        var text = Substring(string)
        if text.hasPrefix("0x") || text.hasPrefix("0X") { text = text.dropFirst(2) }
        let hex = text.filter { $0 != "-" }
        guard let digits = Self.hexBytes(hex) else { return nil }
        switch digits.count {
        case 2: self.init(UInt16(digits[0]) << 8 | UInt16(digits[1]))
        case 4: self.init(uuid32: digits.reduce(0) { $0 << 8 | UInt32($1) })
        case 16:
            // A 128-bit UUID must have its dashes in the canonical places, or none at all.
            if text.contains("-") {
                let groups = text.split(separator: "-", omittingEmptySubsequences: false).map(\.count)
                guard groups == [8, 4, 4, 4, 12] else { return nil }
            }
            self.init(bigEndianBytes: digits)
        default: return nil
        }
    }

    /// Parses a UUID in the little-endian wire form: 2, 4 or 16 bytes.
    public init(littleEndian wire: some Collection<UInt8>) throws(WireError) {
        let le = Array(wire)
        switch le.count {
        case 2: self.init(UInt16(le[0]) | UInt16(le[1]) << 8)
        case 4: self.init(uuid32: UInt32(le[0]) | UInt32(le[1]) << 8 | UInt32(le[2]) << 16 | UInt32(le[3]) << 24)
        case 16: self.init(bigEndianBytes: le.reversed())!
        default: throw WireError(.wrongLength, "UUID: \(le.count) bytes, expected 2, 4 or 16")
        }
    }

    private static func hexBytes(_ hex: some StringProtocol) -> [UInt8]? {
        guard hex.count % 2 == 0, !hex.isEmpty else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(hex.count / 2)
        var high: UInt8?
        for character in hex {
            guard let nibble = character.hexDigitValue else { return nil }
            if let h = high {
                out.append(h << 4 | UInt8(nibble))
                high = nil
            } else {
                high = UInt8(nibble)
            }
        }
        return out
    }

    /// True when this UUID lies on the Bluetooth Base UUID (it has a 32-bit form).
    public var isOnBase: Bool { Array(bytes[4...]) == Self.baseSuffix }

    /// The 16-bit form, when the UUID has one.
    public var uuid16: UInt16? {
        guard isOnBase, bytes[0] == 0, bytes[1] == 0 else { return nil }
        return UInt16(bytes[2]) << 8 | UInt16(bytes[3])
    }

    /// The 32-bit form, when the UUID has one.
    public var uuid32: UInt32? {
        guard isOnBase else { return nil }
        return bytes[0..<4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The shortest wire form ATT allows: 2 bytes for a 16-bit UUID, else 16 bytes.
    /// (ATT has no 32-bit UUIDs; advertising data does, see `encode(into:width:)`.)
    public var attWidth: Int { uuid16 != nil ? 2 : 16 }

    /// Appends the little-endian wire form, 2, 4 or 16 bytes wide. A width the UUID cannot be
    /// shortened to falls back to 16 bytes.
    public func encode(into buffer: inout [UInt8], width: Int? = nil) {
        switch width ?? attWidth {
        case 2 where uuid16 != nil: buffer.appendUInt16LE(uuid16!)
        case 4 where uuid32 != nil: buffer.appendUInt32LE(uuid32!)
        default: buffer.append(contentsOf: bytes.reversed())
        }
    }

    /// `2902` for 16-bit UUIDs, else `A2C70010-8F31-11E3-B148-0002A5D5C51B`.
    public var description: String {
        if let short = uuid16 { return Self.hex([UInt8(short >> 8), UInt8(short & 0xFF)]) }
        let h = Self.hex(bytes)
        let c = Array(h)
        return [c[0..<8], c[8..<12], c[12..<16], c[16..<20], c[20..<32]].map { String($0) }.joined(separator: "-")
    }

    /// The canonical 128-bit form, even for a 16-bit UUID.
    public var longDescription: String {
        let c = Array(Self.hex(bytes))
        return [c[0..<8], c[8..<12], c[12..<16], c[16..<20], c[20..<32]].map { String($0) }.joined(separator: "-")
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789ABCDEF")
        var s = ""
        for b in bytes {
            s.append(digits[Int(b >> 4)])
            s.append(digits[Int(b & 0xF)])
        }
        return s
    }

    public static func < (lhs: BluetoothUUID, rhs: BluetoothUUID) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}

extension BluetoothUUID {
    /// GATT Primary Service declaration.
    public static let primaryService = BluetoothUUID(0x2800)
    /// GATT Secondary Service declaration.
    public static let secondaryService = BluetoothUUID(0x2801)
    /// GATT Include declaration.
    public static let include = BluetoothUUID(0x2802)
    /// GATT Characteristic declaration.
    public static let characteristic = BluetoothUUID(0x2803)
    /// Client Characteristic Configuration descriptor (enables notifications/indications).
    public static let clientCharacteristicConfiguration = BluetoothUUID(0x2902)
    /// Generic Access service.
    public static let genericAccess = BluetoothUUID(0x1800)
    /// Generic Attribute service.
    public static let genericAttribute = BluetoothUUID(0x1801)
    /// Device Information service.
    public static let deviceInformation = BluetoothUUID(0x180A)
    /// GAP Device Name characteristic.
    public static let deviceName = BluetoothUUID(0x2A00)
    /// GAP Appearance characteristic.
    public static let appearance = BluetoothUUID(0x2A01)
    /// GATT Service Changed characteristic.
    public static let serviceChanged = BluetoothUUID(0x2A05)
    /// DIS Model Number String.
    public static let modelNumberString = BluetoothUUID(0x2A24)
    /// DIS Serial Number String.
    public static let serialNumberString = BluetoothUUID(0x2A25)
    /// DIS Firmware Revision String.
    public static let firmwareRevisionString = BluetoothUUID(0x2A26)
    /// DIS Manufacturer Name String.
    public static let manufacturerNameString = BluetoothUUID(0x2A29)
}
