// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import GatewayConfig
import Logging
import SensorLinks
import SessionStore

/// What the gateway needs from the outside world: the store, the configuration and the
/// Bluetooth side (injected, so `GatewayCore` never imports the transport).
public struct GatewayDependencies<C: Clock>: Sendable where C.Duration == Duration {
    /// The open session store.
    public var store: SessionStore
    /// The state directory the store lives in (for `status`).
    public var stateDirectory: String
    /// The effective configuration.
    public var configuration: GatewayConfiguration
    /// The clock links, sensors and sessions keep time with.
    public var clock: C
    /// The Bluetooth adapters, their connectors and discovery; nil without Bluetooth.
    public var bluetooth: BluetoothSupport?
    /// The virtual sensors to pair.
    public var virtualSensors: VirtualSensorFleet<C>?
    /// Link settings.
    public var linkConfiguration: SensorLinkConfiguration
    /// Recorder settings.
    public var recorderConfiguration: SessionRecorder<C>.Configuration
    /// The daemon's version.
    public var version: String
    /// The logger.
    public var logger: Logger
    /// Replication's status now, as `GET /v1/replication` reports it; nil without `[replication]`
    /// (the daemon's assembly, `GatewayDaemon`, knows the replication service: the gateway does not).
    public var replicationStatus: (@Sendable () -> ReplicationStatusInfo)?
    /// Where downloads (samples CSV, event pages) are made: off the cooperative pool.
    public var downloads: any TaskExecutor = DownloadExecutor.shared

    /// Creates dependencies; only the store, state directory, configuration and clock are required.
    public init(
        store: SessionStore, stateDirectory: String, configuration: GatewayConfiguration, clock: C,
        bluetooth: BluetoothSupport? = nil, virtualSensors: VirtualSensorFleet<C>? = nil,
        linkConfiguration: SensorLinkConfiguration = SensorLinkConfiguration(),
        recorderConfiguration: SessionRecorder<C>.Configuration = .init(), version: String = "0.1.0",
        logger: Logger = Logger(label: "sportsensord")
    ) {
        self.store = store
        self.stateDirectory = stateDirectory
        self.configuration = configuration
        self.clock = clock
        self.bluetooth = bluetooth
        self.virtualSensors = virtualSensors
        self.linkConfiguration = linkConfiguration
        self.recorderConfiguration = recorderConfiguration
        self.version = version
        self.logger = logger
    }
}
