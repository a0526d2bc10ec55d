// SPDX-License-Identifier: GPL-2.0-or-later

/// A 48-bit Bluetooth device address with its LE address type.
///
/// Printed most significant octet first (`BC:05:FC:97:8B:75`); on the wire (HCI, btsnoop,
/// `bdaddr_t`) the octets are little-endian, least significant first.
public struct BluetoothAddress: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// Whether the address is the device's public (IEEE-assigned) one or a random one.
    public enum Kind: UInt8, Hashable, Sendable, CustomStringConvertible {
        case `public` = 0
        case random = 1

        public var description: String { self == .public ? "public" : "random" }
    }

    /// What a random address is, read from its two most significant bits (Core Vol 6 Part B 1.3).
    public enum RandomSubtype: Sendable, Hashable {
        case staticAddress
        case resolvablePrivate
        case nonResolvablePrivate
        case reserved
    }

    /// The six octets, most significant first (as printed).
    public let octets: [UInt8]
    /// Public or random.
    public var kind: Kind

    /// Creates an address from six octets, most significant first.
    public init?(octets: some Collection<UInt8>, kind: Kind = .public) {
        guard octets.count == 6 else { return nil }
        self.octets = Array(octets)
        self.kind = kind
    }

    /// Reads six little-endian octets, as HCI and `bdaddr_t` store them.
    public init(littleEndian reader: inout WireReader, kind: Kind = .public) throws(WireError) {
        self.octets = Array(try reader.readBytes(6).reversed())
        self.kind = kind
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (or with `-`), any case.
    public init?(string: String, kind: Kind = .public) {
        let parts = string.split(separator: string.contains("-") ? "-" : ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var octets: [UInt8] = []
        for part in parts {
            guard part.count == 2, let value = UInt8(part, radix: 16) else { return nil }
            octets.append(value)
        }
        self.octets = octets
        self.kind = kind
    }

    /// Appends the six octets little-endian.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(contentsOf: octets.reversed())
    }

    /// For a random address, what kind of random address it is; nil for a public one.
    public var randomSubtype: RandomSubtype? {
        guard kind == .random else { return nil }
        switch octets[0] >> 6 {
        case 0b11: return .staticAddress
        case 0b01: return .resolvablePrivate
        case 0b00: return .nonResolvablePrivate
        default: return .reserved
        }
    }

    /// `AA:BB:CC:DD:EE:FF`.
    public var description: String {
        octets.map { BluetoothUUID.hex([$0]) }.joined(separator: ":")
    }

    public static func < (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool {
        if lhs.octets != rhs.octets { return lhs.octets.lexicographicallyPrecedes(rhs.octets) }
        return lhs.kind.rawValue < rhs.kind.rawValue
    }
}
