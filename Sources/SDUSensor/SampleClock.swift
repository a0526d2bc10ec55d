// SPDX-License-Identifier: GPL-2.0-or-later

/// Recovers when each sample was taken, on the host's monotonic clock, from when notifications
/// arrived, and estimates the sensor's true sample rate.
///
/// A notification leaves the sensor right after its last sample and reaches the host after a
/// latency that is never below some minimum but often far above it: the radio only talks at
/// connection events (7.5–50 ms apart), several notifications share one event, and the host
/// stack adds its own delay. So the points (index of a notification's last sample, arrival time)
/// lie on or above the line `arrival = offset + index / rate`, touching it when the latency was
/// minimal. The clock fits that lower envelope, not a least-squares line through the jitter:
///
/// 1. Points are grouped into bins of `binDuration` seconds of samples (by index); each bin keeps
///    only its lowest point relative to the current slope. At most `binCapacity` bins are kept,
///    so memory is fixed and nothing is allocated after `init`.
/// 2. When a bin completes, the slope is refitted as the line through the lowest point of the
///    oldest third of the window and the lowest point of the newest third (lowest relative to the
///    slope, so this is iterated; it settles in one or two rounds). Two far-apart minima give a
///    long baseline: the slope error is the difference of two minimum latencies divided by at
///    least a third of the window. (The lower convex hull's edge above the middle, the classic
///    linear-programming answer, was tried first; its edge can be short, and a short edge makes
///    a noisy slope.)
/// 3. The offset puts the line through the lowest point of the newest half, so the remaining
///    slope error is extrapolated over half the window at most.
/// 4. Until the kept points span `minimumSpan` seconds, or if the fitted rate is outside
///    `plausibleRates`, the slope is the prior (the nominal rate, or the last good estimate after
///    a `reset`).
/// 5. Between fits, a point below the line lowers the line to it at once, so a sample's recovered
///    time is never later than its notification arrived.
///
/// Recovered times are arrival-time-equivalent: true sampling time plus the minimum latency,
/// which no receiver can observe. Index gaps need no special care (the points just skip ahead);
/// a counter resync should `reset` the fit, since the new indices are on a new line.
public struct SampleClock: Sendable {
    /// Settings of the fit.
    public struct Configuration: Hashable, Sendable {
        /// The sample rate assumed until the data says otherwise, in Hz.
        public var nominalRate: Double
        /// Seconds of samples per bin.
        public var binDuration: Double
        /// Bins kept: the window is `binCapacity × binDuration` seconds.
        public var binCapacity: Int
        /// Seconds the kept points must span before the fitted slope replaces the prior.
        public var minimumSpan: Double
        /// Seconds the kept points must span for `.locked`.
        public var lockedSpan: Double
        /// Fitted rates outside this range are rejected in favour of the prior.
        public var plausibleRates: ClosedRange<Double>

        /// Defaults: 100 Hz nominal, 0.25 s bins, 256 bins (64 s), fitted slope after 2 s,
        /// locked after 10 s, fitted rates within ±20 % of nominal.
        public init(
            nominalRate: Double = 100, binDuration: Double = 0.25, binCapacity: Int = 256, minimumSpan: Double = 2,
            lockedSpan: Double = 10, plausibleRates: ClosedRange<Double>? = nil
        ) {
            let rate = nominalRate.isFinite && nominalRate > 0 ? nominalRate : 100
            self.nominalRate = rate
            self.binDuration = binDuration.isFinite && binDuration > 0 ? binDuration : 0.25
            self.binCapacity = min(max(4, binCapacity), 1 << 16)
            self.minimumSpan = minimumSpan.isFinite ? max(0, minimumSpan) : 2
            self.lockedSpan = lockedSpan.isFinite ? max(self.minimumSpan, lockedSpan) : 10
            self.plausibleRates = plausibleRates ?? (rate * 0.8)...(rate * 1.2)
        }
    }

    /// How far to trust the current line.
    public enum Quality: Hashable, Sendable, Comparable {
        /// No arrival yet: no time can be given.
        case none
        /// The slope is the prior rate; only the offset comes from the data.
        case prior
        /// Slope fitted over less than `lockedSpan` seconds.
        case estimating
        /// Slope fitted over at least `lockedSpan` seconds.
        case locked
    }

    private struct Point: Sendable {
        var index: Int64
        var time: Double
    }

    /// The settings in use.
    public let configuration: Configuration

    private var priorSlope: Double
    private var slope: Double
    /// The line is `time = anchorTime + slope × (index − anchorIndex)`.
    private var anchorIndex: Int64 = 0
    private var anchorTime: Double = 0
    private var fitted = false
    private var hasLine = false
    private let binSamples: Int64
    // Completed bins, a ring buffer of `binCapacity`, oldest at `ringStart`.
    private var ring: [Point]
    private var ringStart = 0
    private var ringCount = 0
    private var current = Point(index: 0, time: 0)
    private var currentBin: Int64 = 0
    private var hasCurrent = false
    private var spanSeconds: Double = 0

    /// Creates a clock with no arrivals yet.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        priorSlope = 1 / configuration.nominalRate
        slope = priorSlope
        binSamples = Int64(max(1, min((configuration.nominalRate * configuration.binDuration).rounded(), 1e9)))
        ring = Array(repeating: Point(index: 0, time: 0), count: configuration.binCapacity)
    }

    /// The current estimate of the sample rate, in Hz (the prior until the fit takes over).
    public var rate: Double { 1 / slope }

    /// How far to trust `rate` and `time(ofSample:)`.
    public var quality: Quality {
        guard hasLine else { return .none }
        guard fitted else { return .prior }
        return spanSeconds >= configuration.lockedSpan ? .locked : .estimating
    }

    /// Seconds of samples the kept points span.
    public var span: Double { spanSeconds }

    /// The host time at which sample `index` was taken (plus the minimum latency), or nil before
    /// the first arrival.
    public func time(ofSample index: Int64) -> Double? {
        guard hasLine else { return nil }
        return anchorTime + slope * Double(index &- anchorIndex)
    }

    /// Forgets the fitted points (after a counter resync). With `keepingRate`, the current rate
    /// becomes the prior if it was fitted; otherwise the nominal rate is the prior again.
    public mutating func reset(keepingRate: Bool = true) {
        let newPrior = keepingRate && fitted ? slope : 1 / configuration.nominalRate
        priorSlope = newPrior
        slope = newPrior
        fitted = false
        hasLine = false
        ringStart = 0
        ringCount = 0
        hasCurrent = false
        spanSeconds = 0
    }

    /// Records that the notification whose last sample has index `lastIndex` arrived at
    /// `arrivalTime` (host monotonic seconds). Points with a non-finite time, or an index below
    /// the current bin, are ignored.
    public mutating func observe(lastIndex: Int64, arrivalTime: Double) {
        guard arrivalTime.isFinite else { return }
        let point = Point(index: lastIndex, time: arrivalTime)
        if !hasLine {
            hasLine = true
            anchorIndex = lastIndex
            anchorTime = arrivalTime
        }
        let bin = lastIndex >= 0 ? lastIndex / binSamples : -1
        if !hasCurrent {
            current = point
            currentBin = bin
            hasCurrent = true
        } else if bin == currentBin {
            if residual(point) < residual(current) { current = point }
        } else if bin > currentBin {
            push(current)
            current = point
            currentBin = bin
            refit()
        }
        if let predicted = time(ofSample: lastIndex), arrivalTime < predicted {
            // Below the line: the latency was lower than any seen; lower the line to it.
            anchorIndex = lastIndex
            anchorTime = arrivalTime
        }
    }

    private func residual(_ p: Point) -> Double { p.time - slope * Double(p.index &- anchorIndex) }

    private mutating func push(_ p: Point) {
        let capacity = ring.count
        if ringCount == capacity {
            ring[ringStart] = p
            ringStart = (ringStart + 1) % capacity
        } else {
            ring[(ringStart + ringCount) % capacity] = p
            ringCount += 1
        }
    }

    private func point(_ i: Int) -> Point {
        i == ringCount ? current : ring[(ringStart + i) % ring.count]
    }

    private mutating func refit() {
        let n = ringCount + 1
        let origin = point(0)
        @inline(__always) func x(_ i: Int) -> Double { Double(point(i).index &- origin.index) }
        @inline(__always) func y(_ i: Int) -> Double { point(i).time - origin.time }
        let width = x(n - 1)
        spanSeconds = width * slope
        // The point lowest under `beta` among those with x in `from...to`.
        func lowest(from: Double, to: Double, beta: Double) -> Int {
            var best = -1
            var bestResidual = Double.infinity
            for i in 0..<n where x(i) >= from && x(i) <= to {
                let r = y(i) - beta * x(i)
                if r < bestResidual {
                    bestResidual = r
                    best = i
                }
            }
            return best
        }

        var newSlope = priorSlope
        var useFit = false
        if width > 0, spanSeconds >= configuration.minimumSpan {
            // The line through the lowest point of the oldest third and of the newest third,
            // iterated because "lowest" depends on the slope; it settles in one or two rounds.
            var beta = fitted ? slope : priorSlope
            var previous = (-1, -1)
            for _ in 0..<4 {
                let a = lowest(from: 0, to: width / 3, beta: beta)
                let b = lowest(from: width * 2 / 3, to: width, beta: beta)
                guard a >= 0, b >= 0, (a, b) != previous else { break }
                previous = (a, b)
                let dx = x(b) - x(a)
                guard dx > 0 else { break }
                let candidate = (y(b) - y(a)) / dx
                guard candidate > 0, configuration.plausibleRates.contains(1 / candidate) else {
                    useFit = false
                    break
                }
                beta = candidate
                useFit = true
            }
            if useFit { newSlope = beta }
        }
        slope = newSlope
        fitted = useFit
        // The offset: through the lowest point of the newest third, so that the slope's remaining
        // error is extrapolated over a third of the window at most.
        let anchor = max(0, lowest(from: width / 2, to: width, beta: newSlope))
        anchorIndex = point(anchor).index
        anchorTime = point(anchor).time
    }
}
