// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// Computes a `SessionSummary` from a session's samples and events as they arrive: pure, time
/// passed in with every sample, any sample rate, gaps allowed. O(1) work per sample and bounded
/// memory however long the session runs: it keeps the magnitudes of the current 5-s epoch (for its
/// mean absolute deviation) and a few numbers per epoch of the last `lateEventS`, where an event
/// reported late can still land; older epochs are folded into sums. `summary()` can be asked for
/// once a second during a live session.
///
/// Rules (Docs/METRICS.md):
/// - Two consecutive samples more than `gapS` apart are a gap: neither PlayerLoad nor recorded
///   time crosses it.
/// - PlayerLoad sums the vector difference of consecutive samples as they come, at whatever rate;
///   it is not resampled to 100 Hz.
/// - Epochs are 5 s from the first sample; each interval between consecutive samples belongs to
///   the epoch of the later one, so an epoch's seconds are the time its samples cover.
/// - Bests (largest peak, height, RSI) take only the events `SummaryMetric.admits` (quality flags
///   that can make a non-event or an inflated value keep an event out); counts and means take all.
public struct SessionSummaryAccumulator: Sendable {
    /// Epoch length, s.
    public static let epochS = 5.0
    /// Longest pause between consecutive samples that is not a gap, s.
    public static let gapS = 0.25
    /// |axis| at or above which a sample is clipped: the largest reading at 16384 LSB/g.
    public static let clipLevelG = 32767.0 / 16384.0
    /// Longest ground contact between a landing and the next takeoff that makes a repeated jump.
    public static let repeatedJumpContactS = 0.5
    /// Longest pause between steps that still counts as stepping (for cadence), s.
    public static let stepPauseS = 2.0
    /// How long after its time an event may be added and still count in its epoch's intensity, s.
    /// Detectors report within seconds (a hit up to two merge windows late, a flight at its landing,
    /// a step held until its bout is confirmed: at most 8 held peaks, under 45 s); an epoch this much
    /// older than the latest sample is folded into sums, and a later event still counts everywhere
    /// but in its epoch's MET.
    public static let lateEventS = 60.0
    /// Epochs kept after the open one: those an event `lateEventS` late can still belong to.
    static let heldEpochLimit = Int((lateEventS / epochS).rounded(.up)) + 1

    /// One finished epoch.
    struct Epoch: Sendable {
        var index: Int
        var seconds: Double
        var enmoMg: Double
        var madMg: Double
    }

    /// The profile summarised.
    public let profile: DetectionProfile
    private var startT: Double?
    private var previous: AccelerationSample?
    private var samples = 0
    private var clipped = 0
    private var gaps = 0
    private var recordedS = 0.0
    private var playerloadSum = 0.0
    private var enmoSumG = 0.0
    private var epochIndex = 0
    private var epochSeconds = 0.0
    private var epochMagnitudes: [Double] = []
    private var epochs: [Epoch] = []
    private var eventsPerEpoch: [Int: Int] = [:]
    /// Epochs before this index are folded into `folded`.
    private var foldedBelow = 0
    private var folded = FoldedEpochs()
    // Hits.
    private var hits = 0
    private var peakSumG = 0.0
    private var maxPeakG: Double?
    private var lastPeakG = 0.0
    private var maxIntensityG: Double?
    private var saturatedHits = 0
    /// Per side, in `StrokeSide.allCases` order.
    private var sideHits = [0, 0]
    private var sideMaxPeakG: [Double?] = [nil, nil]
    private var sideMaxIntensityG: [Double?] = [nil, nil]
    // Jumps and throws.
    private var jumps = 0
    private var jumpHeightSumM = 0.0
    private var bestJumpM: Double?
    private var bestRsi: Double?
    private var lastLanding: Double?
    /// Whether the last landing's flight may set an RSI (its landing starts the next contact).
    private var lastLandingAdmitted = false
    private var throwCount = 0
    private var bestThrowM: Double?
    // Steps.
    private var steps = 0
    private var lastStepT: Double?
    private var steppingIntervals = 0
    private var steppingS = 0.0
    // Quality flags.
    private var flaggedEvents = 0
    private var qualityCounts: [QualityFlag: Int] = [:]

    /// An empty accumulator for `profile`.
    public init(profile: DetectionProfile) {
        // No reserve: the first epoch grows the buffer to its rate's size (512 at 100 Hz) and
        // `closeEpoch` keeps it; a reserve for 400 Hz cost 16 KB per live session.
        self.profile = profile
    }

    /// Adds one sample (in time order).
    public mutating func add(_ sample: AccelerationSample) {
        let magnitude = sample.magnitude
        samples += 1
        enmoSumG += max(0, magnitude - 1)
        if Swift.max(abs(sample.x), abs(sample.y), abs(sample.z)) >= Self.clipLevelG { clipped += 1 }
        let start = startT ?? sample.t
        startT = start
        let index = Self.epoch(of: sample.t, start: start)
        if index != epochIndex {
            closeEpoch()
            epochIndex = index
        }
        if let previous {
            let dt = sample.t - previous.t
            if dt > Self.gapS {
                gaps += 1
            } else {
                let dx = sample.x - previous.x
                let dy = sample.y - previous.y
                let dz = sample.z - previous.z
                playerloadSum += (dx * dx + dy * dy + dz * dz).squareRoot()
                let covered = Swift.max(0, dt)
                recordedS += covered
                epochSeconds += covered
            }
        }
        epochMagnitudes.append(magnitude)
        previous = sample
    }

    /// Adds one detected event.
    public mutating func add(_ event: DetectorEvent) {
        let quality = event.quality
        if !quality.isEmpty {
            flaggedEvents += 1
            for flag in quality.flags { qualityCounts[flag, default: 0] += 1 }
        }
        if event.kind == profile.eventKind {
            let index = Self.epoch(of: event.time, start: startT ?? event.time)
            if index >= foldedBelow { eventsPerEpoch[index, default: 0] += 1 }
        }
        switch event {
        case .hit(let hit):
            hits += 1
            peakSumG += hit.peakG
            if SummaryMetric.maxPeakG.admits(quality) { maxPeakG = Swift.max(maxPeakG ?? hit.peakG, hit.peakG) }
            lastPeakG = hit.peakG
            if SummaryMetric.maxIntensityG.admits(quality) {
                maxIntensityG = Swift.max(maxIntensityG ?? hit.intensityG, hit.intensityG)
            }
            if hit.saturated { saturatedHits += 1 }
            if let side = hit.side, let index = StrokeSide.allCases.firstIndex(of: side) {
                sideHits[index] += 1
                if SummaryMetric.maxPeakG.admits(quality) {
                    sideMaxPeakG[index] = Swift.max(sideMaxPeakG[index] ?? hit.peakG, hit.peakG)
                }
                if SummaryMetric.maxIntensityG.admits(quality) {
                    sideMaxIntensityG[index] = Swift.max(sideMaxIntensityG[index] ?? hit.intensityG, hit.intensityG)
                }
            }
        case .jump(let flight):
            jumps += 1
            jumpHeightSumM += flight.height
            if SummaryMetric.bestHeightM.admits(quality) {
                bestJumpM = Swift.max(bestJumpM ?? flight.height, flight.height)
            }
            // The contact runs from the previous landing: both flights must be trusted.
            let rsiAdmitted = SummaryMetric.bestRsi.admits(quality)
            if let lastLanding, rsiAdmitted && lastLandingAdmitted {
                let contact = flight.start - lastLanding
                if contact > 0 && contact <= Self.repeatedJumpContactS {
                    let rsi = flight.height / contact
                    bestRsi = Swift.max(bestRsi ?? rsi, rsi)
                }
            }
            lastLanding = flight.end
            lastLandingAdmitted = rsiAdmitted
        case .throw(let flight):
            throwCount += 1
            if SummaryMetric.bestThrowHeightM.admits(quality) {
                bestThrowM = Swift.max(bestThrowM ?? flight.height, flight.height)
            }
        case .step(let step):
            steps += 1
            if let lastStepT {
                let interval = step.t - lastStepT
                if interval > 0 && interval <= Self.stepPauseS {
                    steppingIntervals += 1
                    steppingS += interval
                }
            }
            lastStepT = step.t
        }
    }

    /// The summary so far (the open epoch counted as it stands); `kcal` is filled by
    /// `SessionSummary.withBodyMass(_:)`.
    public func summary() -> SessionSummary {
        var result = SessionSummary(profile: profile.rawValue)
        result.samples = samples
        result.clippedSamples = clipped
        result.gaps = gaps
        result.recordedS = recordedS
        if let startT, let previous { result.durationS = previous.t - startT }
        result.playerload = playerloadSum / 100
        if recordedS > 0 { result.playerloadPerMin = result.playerload * 60 / recordedS }
        if samples > 0 { result.enmoMg = enmoSumG / Double(samples) * 1000 }
        // The open epoch counted as it stands, after the kept ones, in the order the folded sums took.
        var all = folded
        for epoch in epochs { all.fold(epoch, profile: profile, events: eventsPerEpoch[epoch.index] ?? 0) }
        if let open = openEpoch() {
            all.fold(open, profile: profile, events: eventsPerEpoch[open.index] ?? 0)
        }
        if all.count > 0 { result.madMg = all.madSumMg / Double(all.count) }
        result.sedentaryS = all.sedentaryS
        result.lightS = all.lightS
        result.moderateS = all.moderateS
        result.vigorousS = all.vigorousS
        result.metMin = all.metMin
        result.activeS = result.lightS + result.moderateS + result.vigorousS
        let minutes = result.durationS / 60
        func perMinute(_ count: Int) -> Double? { minutes > 0 ? Double(count) / minutes : nil }
        if profile == .tableTennis || hits > 0 {
            result.hits = hits
            result.hitsPerMin = perMinute(hits)
            result.saturatedHits = saturatedHits
            if hits > 0 {
                result.maxPeakG = maxPeakG
                result.meanPeakG = peakSumG / Double(hits)
                result.lastPeakG = lastPeakG
                result.maxIntensityG = maxIntensityG
            }
            if sideHits.contains(where: { $0 > 0 }) {
                result.forehandHits = sideHits[0]
                result.backhandHits = sideHits[1]
                result.forehandMaxPeakG = sideMaxPeakG[0]
                result.backhandMaxPeakG = sideMaxPeakG[1]
                result.forehandMaxIntensityG = sideMaxIntensityG[0]
                result.backhandMaxIntensityG = sideMaxIntensityG[1]
            }
        }
        if profile == .jump || jumps > 0 {
            result.jumps = jumps
            result.jumpsPerMin = perMinute(jumps)
            if jumps > 0 {
                result.meanHeightM = jumpHeightSumM / Double(jumps)
            }
            result.bestHeightM = bestJumpM
            result.bestRsi = bestRsi
        }
        if profile == .throw || throwCount > 0 {
            result.throws = throwCount
            result.bestThrowHeightM = bestThrowM
        }
        if profile == .steps || steps > 0 {
            result.steps = steps
            if steppingS > 0 { result.cadenceSpm = Double(steppingIntervals) * 60 / steppingS }
        }
        result.flaggedEvents = flaggedEvents
        result.qualityCounts = qualityCounts
        return result
    }

    /// The summary of a whole recording.
    public static func summary(
        profile: DetectionProfile, samples: some Sequence<AccelerationSample>, events: some Sequence<DetectorEvent>
    ) -> SessionSummary {
        var accumulator = SessionSummaryAccumulator(profile: profile)
        // Every event before the second sample: none comes later than `lateEventS`, and the first
        // sample sets the epochs' start.
        var rest = samples.makeIterator()
        if let first = rest.next() { accumulator.add(first) }
        for event in events { accumulator.add(event) }
        while let sample = rest.next() { accumulator.add(sample) }
        return accumulator.summary()
    }

    private static func epoch(of t: Double, start: Double) -> Int {
        Swift.max(0, Int(saturating: ((t - start) / epochS).rounded(.down)))
    }

    private func openEpoch() -> Epoch? {
        guard !epochMagnitudes.isEmpty else { return nil }
        let count = Double(epochMagnitudes.count)
        var sum = 0.0
        var enmo = 0.0
        for magnitude in epochMagnitudes {
            sum += magnitude
            enmo += Swift.max(0, magnitude - 1)
        }
        let mean = sum / count
        var deviation = 0.0
        for magnitude in epochMagnitudes { deviation += abs(magnitude - mean) }
        return Epoch(
            index: epochIndex, seconds: epochSeconds, enmoMg: enmo / count * 1000, madMg: deviation / count * 1000)
    }

    private mutating func closeEpoch() {
        if let epoch = openEpoch() { epochs.append(epoch) }
        epochMagnitudes.removeAll(keepingCapacity: true)
        epochSeconds = 0
        // Epochs no event can still land in: those `heldEpochLimit` or more before the next one.
        let limit = epochIndex + 1 - Self.heldEpochLimit
        while let oldest = epochs.first, oldest.index < limit {
            folded.fold(oldest, profile: profile, events: eventsPerEpoch.removeValue(forKey: oldest.index) ?? 0)
            epochs.removeFirst()
        }
        foldedBelow = max(foldedBelow, limit)
        // Events timed inside a gap have no epoch to fold them with: drop their counts too.
        if eventsPerEpoch.count > epochs.count + 1 { eventsPerEpoch = eventsPerEpoch.filter { $0.key >= foldedBelow } }
    }

    /// Epochs kept for late events (at most `heldEpochLimit` besides the open one).
    public var heldEpochs: Int { epochs.count }
}

/// The per-epoch parts of a summary, summed over epochs in time order.
struct FoldedEpochs: Sendable {
    var count = 0
    var madSumMg = 0.0
    var sedentaryS = 0.0
    var lightS = 0.0
    var moderateS = 0.0
    var vigorousS = 0.0
    var metMin = 0.0

    /// Adds `epoch`, which holds `events` of the profile's kind.
    mutating func fold(_ epoch: SessionSummaryAccumulator.Epoch, profile: DetectionProfile, events: Int) {
        count += 1
        madSumMg += epoch.madMg
        let band = ActivityIntensity.Band(enmoMg: epoch.enmoMg)
        switch band {
        case .sedentary: sedentaryS += epoch.seconds
        case .light: lightS += epoch.seconds
        case .moderate: moderateS += epoch.seconds
        case .vigorous: vigorousS += epoch.seconds
        }
        let intensity = ActivityIntensity.of(profile: profile, events: events, seconds: epoch.seconds, band: band)
        metMin += intensity.met * epoch.seconds / 60
    }
}
