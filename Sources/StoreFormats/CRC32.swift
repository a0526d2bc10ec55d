// SPDX-License-Identifier: GPL-2.0-or-later

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320): the checksum of each tail segment
/// record, so a record torn by a crash or a full disk is recognised and ignored.
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { byte in
        var value = UInt32(byte)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
        return value
    }

    /// The checksum of `bytes` ("123456789" gives 0xCBF43926).
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }
}
