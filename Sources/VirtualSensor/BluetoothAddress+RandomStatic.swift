// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire

extension BluetoothAddress {
    /// A random static address (Core Vol 6 Part B 1.3.2.1): the two most significant bits are
    /// `11`, and the other 46 bits are random but neither all zeros nor all ones.
    ///
    /// A virtual sensor uses one so it can never collide with a vendor's public address.
    public static func randomStatic(using generator: inout some RandomNumberGenerator) -> BluetoothAddress {
        while true {
            let bits = generator.next() & 0x3FFF_FFFF_FFFF
            guard bits != 0, bits != 0x3FFF_FFFF_FFFF else { continue }
            let value = bits | 0xC000_0000_0000
            let octets = (0..<6).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
            return BluetoothAddress(octets: octets, kind: .random)!
        }
    }
}
