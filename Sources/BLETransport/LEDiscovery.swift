// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import SDUSensor

/// One sighting of an LE advertiser during a scan: its address, what it advertised (merged with
/// its latest scan response, where names often are) and how strong it was received.
///
/// A scan yields one discovery per advertising report, so the same device appears again and again
/// with fresh ``rssi`` and ``timestamp``; keep the latest per ``address``.
public struct LEDiscovery<Instant: InstantProtocol>: Sendable, Hashable {
    /// Manufacturer Specific Data: the company identifier and the company's bytes.
    public struct ManufacturerData: Sendable, Hashable {
        /// The Bluetooth SIG company identifier.
        public var companyID: UInt16
        /// The bytes after the company identifier.
        public var data: [UInt8]

        /// Manufacturer data of `companyID`.
        public init(companyID: UInt16, data: [UInt8]) {
            self.companyID = companyID
            self.data = data
        }
    }

    /// The advertiser's address; `kind` says public or random.
    public var address: BluetoothAddress
    /// The advertised local name (complete preferred over shortened), from the advertisement or
    /// the scan response.
    public var name: String?
    /// Received signal strength of this report in dBm; nil when the controller did not measure it.
    public var rssi: Int8?
    /// Every advertised service UUID, advertisement first, then scan response, without repeats.
    public var serviceUUIDs: [BluetoothUUID]
    /// The first manufacturer-specific data, advertisement preferred.
    public var manufacturerData: ManufacturerData?
    /// The transmit power in dBm: from an extended report's TX power field, else the advertised
    /// TX Power Level.
    public var txPower: Int8?
    /// Whether the advertiser accepts connections (ADV_IND, ADV_DIRECT_IND, connectable extended
    /// advertising).
    public var isConnectable: Bool
    /// When the report was read from the controller, on the scanner's clock.
    public var timestamp: Instant

    /// A discovery.
    public init(
        address: BluetoothAddress,
        name: String? = nil,
        rssi: Int8? = nil,
        serviceUUIDs: [BluetoothUUID] = [],
        manufacturerData: ManufacturerData? = nil,
        txPower: Int8? = nil,
        isConnectable: Bool = false,
        timestamp: Instant
    ) {
        self.address = address
        self.name = name
        self.rssi = rssi
        self.serviceUUIDs = serviceUUIDs
        self.manufacturerData = manufacturerData
        self.txPower = txPower
        self.isConnectable = isConnectable
        self.timestamp = timestamp
    }

    /// Whether this is an SDU sport sensor: its name is one the sensor uses (`BC05` + 12 hex
    /// digits, `BandCizer` + digits) or it advertises the SDU service UUID.
    public var isSDUSensor: Bool {
        if let name, SDUProfile.isSensorName(name) { return true }
        return serviceUUIDs.contains(SDUProfile.service)
    }
}
