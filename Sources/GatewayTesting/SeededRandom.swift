// SPDX-License-Identifier: GPL-2.0-or-later
import SeededRandomness

/// The deterministic generator tests draw random data from: the same SplitMix64 the virtual
/// sensor and the motion scripts use, so the same seed gives the same sequence everywhere.
///
/// Use it with the standard library's `random(in:using:)`:
/// ```
/// var random = SeededRandom(seed: 42)
/// let latency = Double.random(in: 0..<0.02, using: &random)
/// ```
/// Not for anything security-related.
public typealias SeededRandom = SplitMix64
