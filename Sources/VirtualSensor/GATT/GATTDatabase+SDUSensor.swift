// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import SDUSensor

extension GATTDatabase {
    /// The attribute table of an SDU sensor, as `configuration` describes it:
    ///
    /// | handles | service | contents |
    /// | --- | --- | --- |
    /// | 0x0001–0x0005 | Generic Access 0x1800 | Device Name 0x2A00 (the advertised name), Appearance 0x2A01 |
    /// | 0x0006–0x0009 | Generic Attribute 0x1801 | Service Changed 0x2A05 (indicate) + CCCD |
    /// | 0x000A–0x0012 | Device Information 0x180A | Manufacturer, Model Number, Serial Number, Firmware Revision |
    /// | 0x0013–0x0016 | SDU `A2C70010-…` | accelerometer `A2C70031-…` (notify, value 0x0015) + CCCD 0x0016 |
    public static func sduSensor(_ configuration: VirtualSensorConfiguration) -> GATTDatabase {
        var builder = Builder()
        builder.addPrimaryService(.genericAccess)
        builder.addCharacteristic(.deviceName, properties: .read, value: Array(configuration.name.utf8))
        var appearance: [UInt8] = []
        appearance.appendUInt16LE(configuration.appearance)
        builder.addCharacteristic(.appearance, properties: .read, value: appearance)

        builder.addPrimaryService(.genericAttribute)
        // Service Changed: the affected range, here the whole table; only ever indicated.
        builder.addCharacteristic(.serviceChanged, properties: .indicate, value: [0x01, 0x00, 0xFF, 0xFF])

        builder.addPrimaryService(.deviceInformation)
        builder.addCharacteristic(
            .manufacturerNameString, properties: .read, value: Array(configuration.manufacturerName.utf8))
        builder.addCharacteristic(.modelNumberString, properties: .read, value: Array(configuration.modelNumber.utf8))
        builder.addCharacteristic(
            .serialNumberString, properties: .read, value: Array(configuration.serialNumber.utf8))
        builder.addCharacteristic(
            .firmwareRevisionString, properties: .read, value: Array(configuration.firmwareRevision.utf8))

        builder.addPrimaryService(SDUProfile.service)
        builder.addCharacteristic(SDUProfile.accelerometer, properties: .notify, value: [])
        return builder.build()
    }

    /// The value handle of the SDU accelerometer characteristic in `sduSensor(_:)`'s table.
    public var sduAccelerometerValueHandle: UInt16? {
        valueHandle(of: SDUProfile.accelerometer, inService: SDUProfile.service)
    }
}
