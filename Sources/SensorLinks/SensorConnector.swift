// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GATTClient

/// Opens an ATT bearer to a sensor: the one thing `SensorLink` needs from the transport.
///
/// Production passes the L2CAP LE connector (behind the adapter pool and each adapter's
/// `QueuedSensorConnector`); tests and virtual sensors pass a `ClosureSensorConnector` that makes a
/// socket pair or loopback pair and serves a `VirtualSensor` on the other end. `SensorLinks` never
/// imports the transport itself.
///
/// A connector should honour task cancellation (`SensorLink.stop()` cancels a pending connect)
/// and give up by itself when the peer never answers: the kernel's LE connection attempt has its
/// own timeout, a loopback connect returns at once.
public protocol SensorConnector: Sendable {
    /// Opens a new ATT bearer to `address`. Throws when the sensor cannot be reached.
    func connect(to address: BluetoothAddress) async throws -> any ATTBearer
}

/// A connector made from a closure.
public struct ClosureSensorConnector: SensorConnector {
    private let body: @Sendable (BluetoothAddress) async throws -> any ATTBearer

    /// A connector that calls `connect` for every connection attempt.
    public init(_ connect: @escaping @Sendable (BluetoothAddress) async throws -> any ATTBearer) {
        body = connect
    }

    /// Calls the closure.
    public func connect(to address: BluetoothAddress) async throws -> any ATTBearer {
        try await body(address)
    }
}
