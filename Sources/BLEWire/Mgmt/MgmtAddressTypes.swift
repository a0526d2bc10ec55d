// SPDX-License-Identifier: GPL-2.0-or-later

/// Which kinds of devices a discovery looks for: a bit set (bit 0 BR/EDR, bit 1 LE public,
/// bit 2 LE random).
public struct MgmtAddressTypes: OptionSet, Hashable, Sendable, CustomStringConvertible {
    /// The bit set.
    public var rawValue: UInt8

    /// Wraps a bit set.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// BR/EDR (classic) devices.
    public static let bredr = MgmtAddressTypes(rawValue: 0x01)
    /// LE devices with a public address.
    public static let lePublic = MgmtAddressTypes(rawValue: 0x02)
    /// LE devices with a random address.
    public static let leRandom = MgmtAddressTypes(rawValue: 0x04)
    /// Every LE device (0x06): what the gateway discovers.
    public static let le: MgmtAddressTypes = [.lePublic, .leRandom]

    /// Whether any LE bit is set.
    public var includesLE: Bool { !intersection(.le).isEmpty }

    /// `0x06`.
    public var description: String { "0x" + BluetoothUUID.hex([rawValue]) }
}

/// The address type of one device in management events and commands: 0 BR/EDR, 1 LE public,
/// 2 LE random.
public enum MgmtDeviceAddressType: UInt8, Hashable, Sendable {
    /// A BR/EDR device.
    case bredr = 0
    /// An LE device with a public address.
    case lePublic = 1
    /// An LE device with a random address.
    case leRandom = 2

    /// Reads one address-type byte; values above 2 are `invalidValue`.
    static func read(_ reader: inout WireReader) throws(WireError) -> MgmtDeviceAddressType {
        let value = try reader.readUInt8()
        guard let type = MgmtDeviceAddressType(rawValue: value) else {
            throw WireError(.invalidValue, "\(reader.context): address type \(value), expected 0, 1 or 2")
        }
        return type
    }

    /// The address kind LE uses (BR/EDR addresses are public).
    public var kind: BluetoothAddress.Kind { self == .leRandom ? .random : .public }
}
