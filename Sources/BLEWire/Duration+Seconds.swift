// SPDX-License-Identifier: GPL-2.0-or-later

extension Duration {
    /// The duration in seconds as a `Double`, the unit sample times, rates and latencies use
    /// throughout the project: the one place a `Duration` becomes seconds (house rule 3). It
    /// lives in `BLEWire` because that is the lowest target everything that converts imports.
    public var inSeconds: Double {
        self / .seconds(1)
    }
}
