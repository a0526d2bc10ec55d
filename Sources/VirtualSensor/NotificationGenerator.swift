// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor
import SeededRandomness

/// One notification the virtual sensor produced, sent or not: the ground truth a test compares
/// a receiver's view against.
public struct VirtualSensorNotification: Hashable, Sendable {
    /// What happened to the notification.
    public enum Fate: Hashable, Sendable {
        /// Sent intact.
        case sent
        /// Not sent (the drop fault); its samples are lost and its counter range is a gap.
        case dropped
        /// Sent with a wrong length (the malformed fault).
        case malformed
    }

    /// The notification's number since the sensor started, dropped ones included.
    public var index: Int
    /// The number of the first sample in it since the sensor started.
    public var firstSampleIndex: Int
    /// The header value.
    public var header: UInt16
    /// The samples it carries (before any malformation).
    public var samples: [RawAcceleration]
    /// The notification value as sent (for a dropped one: as it would have been sent).
    public var payload: [UInt8]
    /// Sent, dropped or malformed.
    public var fate: Fate
    /// The counter jump applied just before this notification, 0 for none.
    public var counterJump: Int
}

/// Counters of what a virtual sensor has produced.
public struct VirtualSensorStatistics: Hashable, Sendable {
    /// Notifications handed to the bearer, malformed ones included.
    public var notificationsSent = 0
    /// Notifications withheld by the drop fault.
    public var notificationsDropped = 0
    /// Notifications sent with a wrong length (a subset of `notificationsSent`).
    public var notificationsMalformed = 0
    /// Samples pulled from the motion source, those in dropped notifications included.
    public var samplesGenerated = 0
    /// Counter jumps injected.
    public var counterJumps = 0
    /// Samples that passed while no one listened (`skip(samples:carrying:from:)`), a subset of
    /// `samplesGenerated`.
    public var samplesUnsent = 0

    /// All zero.
    public init() {}
}

/// The virtual sensor's stream logic: pulls samples, stamps the header, applies the seeded
/// faults. Pure and deterministic: the same configuration and source give the same
/// notifications; the I/O layer decides only when to call `next`.
public struct NotificationGenerator: Sendable {
    /// The configuration the stream follows.
    public let configuration: VirtualSensorConfiguration
    /// What has been produced so far.
    public private(set) var statistics = VirtualSensorStatistics()
    private var counter: UInt16
    private var notificationIndex = 0
    private var dropRandom: SplitMix64
    private var malformedRandom: SplitMix64
    private var jumpRandom: SplitMix64
    private var headerRandom: SplitMix64

    /// A generator at the start of the stream `configuration` describes.
    public init(configuration: VirtualSensorConfiguration) {
        self.configuration = configuration
        let seed = configuration.seed
        counter = configuration.initialCounter
        dropRandom = SplitMix64(seed: seed ^ VirtualSensorConfiguration.dropStream)
        malformedRandom = SplitMix64(seed: seed ^ VirtualSensorConfiguration.malformedStream)
        jumpRandom = SplitMix64(seed: seed ^ VirtualSensorConfiguration.jumpStream)
        headerRandom = SplitMix64(seed: seed ^ VirtualSensorConfiguration.headerStream)
    }

    /// Samples still to generate before the disconnect fault closes the link; nil when it is off.
    public var remainingSamples: Int? {
        configuration.faults.disconnectAfterSamples.map { max(0, $0 - statistics.samplesGenerated) }
    }

    /// True once the disconnect fault's sample budget is used up.
    public var isExhausted: Bool { remainingSamples == 0 }

    /// Lets `count` samples pass without a notification, as a sensor that keeps sampling while no
    /// central listens: the source and the counter advance exactly as if notifications of
    /// `perNotification` samples had been produced, with no fault drawn. Returns how many samples
    /// passed (fewer only when the disconnect fault's budget runs out).
    public mutating func skip(
        samples count: Int, carrying perNotification: Int, from source: inout some AccelerationSource
    ) -> Int {
        let budget = min(max(0, count), remainingSamples ?? Int.max)
        var skipped = 0
        while skipped < budget {
            let batch = min(max(1, perNotification), budget - skipped)
            for _ in 0..<batch { _ = source.nextSample() }
            counter &+= configuration.headerMode == .packetCounter ? 1 : UInt16(truncatingIfNeeded: batch)
            skipped += batch
        }
        statistics.samplesGenerated += skipped
        statistics.samplesUnsent += skipped
        return skipped
    }

    /// Produces the next notification with up to `count` samples from `source` (fewer only when
    /// the disconnect fault's budget runs out). Returns nil when the budget is already used up.
    public mutating func next(
        carrying count: Int, from source: inout some AccelerationSource
    )
        -> VirtualSensorNotification?
    {
        let count = min(max(1, count), remainingSamples ?? Int.max)
        guard count > 0 else { return nil }
        let faults = configuration.faults
        var jump = 0
        if faults.counterJumpFraction > 0, jumpRandom.unit() < faults.counterJumpFraction {
            jump = faults.counterJump
            counter &+= UInt16(truncatingIfNeeded: jump)
            statistics.counterJumps += 1
        }
        let header: UInt16
        switch configuration.headerMode {
        case .sampleCounter, .packetCounter: header = counter
        case .constant(let value): header = value
        case .random: header = UInt16(truncatingIfNeeded: headerRandom.next())
        }
        counter &+= configuration.headerMode == .packetCounter ? 1 : UInt16(truncatingIfNeeded: count)

        var samples: [RawAcceleration] = []
        samples.reserveCapacity(count)
        for _ in 0..<count { samples.append(source.nextSample()) }
        var payload = SDUNotificationPayload.encode(header: header, samples: samples)

        var fate = VirtualSensorNotification.Fate.sent
        if faults.dropFraction > 0, dropRandom.unit() < faults.dropFraction {
            fate = .dropped
            statistics.notificationsDropped += 1
        } else if faults.malformedFraction > 0, malformedRandom.unit() < faults.malformedFraction {
            // Cutting 1–5 bytes off 2 + 6k leaves a length that is never 2 + 6j.
            payload.removeLast(Int(malformedRandom.next() % 5) + 1)
            fate = .malformed
            statistics.notificationsMalformed += 1
            statistics.notificationsSent += 1
        } else {
            statistics.notificationsSent += 1
        }
        let notification = VirtualSensorNotification(
            index: notificationIndex, firstSampleIndex: statistics.samplesGenerated, header: header,
            samples: samples, payload: payload, fate: fate, counterJump: jump)
        notificationIndex += 1
        statistics.samplesGenerated += count
        return notification
    }
}
