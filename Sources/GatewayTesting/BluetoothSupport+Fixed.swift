// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import SensorLinks

extension BluetoothSupport {
    /// Fixed adapters, each with its connector, listed once (no adapter comes or goes).
    public static func fixed(
        _ adapters: [(AdapterInfo, any SensorConnector)],
        scan: @escaping @Sendable (Double) async throws -> [DiscoveryInfo] = { _ in [] }
    ) -> BluetoothSupport {
        let connectors = Dictionary(uniqueKeysWithValues: adapters.map { ($0.0.name, $0.1) })
        let listing = adapters.map(\.0)
        return BluetoothSupport(
            adapterChanges: {
                AsyncStream { continuation in
                    continuation.yield(listing)
                }
            },
            makeConnector: { adapter in
                connectors[adapter.name]
                    ?? ClosureSensorConnector { _ in
                        throw AdapterPoolError(code: .adapterGone, message: "\(adapter.name) has no connector")
                    }
            },
            scan: scan)
    }
}
