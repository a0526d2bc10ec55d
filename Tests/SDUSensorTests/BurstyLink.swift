// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GatewayTesting
import SDUSensor

/// A synthetic sensor and radio link for the clock and decoder tests: the sensor samples at
/// `trueRate`, packs `samplesPerNotification` samples per notification, and the link delivers
/// notifications only at connection events every `connectionInterval` seconds, at most
/// `maxPerEvent` per event, skipping an event with `skipProbability`, each event late by a random
/// 0..<`maxExtraLatency` on top of `baseLatency`.
struct BurstyLink {
    struct Delivery {
        /// Index of the first sample (ground truth).
        var firstIndex: Int
        var header: UInt16
        var bytes: [UInt8]
        var arrival: Double
    }

    var trueRate = 98.0
    var samplesPerNotification = 3
    var connectionInterval = 0.030
    var maxExtraLatency = 0.020
    var baseLatency = 0.004
    var skipProbability = 0.2
    var maxPerEvent = 4
    var startTime = 1000.0

    /// When sample `index` was taken.
    func trueTime(ofSample index: Int) -> Double { startTime + Double(index) / trueRate }

    /// The earliest any sample's notification can arrive after it was taken: recovered times
    /// should sit this much after `trueTime`.
    var minimumLatency: Double { baseLatency }

    static func reading(_ index: Int) -> RawAcceleration {
        RawAcceleration(x: Int16(truncatingIfNeeded: index), y: Int16(truncatingIfNeeded: index &* 7), z: 16384)
    }

    /// Notifications `0..<count`, with `header(n)` as the header of notification n (a sample
    /// counter by default).
    func deliveries(count: Int, seed: UInt64, header: ((Int) -> UInt16)? = nil) -> [Delivery] {
        var random = SeededRandom(seed: seed)
        let k = samplesPerNotification
        var event = startTime + Double.random(in: 0..<connectionInterval, using: &random)
        var extra = Double.random(in: 0..<maxExtraLatency, using: &random)
        var skipped = false
        var inEvent = 0
        var result: [Delivery] = []
        for n in 0..<count {
            let ready = trueTime(ofSample: n * k + k - 1)
            while event < ready || skipped || inEvent >= maxPerEvent {
                event += connectionInterval
                extra = Double.random(in: 0..<maxExtraLatency, using: &random)
                skipped = Double.random(in: 0..<1, using: &random) < skipProbability
                inEvent = 0
            }
            let arrival = event + baseLatency + extra + 0.001 * Double(inEvent)
            inEvent += 1
            let h = header?(n) ?? UInt16(truncatingIfNeeded: n * k)
            let payload = SDUPayload(header: h, samples: (0..<k).map { Self.reading(n * k + $0) })
            var bytes: [UInt8] = []
            payload.encode(into: &bytes)
            result.append(Delivery(firstIndex: n * k, header: h, bytes: bytes, arrival: arrival))
        }
        return result
    }
}
