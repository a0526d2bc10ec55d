// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// Encodes what the SDU sensor puts in one accelerometer notification: a 2-byte little-endian
/// header, then x, y, z of each sample as little-endian Int16 (2 + 6k bytes).
///
/// Only the virtual sensor encodes; decoding belongs to `SDUSensor`.
enum SDUNotificationPayload {
    static func encode(header: UInt16, samples: some Collection<RawAcceleration>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(SDUProfile.headerLength + SDUProfile.sampleLength * samples.count)
        bytes.appendUInt16LE(header)
        for sample in samples {
            bytes.appendInt16LE(sample.x)
            bytes.appendInt16LE(sample.y)
            bytes.appendInt16LE(sample.z)
        }
        return bytes
    }
}
