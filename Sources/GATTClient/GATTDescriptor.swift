// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire

/// A characteristic descriptor found on the peer, such as the Client Characteristic
/// Configuration (0x2902) that switches notifications on.
public struct GATTDescriptor: Hashable, Sendable, CustomStringConvertible {
    /// The descriptor's handle.
    public var handle: UInt16
    /// The descriptor's type.
    public var uuid: BluetoothUUID

    /// A descriptor of type `uuid` at `handle`.
    public init(handle: UInt16, uuid: BluetoothUUID) {
        self.handle = handle
        self.uuid = uuid
    }

    /// `0x2902 at 0x0011`.
    public var description: String { "\(uuid) at 0x" + String(handle, radix: 16, uppercase: true) }
}
