// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

extension FlightTracker {
    /// Takes the in-flight samples from `start` on while the takeoff is frozen and no landing is seen (the
    /// flight's floor), up to the first that may land, abort the flight or move the sample spacing's mean;
    /// returns its index (`block.count` when every sample was taken). The same state as `process(_:)`
    /// sample by sample, to the last bit:
    ///
    /// - the floor vector's sums take each rising run's samples as one group when the run ends, as
    ///   `process(_:)` adds them, with the branch on |a|'s direction (a coin toss in free fall) replaced by
    ///   selects: adding the +0 of a sample left out leaves a sum as it is (no sum is ever −0);
    /// - the rising edge (moments and samples) is not followed sample by sample: at the end the run that
    ///   ends at the last sample taken is rebuilt from the samples, in the order `process(_:)` adds them.
    @inlinable mutating func skipFloor(_ block: UnsafeBufferPointer<AccelerationSample>, from start: Int) -> Int {
        let enter = parameters.enterG
        let land = parameters.landG
        let supportLimit = max(FlightTracker.supportedMax, parameters.landingRiseMax)
        let flightLimit = parameters.maxFlight + 0.5
        var local = spacing
        var time = lastTime
        var time2 = secondLastTime
        var magnitude = lastMagnitude
        var sum = floorSum
        var duration = floorTime
        var floor = floorSums
        var squares = floorSquares
        var magnitudes = floorMagnitudes
        var held = pendingSums
        var heldSquares = pendingSquares
        var heldMagnitudes = pendingMagnitudes
        var supported = supportedSince
        var low = (lowTime, lowMagnitude, lowSeen)
        var afterLow = (afterLowTime, afterLowMagnitude)
        var index = start
        while index < block.count {
            let sample = block[index]
            let t = sample.t
            let m = sample.magnitude
            let rises = m > magnitude
            let below = m < enter
            let since = m >= enter ? min(supported, t) : Double.infinity
            let steady = abs((t - time) - local.usual) <= SampleSpacing.steadyFraction * local.usual
            guard steady, !(rises && m >= land), t - since < supportLimit, t - flightEntered <= flightLimit else {
                break
            }
            local.lastTime = t
            sum += (m + magnitude) / 2 * (t - time)
            duration += t - time
            let grouped = held + (below ? SIMD4(1, sample.x, sample.y, sample.z) : .zero)
            let groupedSquares = heldSquares + (below ? m * m : 0)
            let groupedMagnitudes = heldMagnitudes + (below ? m : 0)
            floor = rises ? floor : floor + grouped
            squares = rises ? squares : squares + groupedSquares
            magnitudes = rises ? magnitudes : magnitudes + groupedMagnitudes
            held = rises ? grouped : .zero
            heldSquares = rises ? groupedSquares : 0
            heldMagnitudes = rises ? groupedMagnitudes : 0
            supported = since
            afterLow = !below && !low.2 ? (t, m) : afterLow
            low = below ? (t, m, false) : (low.0, low.1, true)
            time2 = time
            time = t
            magnitude = m
            index += 1
        }
        guard index > start else { return index }
        let last = block[index - 1]
        rebuildRising(block, from: start, to: index)
        spacing = local
        secondLastTime = time2
        lastTime = time
        lastMagnitude = magnitude
        lastX = last.x
        lastY = last.y
        lastZ = last.z
        floorSum = sum
        floorTime = duration
        floorSums = floor
        floorSquares = squares
        floorMagnitudes = magnitudes
        pendingSums = held
        pendingSquares = heldSquares
        pendingMagnitudes = heldMagnitudes
        supportedSince = supported
        (lowTime, lowMagnitude, lowSeen) = low
        (afterLowTime, afterLowMagnitude) = afterLow
        return index
    }

    /// The rising edge as `process(_:)` leaves it after the floor samples `start..<end`: the run of rises
    /// that ends at the last of them (carried on when it began before `start`), or none; an empty edge
    /// keeps the time of the last change added, which `EdgeMoments.start` reads.
    @inlinable mutating func rebuildRising(
        _ block: UnsafeBufferPointer<AccelerationSample>, from start: Int, to end: Int
    ) {
        @inline(__always) func previous(_ index: Int) -> AccelerationSample {
            index > start ? block[index - 1] : AccelerationSample(t: lastTime, x: lastX, y: lastY, z: lastZ)
        }
        @inline(__always) func previousMagnitude(_ index: Int) -> Double {
            index > start ? block[index - 1].magnitude : lastMagnitude
        }
        // The first sample of the run of rises that ends at `end - 1` (`end` when that one does not rise).
        var first = end
        while first > start && block[first - 1].magnitude > previousMagnitude(first - 1) { first -= 1 }
        if first > start || first == end {
            rising.reset()
            risingSamples.removeAll()
            // An empty edge's last change: the latest rise before the run that `process(_:)` added.
            var index = first - 1
            while index > start {
                index -= 1
                let before = previous(index)
                if block[index].magnitude > previousMagnitude(index)
                    && (!parameters.landingBelowClip || !isClipped(SIMD4(before.t, before.x, before.y, before.z)))
                {
                    rising.interval = block[index].t - before.t
                    rising.lastTime = block[index].t
                    break
                }
            }
        }
        guard first < end else { return }
        for index in first..<end {
            let sample = block[index]
            let before = previous(index)
            let prior = SIMD4(before.t, before.x, before.y, before.z)
            if !parameters.landingBelowClip || !isClipped(prior) {
                rising.add(change: sample.magnitude - previousMagnitude(index), from: before.t, to: sample.t)
            }
            if risingSamples.isEmpty { risingSamples.append(prior, keepNewest: false) }
            risingSamples.append(SIMD4(sample.t, sample.x, sample.y, sample.z), keepNewest: false)
        }
    }
}
