// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire

/// A primary service found on the peer: its type and the handles it spans.
public struct GATTService: Hashable, Sendable, CustomStringConvertible {
    /// The service's type, for example `A2C70010-8F31-11E3-B148-0002A5D5C51B` for the SDU sensor.
    public var uuid: BluetoothUUID
    /// The service declaration's handle (`range.start`) through the service's last attribute.
    public var range: ATTHandleRange

    /// A service of type `uuid` spanning `range`.
    public init(uuid: BluetoothUUID, range: ATTHandleRange) {
        self.uuid = uuid
        self.range = range
    }

    /// `A2C70010-… 0x000C-0x0014`.
    public var description: String { "\(uuid) \(range)" }
}
