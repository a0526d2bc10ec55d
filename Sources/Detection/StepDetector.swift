// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// Counts steps of walking and running from a sensor on the wrist, the lower back or in the hand.
///
/// Every foot contact decelerates the body upwards, and a swinging arm is a pendulum whose
/// centripetal pull peaks twice per arm cycle, i.e. once per step: both put a component at the step
/// frequency into |a|, whatever the orientation. The detector low-passes |a| (two first-order stages
/// of `smoothingTimeConstant`), subtracts a slow baseline (`baselineTimeConstant`), and takes each peak
/// that rises above a fraction `hysteresis` of the recent step amplitude and falls back below the
/// baseline. Steps are only counted inside a walking bout: peaks are held until `confirmSteps` of them in a
/// row are regular (intervals between `minInterval` and `maxInterval`, neighbours within a factor
/// `regularity`, strides within a factor `strideRegularity` of each other), and then all of them are
/// credited at once, with the uncounted peaks just before them that continue the bout backwards and are as
/// strong as its steps (`backfillHeight`: a turn or a missed step broke the run). A confirmed bout refuses a peak that would make a stride much shorter than the bout's
/// and ends at one much longer (`strideTolerance`), so putting a phone away or taking it out after a walk
/// does not continue it; a new bout must confirm itself again. Nor is a peak far weaker than the bout's steps
/// (`boutHeightFraction`). A bout whose refused peaks and steps together
/// are a regular run at a faster cadence takes that cadence (the walk sped up). The live count therefore lags the first
/// steps of a bout by `confirmSteps` − 1 step intervals and then catches up.
public struct StepDetector: StreamingDetector {
    public let parameters: Parameters
    @usableFromInline var smoothA: ExponentialSmoother
    @usableFromInline var smoothB: ExponentialSmoother
    @usableFromInline var slow: ExponentialSmoother
    @usableFromInline var fade: ExponentialSmoother
    @usableFromInline var stageA: Double = 1
    @usableFromInline var stageB: Double = 1
    @usableFromInline var baseline: Double = 1
    @usableFromInline var lastTime = -Double.infinity
    @usableFromInline var amplitude: Double = 0.15
    @usableFromInline var armed = false
    @usableFromInline var peakValue: Double = 0
    @usableFromInline var peakTime: Double = 0
    @usableFromInline var lastStep = -Double.infinity
    /// The last step interval of the confirmed bout (skipped steps divided out), or 0.
    @usableFromInline var lastStepInterval: Double = 0
    @usableFromInline var meanInterval: Double = 0
    /// The confirmed bout's step height (its steps' peak heights, smoothed), or 0.
    @usableFromInline var boutHeight: Double = 0
    @usableFromInline var confirmed = false
    /// The oldest peak in `held` is a step the ended bout already counted.
    @usableFromInline var heldStartsCounted = false
    /// The last peak refused by the cadence-following shortest interval, or −∞.
    @usableFromInline var refusedPeak = -Double.infinity
    @usableFromInline var held = TimeQueue()
    /// The latest peaks and their heights (at most `TimeQueue.capacity`), for `backfill`.
    @usableFromInline var peakTimes = TimeQueue()
    @usableFromInline var peakHeights = TimeQueue()
    /// The latest step handed on for output, or −∞.
    @usableFromInline var lastCounted = -Double.infinity
    /// The confirmed bout's latest peaks, refused ones included (at most `confirmSteps`): a regular run
    /// of them at a faster cadence re-locks the bout.
    @usableFromInline var recent = TimeQueue()
    /// Refused half-way peaks and the steps after them, alternating, while a doubled cadence waits for
    /// `halfCadenceConfirm` intervals in a row.
    @usableFromInline var halfWay = TimeQueue()
    @usableFromInline var ready = TimeQueue()
    @usableFromInline var spacing = SampleSpacing()

    /// Creates a detector with `parameters`.
    public init(parameters: Parameters = Parameters()) {
        var checked = parameters
        checked.confirmSteps = min(max(parameters.confirmSteps, 1), TimeQueue.capacity)
        checked.halfCadenceConfirm = min(max(parameters.halfCadenceConfirm, 0), StepDetector.halfCadenceConfirmMax)
        self.parameters = checked
        smoothA = ExponentialSmoother(timeConstant: parameters.smoothingTimeConstant)
        smoothB = ExponentialSmoother(timeConstant: parameters.smoothingTimeConstant)
        slow = ExponentialSmoother(timeConstant: parameters.baselineTimeConstant)
        fade = ExponentialSmoother(timeConstant: parameters.amplitudeMemory)
    }

    /// Steps per minute over the recent steps (0 before a bout is confirmed).
    public var cadence: Double { confirmed && meanInterval > 0 ? 60 / meanInterval : 0 }

    /// The flags of a step at `time`: a gap within half a step interval of it may have hidden a
    /// neighbour or merged two.
    @inlinable func quality(at time: Double) -> EventQuality {
        spacing.quality(
            from: time, to: time, margin: max(meanInterval, parameters.minInterval),
            slowest: QualityFlag.slowestInterval(for: .step))
    }

    @usableFromInline mutating func registerPeak(time: Double, height: Double) {
        amplitude += 0.3 * (height - amplitude)
        if peakTimes.count == TimeQueue.capacity {
            _ = peakTimes.pop()
            _ = peakHeights.pop()
        }
        peakTimes.push(time)
        peakHeights.push(height)
        if confirmed {
            continueBout(with: time, height: height)
        } else {
            extendRun(with: time)
        }
    }

    /// A peak while no bout is confirmed: it joins the run of held peaks, whose oldest are dropped
    /// until the run is regular; `confirmSteps` regular peaks confirm a bout and are all counted. A peak
    /// sooner than the shortest interval of the run's own cadence that would break it is an echo inside a
    /// step (a lower back's trunk), and is dropped instead.
    @usableFromInline mutating func extendRun(with time: Double) {
        let interval = time - lastStep
        if interval < parameters.minInterval { return }
        if interval > parameters.maxInterval {
            startBout(at: time)
            return
        }
        let runInterval = held.count >= 3 ? (lastStep - held.time(at: 0)) / Double(held.count - 1) : 0
        held.push(time)
        if runInterval > 0 && interval < shortestInterval(for: runInterval) && !runIsRegular {
            held.removeLast()
            // Unless the peaks with the echoes are themselves a regular run: then the run had locked onto
            // every other step (a wrist in running peaks weakly on one side) and they are the steps.
            let counted = heldStartsCounted && recent.count > 0 && recent.time(at: 0) == held.time(at: 0)
            if recent.count > 0 && time - recent.time(at: recent.count - 1) >= parameters.minInterval {
                remember(time)
            }
            if recent.count >= parameters.confirmSteps && isRegular(recent) {
                held = recent
                heldStartsCounted = counted
                lastStep = time
                confirmBout()
            }
            return
        }
        remember(time)
        lastStep = time
        while held.count >= 3 && !runIsRegular {
            _ = held.pop()
            heldStartsCounted = false
        }
        if held.count >= parameters.confirmSteps { confirmBout() }
    }

    /// Whether the held run's neighbouring intervals are within `regularity` of each other and its
    /// neighbouring strides within `strideRegularity`.
    @inlinable var runIsRegular: Bool { isRegular(held) }

    /// Whether `run`'s neighbouring intervals are within `regularity` of each other and its neighbouring
    /// strides within `strideRegularity` (a run of fewer than three times is).
    @inlinable func isRegular(_ run: TimeQueue) -> Bool {
        guard run.count >= 3 else { return true }
        var previous = run.time(at: 1) - run.time(at: 0)
        var previousStride = 0.0
        for offset in 2..<run.count {
            let interval = run.time(at: offset) - run.time(at: offset - 1)
            let ratio = interval / previous
            if ratio > parameters.regularity || ratio * parameters.regularity < 1 { return false }
            let stride = interval + previous
            if previousStride > 0
                && max(stride, previousStride) > parameters.strideRegularity * min(stride, previousStride)
            {
                return false
            }
            previousStride = stride
            previous = interval
        }
        return true
    }

    /// Counts the held run (less a first peak already counted) and follows its cadence from now on.
    @usableFromInline mutating func confirmBout() {
        confirmed = true
        let count = held.count
        if count >= 2 {
            meanInterval = (held.time(at: count - 1) - held.time(at: 0)) / Double(count - 1)
            lastStepInterval = held.time(at: count - 1) - held.time(at: count - 2)
        }
        boutHeight = heldHeight
        var skip = heldStartsCounted
        heldStartsCounted = false
        recent = held
        if !skip { backfill() }
        while let step = held.pop() {
            if skip {
                skip = false
            } else {
                report(step)
            }
        }
    }

    /// The mean height of the held run's peaks (those still among the latest peaks), or 0.
    @usableFromInline var heldHeight: Double {
        var sum = 0.0
        var count = 0
        for index in 0..<held.count {
            let time = held.time(at: index)
            for offset in 0..<peakTimes.count where peakTimes.time(at: offset) == time {
                sum += peakHeights.time(at: offset)
                count += 1
            }
        }
        return count > 0 ? sum / Double(count) : 0
    }

    /// A peak inside a confirmed bout.
    @usableFromInline mutating func continueBout(with time: Double, height: Double) {
        let interval = time - lastStep
        if interval < shortestInterval {
            if interval >= parameters.minInterval { refusedPeak = time }
            return
        }
        if interval > parameters.maxInterval {
            startBout(at: time)
            return
        }
        let step = stepsInterval(interval)
        let tolerance = parameters.strideTolerance
        if tolerance > 0 && lastStepInterval > 0 && meanInterval > 0 {
            let stride = (step + lastStepInterval) / (2 * meanInterval)
            if stride * tolerance < 1 {
                // Too soon for this bout's stride: an extra peak, like one inside the shortest interval.
                refuse(time)
                return
            }
            // Too late, or a gap of more than one missed step: the walk stopped or changed; the last step
            // may start the next bout.
            if stride > tolerance || interval > StepDetector.longestSkip * meanInterval {
                let last = lastStep
                startBout(at: last)
                heldStartsCounted = true
                extendRun(with: time)
                return
            }
        }
        // Far weaker than the bout's steps, in time for the next one: not a step (after a walk, the phone
        // handled; the bout ends when its next step is late).
        if height < parameters.boutHeightFraction * boutHeight { return }
        lastStepInterval = step
        meanInterval = meanInterval == 0 ? step : meanInterval + 0.3 * (step - meanInterval)
        boutHeight += 0.3 * (height - boutHeight)
        remember(time)
        let refused = refusedPeak
        let phase = (refused - lastStep) / interval
        refusedPeak = -Double.infinity
        lastStep = time
        if phase >= 0.35 && phase <= 0.65 && parameters.halfCadenceConfirm > 0
            && interval / 2 >= parameters.minDoubledInterval
        {
            halfWayInterval(refused: refused, step: time, interval: interval)
        } else {
            releaseHalfWay(confirmed: false)
            report(time)
        }
    }

    /// A peak the confirmed bout refuses as too soon for its stride (not one inside its shortest interval:
    /// an echo within a step, or a step of a bout on every other step, which `halfWayInterval` handles).
    /// If it completes a regular run of `confirmSteps` of the bout's latest peaks (refused ones included)
    /// whose step interval is shorter than the bout's by more than `strideTolerance`, the walk has sped up
    /// (or the bout carried a slower walk's cadence over a short pause): the bout takes that run's cadence
    /// and the peak is a step. The run's peaks refused before are not counted (they would come out after
    /// later steps).
    @usableFromInline mutating func refuse(_ time: Double) {
        refusedPeak = time
        let tolerance = parameters.strideTolerance
        guard tolerance > 0, recent.count > 0, time - recent.time(at: recent.count - 1) >= parameters.minInterval
        else { return }
        remember(time)
        let count = recent.count
        guard count >= parameters.confirmSteps, isRegular(recent) else { return }
        let runInterval = (time - recent.time(at: 0)) / Double(count - 1)
        guard runInterval * tolerance < meanInterval else { return }
        releaseHalfWay(confirmed: false)
        meanInterval = runInterval
        lastStepInterval = time - recent.time(at: count - 2)
        refusedPeak = -Double.infinity
        lastStep = time
        report(time)
    }

    /// Adds a peak to the bout's latest peaks, dropping the oldest beyond `confirmSteps`.
    @inlinable mutating func remember(_ time: Double) {
        recent.push(time)
        while recent.count > parameters.confirmSteps { _ = recent.pop() }
    }

    /// One step's share of `interval`: in a confirmed bout an interval of `skippedStepFactor` or more
    /// step intervals is split into the whole number of steps nearest to it.
    @inlinable func stepsInterval(_ interval: Double) -> Double {
        guard confirmed, meanInterval > 0, parameters.skippedStepFactor > 0,
            interval > parameters.skippedStepFactor * meanInterval
        else { return interval }
        return interval / max(1, (interval / meanInterval).rounded())
    }

    /// The shortest step interval now: `minInterval`, or in a confirmed bout the fraction
    /// `minIntervalFraction` of its step interval, capped at `minIntervalCap`.
    @inlinable var shortestInterval: Double {
        confirmed ? shortestInterval(for: meanInterval) : parameters.minInterval
    }

    /// The shortest step interval of a cadence of `stepInterval`.
    @inlinable func shortestInterval(for stepInterval: Double) -> Double {
        max(parameters.minInterval, min(parameters.minIntervalCap, parameters.minIntervalFraction * stepInterval))
    }

    /// A refused peak half-way between two steps may be a step of a bout confirmed on every other step
    /// (a wrist in running can peak weakly on one side), or a walker's mid-step trunk peak. Only when
    /// `halfCadenceConfirm` intervals in a row hold one is the cadence taken as twice the bout's, and
    /// the held peaks count as steps; one interval without drops them.
    @usableFromInline mutating func halfWayInterval(refused: Double, step: Double, interval: Double) {
        halfWay.push(refused)
        halfWay.push(step)
        guard halfWay.count >= 2 * parameters.halfCadenceConfirm else { return }
        meanInterval = interval / 2
        lastStepInterval = interval / 2
        releaseHalfWay(confirmed: true)
    }

    /// Hands on the held half-way peaks and steps in time order: all of them once a doubled cadence is
    /// confirmed, else the steps only.
    @usableFromInline mutating func releaseHalfWay(confirmed doubled: Bool) {
        var index = 0
        while let time = halfWay.pop() {
            if doubled || index % 2 == 1 { report(time) }
            index += 1
        }
    }

    /// Inside a bout (with `strideTolerance` on) a gap longer than this many step intervals ends it: walking
    /// misses one step now and then (in a turn, whose steps are up to a third slower, one missed step spans
    /// up to 2.7 intervals), not two in a row, and a longer gap taken as missed steps let a bout run on
    /// through the handling after a walk.
    public static let longestSkip = 2.7

    /// Most intervals `halfCadenceConfirm` may ask for: their peaks and steps fit `TimeQueue`.
    public static let halfCadenceConfirmMax = 3

    @usableFromInline mutating func startBout(at time: Double) {
        releaseHalfWay(confirmed: false)
        confirmed = false
        held.removeAll()
        held.push(time)
        recent.removeAll()
        recent.push(time)
        heldStartsCounted = false
        lastStep = time
        lastStepInterval = 0
        meanInterval = 0
        refusedPeak = -Double.infinity
    }

    /// Ends the stream: returns confirmed steps not yet reported.
    public mutating func finish() -> [DetectorEvent] {
        releaseHalfWay(confirmed: false)
        var events: [DetectorEvent] = []
        while let time = ready.pop() { events.append(step(at: time)) }
        return events
    }
}
