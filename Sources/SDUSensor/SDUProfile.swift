// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire

/// What is publicly known of the SDU sport sensor's GATT profile.
public enum SDUProfile {
    /// The sensor's vendor service.
    public static let service = BluetoothUUID(string: "A2C70010-8F31-11E3-B148-0002A5D5C51B")!
    /// The accelerometer characteristic (notify). Each notification is a 2-byte header
    /// followed by k samples of x, y, z as little-endian Int16.
    public static let accelerometer = BluetoothUUID(string: "A2C70031-8F31-11E3-B148-0002A5D5C51B")!
    /// Raw counts per g: the accelerometer runs at ±2 g full scale.
    public static let countsPerG: Double = 16384
    /// The largest magnitude one axis can report, in g (32767 / 16384): hard hits clip here.
    public static let fullScaleG: Double = 32767.0 / 16384.0
    /// Bytes of the header before the first sample.
    public static let headerLength = 2
    /// Bytes per sample (three Int16).
    public static let sampleLength = 6
    /// Sample rates the sensor can be set to, in Hz.
    public static let sampleRates: ClosedRange<Int> = 25...400

    /// True for advertised names the sensor is known to use: `BC05` followed by 12 hex
    /// digits, or `BandCizer` followed by digits.
    public static func isSensorName(_ name: String) -> Bool {
        if name.hasPrefix("BC05") {
            let rest = name.dropFirst(4)
            return rest.count == 12 && rest.allSatisfy(\.isHexDigit)
        }
        if name.hasPrefix("BandCizer") {
            let rest = name.dropFirst("BandCizer".count)
            return !rest.isEmpty && rest.allSatisfy(\.isNumber)
        }
        return false
    }
}
