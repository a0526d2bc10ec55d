// SPDX-License-Identifier: GPL-2.0-or-later

extension StepDetector {
    /// Counts, before the run of a bout being confirmed, the uncounted peaks that continue it backwards as the
    /// bout would have taken them forwards: each at least `backfillHeight` of the remembered step height, no
    /// sooner than the bout's shortest interval before the next, no more than `longestSkip` step intervals
    /// before it, and making a stride with the next interval within `strideTolerance` of twice the bout's step
    /// interval. A turn's slower steps or a missed step among a walk's first steps broke the run before it
    /// became regular; their peaks were steps. At most as many as the output queue holds beside the run.
    @usableFromInline mutating func backfill() {
        let tolerance = parameters.strideTolerance
        guard parameters.backfillHeight > 0, tolerance > 0, held.count >= 2, meanInterval > 0 else { return }
        var next = held.time(at: 0)
        var nextInterval = held.time(at: 1) - next
        var credited = TimeQueue()
        let room = TimeQueue.capacity - ready.count - held.count
        var offset = peakTimes.count - 1
        while offset >= 0 && credited.count < room {
            let time = peakTimes.time(at: offset)
            let height = peakHeights.time(at: offset)
            offset -= 1
            if time >= next { continue }
            if time <= lastCounted || height < parameters.backfillHeight * amplitude { break }
            let interval = next - time
            if interval < shortestInterval(for: meanInterval) || interval > StepDetector.longestSkip * meanInterval {
                break
            }
            let step = stepsInterval(interval)
            let ratio = (step + nextInterval) / (2 * meanInterval)
            if ratio * tolerance < 1 || ratio > tolerance { break }
            credited.push(time)
            nextInterval = step
            next = time
        }
        // Newest first in `credited`: count them oldest first.
        for index in stride(from: credited.count - 1, through: 0, by: -1) { report(credited.time(at: index)) }
    }

    /// Hands a step on for output.
    @inlinable mutating func report(_ time: Double) {
        ready.push(time)
        lastCounted = max(lastCounted, time)
    }
}
