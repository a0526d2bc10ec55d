// SPDX-License-Identifier: GPL-2.0-or-later

/// A deterministic random number generator for tests (SplitMix64): the same seed always gives
/// the same sequence, on every platform, so random test data is reproducible.
///
/// Use it with the standard library's `random(in:using:)`:
/// ```
/// var random = SeededRandom(seed: 42)
/// let latency = Double.random(in: 0..<0.02, using: &random)
/// ```
/// Not for anything security-related.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
