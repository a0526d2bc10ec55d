// SPDX-License-Identifier: GPL-2.0-or-later

/// When each notification of a real-time stream is due: sample n is taken at
/// `start + n / sampleRate`, and a notification leaves once its last sample is taken.
///
/// Deadlines are computed from the start instant, never by adding a period to the previous
/// deadline, so rounding and late wake-ups do not accumulate into drift.
public struct NotificationSchedule<Instant: InstantProtocol>: Hashable, Sendable
where Instant.Duration == Duration {
    /// The instant sample 0 was taken (streaming was enabled).
    public var start: Instant
    /// Samples per second.
    public var sampleRate: Int

    /// A schedule starting at `start` with `sampleRate` samples per second (at least 1).
    public init(start: Instant, sampleRate: Int) {
        self.start = start
        self.sampleRate = max(1, sampleRate)
    }

    /// The instant at which `samples` samples have been taken since `start`.
    public func instant(afterSamples samples: Int) -> Instant {
        start.advanced(by: .seconds(samples) / sampleRate)
    }

    /// The deadline of a notification carrying `count` samples after `sent` samples already
    /// sent: when its last sample has been taken.
    public func deadline(afterSamples sent: Int, carrying count: Int) -> Instant {
        instant(afterSamples: sent + count)
    }
}
