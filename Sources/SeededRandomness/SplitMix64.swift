// SPDX-License-Identifier: GPL-2.0-or-later

/// A small, fast, seedable pseudo-random generator (SplitMix64).
///
/// Everything random in the project is seeded so it can be replayed: a sensor link's reconnect
/// jitter (from its configuration), a virtual sensor's motion, dropped notifications and faults,
/// and the tests' signals. SplitMix64 passes BigCrush, needs eight bytes of state and no
/// allocation; it is not for cryptography. In a target of its own so the link layer and the
/// emulation share it without one importing the other.
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) {
        self.state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniformly distributed Double in [0, 1).
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
