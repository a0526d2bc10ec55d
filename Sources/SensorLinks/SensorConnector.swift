// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GATTClient

/// Opens an ATT bearer to a sensor: the one thing `SensorLink` needs from the transport.
///
/// Production passes the L2CAP LE connector (optionally behind a scanner that waits for the
/// sensor's advertisement first, see `ScanningSensorConnector`); tests and virtual sensors pass a
/// `ClosureSensorConnector` that makes a socket pair or loopback pair and serves a
/// `VirtualSensor` on the other end. `GatewayCore` never imports the transport itself.
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

/// Waits until a given sensor is seen advertising: the scanning half of "scan by address".
///
/// The LE scanner in the transport conforms (in the daemon, which may import both targets).
public protocol SensorAdvertisementWaiter: Sendable {
    /// Returns once `address` has been seen advertising (connectable); throws when scanning fails.
    /// May return the address with its corrected type (public or random) as the advertisement
    /// reported it.
    func waitForAdvertisement(from address: BluetoothAddress) async throws -> BluetoothAddress
}

/// Scan by address, then connect: waits for the sensor's advertisement before asking the inner
/// connector, so a connection attempt is only made when the sensor is there and with the address
/// type it advertised.
public struct ScanningSensorConnector<Waiter: SensorAdvertisementWaiter, Inner: SensorConnector>: SensorConnector {
    /// Waits for the advertisement.
    public let waiter: Waiter
    /// Opens the bearer once the sensor was seen.
    public let inner: Inner

    /// Scans with `waiter`, then connects with `inner`.
    public init(waiter: Waiter, inner: Inner) {
        self.waiter = waiter
        self.inner = inner
    }

    /// Waits for `address` to advertise, then connects to the address as advertised.
    public func connect(to address: BluetoothAddress) async throws -> any ATTBearer {
        let seen = try await waiter.waitForAdvertisement(from: address)
        return try await inner.connect(to: seen)
    }
}
