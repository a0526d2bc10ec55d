// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire

/// One row of a GATT server's attribute table (Core Vol 3 Part F 3.2): a handle, a type, a value
/// and what a client may do with the value.
public struct GATTAttribute: Hashable, Sendable {
    /// What a client may do with an attribute's value over ATT.
    public struct Permissions: OptionSet, Hashable, Sendable {
        /// The permission bits.
        public var rawValue: UInt8

        /// Wraps permission bits.
        public init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        /// Read Request, Read Blob Request and the read-by-type requests may return the value.
        public static let readable = Permissions(rawValue: 0x01)
        /// Write Request and Write Command may change the value.
        public static let writable = Permissions(rawValue: 0x02)
    }

    /// The attribute's handle, 0x0001–0xFFFF.
    public var handle: UInt16
    /// The attribute type: 0x2800 for a primary service, 0x2803 for a characteristic
    /// declaration, the characteristic UUID for its value, 0x2902 for a CCCD, …
    public var type: BluetoothUUID
    /// The current value.
    public var value: [UInt8]
    /// What a client may do with `value`.
    public var permissions: Permissions

    /// An attribute at `handle` of `type` holding `value`.
    public init(handle: UInt16, type: BluetoothUUID, value: [UInt8], permissions: Permissions) {
        self.handle = handle
        self.type = type
        self.value = value
        self.permissions = permissions
    }

    /// True for a service declaration (primary or secondary): the attribute that starts a group.
    public var isServiceDeclaration: Bool {
        type == .primaryService || type == .secondaryService
    }
}
