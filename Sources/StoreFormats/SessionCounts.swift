// SPDX-License-Identifier: GPL-2.0-or-later

/// Stream counters of a session, as the SDU decoder reports them.
public struct SessionCounts: Hashable, Sendable {
    /// Samples received.
    public var received: Int64
    /// Samples the counter says were lost on the link.
    public var lost: Int64
    /// Notifications that were malformed and dropped.
    public var malformed: Int64
    /// The sensor's sample rate as clock recovery estimated it, in Hz.
    public var sampleRate: Double?

    /// Creates counts.
    public init(received: Int64 = 0, lost: Int64 = 0, malformed: Int64 = 0, sampleRate: Double? = nil) {
        self.received = received
        self.lost = lost
        self.malformed = malformed
        self.sampleRate = sampleRate
    }
}
