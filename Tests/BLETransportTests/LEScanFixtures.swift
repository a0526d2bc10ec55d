// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GatewayTesting

/// HCI packets of an LE scan as they cross a raw HCI socket: H4 type byte first. Commands are
/// what the scanner must write, events what a controller answers. Each fixture was checked
/// against Core Vol 4 Part E 7.7.14 (Command Complete), 7.7.15 (Command Status), 7.7.65.2 and
/// 7.7.65.13 (advertising reports) and 7.8.10/11/64/65 (scan commands).
enum LEScanFixture {
    // MARK: Commands (host to controller)

    /// Read Local Supported Commands.
    static let readSupportedCommands = [UInt8](hex: "01 0210 00")
    /// LE Set Extended Scan Parameters: public, accept all, 1M, active, interval 0x00A0
    /// (100 ms), window 0x0050 (50 ms).
    static let extendedParameters = [UInt8](hex: "01 4120 08 00 00 01 01 a000 5000")
    /// LE Set Extended Scan Enable: on, duplicates reported, no duration, no period.
    static let extendedEnable = [UInt8](hex: "01 4220 06 01 00 0000 0000")
    /// LE Set Extended Scan Enable: off.
    static let extendedDisable = [UInt8](hex: "01 4220 06 00 00 0000 0000")
    /// LE Set Scan Parameters: active, interval 0x00A0, window 0x0050, public, accept all.
    static let legacyParameters = [UInt8](hex: "01 0b20 07 01 a000 5000 00 00")
    /// LE Set Scan Enable: on, duplicates reported.
    static let legacyEnable = [UInt8](hex: "01 0c20 02 01 00")
    /// LE Set Scan Enable: off.
    static let legacyDisable = [UInt8](hex: "01 0c20 02 00 00")

    // MARK: Events (controller to host)

    /// Command Complete for Read Local Supported Commands, success, with a 64-octet bitmap whose
    /// octet 37 is `octet37` (0x60: bits 5 and 6, both extended scan commands).
    static func supportedCommands(octet37: UInt8) -> [UInt8] {
        var octets = [UInt8](repeating: 0, count: 64)
        octets[0] = 0xFF  // some BR/EDR commands, irrelevant to the scanner
        octets[25] = 0xF7  // legacy LE commands
        octets[26] = 0xFF
        octets[37] = octet37
        return [UInt8](hex: "04 0e 44 01 0210 00") + octets
    }

    /// Command Complete, success, for `opcode` (two bytes little-endian in the fixture).
    static func complete(_ opcodeHex: String, status: String = "00") -> [UInt8] {
        [UInt8](hex: "04 0e 04 01 \(opcodeHex) \(status)")
    }

    /// Command Status `status` for `opcodeHex`.
    static func commandStatus(_ opcodeHex: String, status: String) -> [UInt8] {
        [UInt8](hex: "04 0f 04 \(status) 01 \(opcodeHex)")
    }

    /// Legacy LE Advertising Report: ADV_IND from random FC:97:8B:75:10:AB, flags 0x06 and the
    /// SDU service UUID (128-bit, complete list), RSSI -60 dBm.
    static let legacyAdvertisement = [UInt8](
        hex: """
            04 3e 21 02 01 00 01 ab 10 75 8b 97 fc 15 02 01 06 11 07 1b c5 d5 a5 02 00 48 b1 e3 11 31 8f 10 00
            c7 a2 c4
            """)
    /// Legacy LE Advertising Report: SCAN_RSP of the same device, complete name BC05FC978B7510AB,
    /// RSSI -62 dBm.
    static let legacyScanResponse = [UInt8](
        hex: """
            04 3e 1e 02 01 04 01 ab 10 75 8b 97 fc 12 11 09 42 43 30 35 46 43 39 37 38 42 37 35 31 30 41 42 c2
            """)
    /// LE Extended Advertising Report: legacy ADV_IND (event type 0x0013) from public
    /// 1A:7D:DA:71:12:13, TX power 8 dBm, RSSI -56 dBm, name BandCizer7 and 16-bit UUID 0x180F.
    static let extendedAdvertisement = [UInt8](
        hex: """
            04 3e 2a 0d 01 1300 00 13 12 71 da 7d 1a 01 00 ff 08 c8 0000 00 000000000000
            10 0b 09 42 61 6e 64 43 69 7a 65 72 37 03 03 0f 18
            """)
    /// LE Extended Advertising Report: its scan response (event type 0x001B), TX power not
    /// available, RSSI -58 dBm, manufacturer data of company 0x0059: BE EF.
    static let extendedScanResponse = [UInt8](
        hex: """
            04 3e 20 0d 01 1b00 00 13 12 71 da 7d 1a 01 00 ff 7f c6 0000 00 000000000000
            06 05 ff 59 00 be ef
            """)
    /// First fragment (data status 1, "more to come") of an extended connectable advertisement
    /// from random C1:02:03:04:05:06, SID 3: the first 10 bytes of a complete-name structure.
    static let extendedFragment1 = [UInt8](
        hex: """
            04 3e 24 0d 01 2100 01 06 05 04 03 02 c1 01 00 03 7f ba 0000 00 000000000000
            0a 11 09 42 43 30 35 46 43 39 37
            """)
    /// The last fragment (data status 0) with the rest of the name, RSSI -71 dBm.
    static let extendedFragment2 = [UInt8](
        hex: """
            04 3e 22 0d 01 0100 01 06 05 04 03 02 c1 01 00 03 7f b9 0000 00 000000000000
            08 38 42 37 35 31 30 41 42
            """)

    /// The SDU sensor's address in the legacy fixtures.
    static let sensorAddress = BluetoothAddress(string: "FC:97:8B:75:10:AB", kind: .random)!
    /// The BandCizer's address in the extended fixtures.
    static let bandCizerAddress = BluetoothAddress(string: "1A:7D:DA:71:12:13", kind: .public)!
}
