// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

extension StepDetector {
    /// Consumes a block of samples; appends the events completed in it (steps held for confirmation come
    /// out one per sample once the bout is confirmed).
    ///
    /// The filters' state lives in locals for the block (the serial chains of the smoothing stages then
    /// wait on no store and reload); it is written back before a peak is registered or a step handed on,
    /// which read and change the rest of the detector.
    @inlinable public mutating func process(
        _ block: UnsafeBufferPointer<AccelerationSample>, into events: inout [DetectorEvent]
    ) {
        var index = 0
        var local = (spacing, smoothA, smoothB, slow, fade)
        var factors = (
            interval: Double.nan, last: SIMD4<Double>.one, olderInterval: Double.nan, older: SIMD4<Double>.one
        )
        var a = stageA
        var b = stageB
        var base = baseline
        var amp = amplitude
        var time = lastTime
        var isArmed = armed
        var peak = (peakValue, peakTime)
        let minPeak = parameters.minPeakG
        let hysteresis = parameters.hysteresis
        while index < block.count {
            let sample = block[index]
            index += 1
            let t = sample.t
            local.0.observe(t)
            let m = sample.magnitude
            if time == -Double.infinity {
                a = m
                b = m
                base = m
            } else {
                let dt = t - time
                // The four factors of an interval at once, from the last two intervals' (each smoother's
                // factor is a function of the interval alone); the smoothers compute a new one.
                let isLast = dt == factors.interval
                let remembered = isLast || dt == factors.olderInterval
                if !remembered {
                    factors.older = factors.last
                    factors.olderInterval = factors.interval
                    factors.interval = dt
                    factors.last = SIMD4(
                        local.1.factor(interval: dt), local.2.factor(interval: dt), local.3.factor(interval: dt),
                        local.4.factor(interval: dt))
                }
                let factor = isLast || !remembered ? factors.last : factors.older
                a += factor.x * (m - a)
                b += factor.y * (a - b)
                base += factor.z * (m - base)
                amp -= factor.w * amp
            }
            time = t
            let value = b - base
            if isArmed {
                if value > peak.0 { peak = (value, t) }
                if value < 0 {
                    isArmed = false
                    amplitude = amp
                    (spacing, smoothA, smoothB, slow, fade) = local
                    // Two first-order stages delay a slow peak by about one time constant each.
                    registerPeak(time: peak.1 - 2 * parameters.smoothingTimeConstant, height: peak.0)
                    amp = amplitude
                }
            } else if value > max(minPeak, hysteresis * amp) {
                isArmed = true
                peak = (value, t)
            }
            if !ready.isEmpty, let step = ready.pop() {
                spacing = local.0
                events.append(self.step(at: step))
            }
        }
        (spacing, smoothA, smoothB, slow, fade) = local
        stageA = a
        stageB = b
        baseline = base
        amplitude = amp
        lastTime = time
        armed = isArmed
        (peakValue, peakTime) = peak
    }

    /// The event of a step at `time`, as the detector reports it now.
    @inlinable func step(at time: Double) -> DetectorEvent {
        .step(StepEvent(t: time, cadence: cadence, quality: quality(at: time)))
    }
}
