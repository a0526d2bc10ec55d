// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire

/// A characteristic found on the peer: its declaration, value handle and the last handle that
/// belongs to it (its descriptors lie between the value handle and `endHandle`).
public struct GATTCharacteristic: Hashable, Sendable, CustomStringConvertible {
    /// The characteristic's type.
    public var uuid: BluetoothUUID
    /// The handle of the characteristic declaration (type 0x2803).
    public var declarationHandle: UInt16
    /// The handle of the characteristic value: what reads, writes and notifications address.
    public var valueHandle: UInt16
    /// What the value allows (read, write, notify, …).
    public var properties: GATTCharacteristicDeclaration.Properties
    /// The characteristic's last handle: one before the next declaration, or the service's end.
    public var endHandle: UInt16

    /// A characteristic with the given declaration fields and end handle.
    public init(
        uuid: BluetoothUUID, declarationHandle: UInt16, valueHandle: UInt16,
        properties: GATTCharacteristicDeclaration.Properties, endHandle: UInt16
    ) {
        self.uuid = uuid
        self.declarationHandle = declarationHandle
        self.valueHandle = valueHandle
        self.properties = properties
        self.endHandle = endHandle
    }

    /// `A2C70031-… value 0x0010 (0x000F-0x0011) properties 0x10`.
    public var description: String {
        "\(uuid) value 0x" + String(valueHandle, radix: 16, uppercase: true) + " ("
            + ATTHandleRange(start: declarationHandle, end: endHandle).description + ") properties 0x"
            + String(properties.rawValue, radix: 16, uppercase: true)
    }
}
