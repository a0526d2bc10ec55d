// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

extension FlightTracker {
    /// Consumes a block of samples in time order (one notification's, or a batch of a file's); calls
    /// `emit` with each completed flight.
    ///
    /// Between flights only a sample with |a| < `enterG` can begin one, so the block is scanned for
    /// such samples comparing |a|² with `enterSquared` (no square root, no branch on |a|'s direction);
    /// the falling edge that leads into a candidate is rebuilt from the samples before it, and the
    /// candidate and every sample in flight run through `process(_:)`. The events are the same as
    /// feeding the samples one by one, to the last digit (EventDigestTests).
    @inlinable public mutating func process(
        _ block: UnsafeBufferPointer<AccelerationSample>, emit: (FlightEvent) -> Void
    ) {
        var index = 0
        while index < block.count {
            if !inFlight && lastTime > -Double.infinity {
                index = skipGround(block, from: index)
                guard index < block.count else { return }
            } else if inFlight && takeoffFrozen && !landingSeen {
                index = skipFloor(block, from: index)
                guard index < block.count else { return }
            }
            if let flight = process(block[index]) { emit(flight) }
            index += 1
        }
    }

    /// Takes the samples from `start` up to the first with |a| < `enterG` (returned; `block.count` when
    /// there is none) as `process(_:)` would between flights: the sample spacing, the last propulsion, and
    /// the falling edge that ends at the last of them.
    @inlinable mutating func skipGround(_ block: UnsafeBufferPointer<AccelerationSample>, from start: Int) -> Int {
        var candidate = start
        var propulsion = -1
        // The spacing's state in locals (registers); an interval within its dead band changes nothing but the
        // last time, any other goes through `observe`.
        var usual = spacing.usual
        var band = SampleSpacing.steadyFraction * usual
        var time = spacing.lastTime
        while candidate < block.count {
            let sample = block[candidate]
            let m2 = sample.x * sample.x + sample.y * sample.y + sample.z * sample.z
            if m2 < enterSquared { break }
            if m2 >= propulsionSquared { propulsion = candidate }
            if !(abs((sample.t - time) - usual) <= band) {
                spacing.lastTime = time
                spacing.observe(sample.t)
                usual = spacing.usual
                band = SampleSpacing.steadyFraction * usual
            }
            time = sample.t
            candidate += 1
        }
        spacing.lastTime = time
        guard candidate > start else { return candidate }
        if propulsion >= 0 { lastPropulsion = block[propulsion].t }
        let last = candidate - 1
        // The falling run that ends at `last` (each of its samples below the one before it), found
        // backwards; `carried` when it began before the block, so the falling edge held so far goes on.
        var first = candidate
        var carried = false
        var index = last
        var magnitude = block[last].magnitude
        while true {
            let before = index > start ? block[index - 1].magnitude : lastMagnitude
            guard magnitude < before else { break }
            first = index
            if index == start {
                carried = true
                break
            }
            index -= 1
            magnitude = before
        }
        if !carried {
            falling.reset()
            fallingSamples.removeAll()
        }
        if first <= last {
            var previous =
                first > start ? block[first - 1] : AccelerationSample(t: lastTime, x: lastX, y: lastY, z: lastZ)
            var previousMagnitude = first > start ? previous.magnitude : lastMagnitude
            for index in first...last {
                let sample = block[index]
                let m = sample.magnitude
                if m < parameters.edgeCapG {
                    falling.add(change: m - previousMagnitude, from: previous.t, to: sample.t)
                }
                if fallingSamples.isEmpty {
                    fallingSamples.append(SIMD4(previous.t, previous.x, previous.y, previous.z), keepNewest: true)
                }
                fallingSamples.append(SIMD4(sample.t, sample.x, sample.y, sample.z), keepNewest: true)
                previous = sample
                previousMagnitude = m
            }
        }
        secondLastTime = last > start ? block[last - 1].t : lastTime
        let sample = block[last]
        lastTime = sample.t
        lastMagnitude = block[last].magnitude
        lastX = sample.x
        lastY = sample.y
        lastZ = sample.z
        return candidate
    }

    /// The smallest |a|² whose square root reaches `level`: since the rounded square root is monotonic,
    /// |a| ≥ `level` exactly when |a|² ≥ it, so a comparison of |a|² decides as one of |a| would.
    static func squaredLevel(_ level: Double) -> Double {
        guard level > 0, level.isFinite else { return level * level }
        var value = level * level
        while value.squareRoot() >= level { value = value.nextDown }
        while value.squareRoot() < level { value = value.nextUp }
        return value
    }
}
