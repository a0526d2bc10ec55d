// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import ControlProtocol

/// The Bluetooth side the executable injects (GatewayCore does not import the transport): the
/// adapters as they come and go, a connector per adapter, and discovery.
public struct BluetoothSupport: Sendable {
    /// The adapters the gateway may use: the current list first, then the whole list again after
    /// every change (an adapter plugged in or pulled, powered on or off). Ends at shutdown or
    /// when the source fails.
    public var adapterChanges: @Sendable () -> AsyncStream<[AdapterInfo]>
    /// The connector of an adapter that became usable (its one-at-a-time connection queue).
    public var makeConnector: AdapterPool.ConnectorFactory
    /// Scans for the given seconds; each discovery names the adapter that heard it.
    public var scan: @Sendable (Double) async throws -> [DiscoveryInfo]
    /// What the controller gave the latest link to a sensor, when known.
    public var linkParameters: @Sendable (BluetoothAddress) -> LinkParametersInfo?

    /// Creates the support.
    public init(
        adapterChanges: @escaping @Sendable () -> AsyncStream<[AdapterInfo]>,
        makeConnector: @escaping AdapterPool.ConnectorFactory,
        scan: @escaping @Sendable (Double) async throws -> [DiscoveryInfo],
        linkParameters: @escaping @Sendable (BluetoothAddress) -> LinkParametersInfo? = { _ in nil }
    ) {
        self.adapterChanges = adapterChanges
        self.makeConnector = makeConnector
        self.scan = scan
        self.linkParameters = linkParameters
    }
}
