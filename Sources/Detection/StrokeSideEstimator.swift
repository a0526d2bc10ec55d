// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// Tells a table-tennis hit's side (forehand or backhand) from the acceleration around it, given the
/// racket hand, or says that the strokes contradict the racket hand (Docs/DETECTION.md, "Side").
///
/// Two cues, both computed once per hit from the samples 0.9 s before to 0.08 s after it (g: the mean
/// acceleration 0.6–0.9 s before; d_k: a(t + 0.04 k) − g for k = −15…2):
/// - the **sense score**, which way the swing turns about gravity: a fitted sum of the pseudo-scalars
///   ĝ·(d_p × d_q) and the areas d sweeps about ĝ. It does not change when the sensor is rotated on the
///   strap and changes sign with a mirror, so the racket hand sets which sign is the forehand (a right hand:
///   positive, for a sensor that reads +1 g upward at rest in a right-handed frame);
/// - the **side cue**, which needs no hand and no frame (it survives rotations and mirrors: ĝ·d_k, |d_k|
///   and the cosine between g and the contact acceleration), but is right for only about three hits in
///   four and for whole sessions can point the wrong way.
///
/// Each confident hit votes sign(score) · sign(cue). Until the net votes reach `votesNeeded` no hit has a
/// side. When they point the racket hand's way, a hit whose |score| reaches `sideMargin` gets its side;
/// when they point the other way, hits get no side and `unsure` (the `side_unsure` quality flag) instead:
/// a wrong racket hand, a sensor worn in a mirrored frame or a player the cue misreads, never a silent
/// swap. Without a racket hand nothing is estimated: on the validation data the cue alone picked the
/// wrong sense for whole drills.
///
/// Per sample the cost is one copy into a ring of recent samples (none without a racket hand); the
/// ring holds `capacity` samples, of which a hit needs up to 2.3 s (0.9 s before it, and a report
/// up to two merge windows after: at most 440 Hz).
public struct StrokeSideEstimator: Sendable {
    /// What one hit gets.
    public struct Estimate: Hashable, Sendable {
        /// The side, nil when not told.
        public var side: StrokeSide?
        /// The strokes contradict the racket hand: no side is given.
        public var unsure: Bool

        /// A value.
        public init(side: StrokeSide? = nil, unsure: Bool = false) {
            self.side = side
            self.unsure = unsure
        }
    }

    /// The two cues at one hit.
    public struct Cues: Hashable, Sendable {
        /// The sense score: positive when the swing turns one way about gravity, negative the other.
        public var score: Double
        /// The side cue: positive reads as a forehand, whatever the hand and frame.
        public var cue: Double
    }

    /// Samples kept: a power of two.
    public static let capacity = 1024
    /// Time between the interpolated samples d_k, s.
    static let step = 0.04
    /// The first and last k of d_k.
    static let firstLag = -15
    static let lastLag = 2
    static let lagCount = lastLag - firstLag + 1
    /// Gravity is the mean over this window before the hit, s.
    static let gravityFrom = 0.9
    static let gravityTo = 0.6
    /// Swept areas run from these lags to the last.
    static let sweptFrom = [-15, -5, -3]

    /// 1 right hand, −1 left hand, 0 not known (nothing is estimated).
    public let racketHand: Int
    @usableFromInline var ring: [AccelerationSample]
    @usableFromInline var next = 0
    @usableFromInline var count = 0
    /// Net votes sign(score) · sign(cue) of the session's confident hits.
    public private(set) var votes = 0

    /// An estimator for an athlete holding the racket in `racketHand` (1 right, −1 left, 0 not known).
    public init(racketHand: Int) {
        self.racketHand = racketHand.signum()
        ring = racketHand == 0 ? [] : Array(repeating: AccelerationSample(t: 0, x: 0, y: 0, z: 0), count: Self.capacity)
    }

    /// Keeps `sample` (the detector's per-sample hook).
    @inlinable @inline(__always) public mutating func record(_ sample: AccelerationSample) {
        guard racketHand != 0 else { return }
        ring[next] = sample
        next = (next + 1) & (Self.capacity - 1)
        count = min(count + 1, Self.capacity)
    }

    /// The side of a hit at `t` (the detector calls it once per reported hit, after the samples to
    /// 0.08 s past `t` were recorded), and the hit's vote on the session's sense.
    public mutating func estimate(hitAt t: Double) -> Estimate {
        guard racketHand != 0, let cues = cues(at: t) else { return Estimate() }
        if abs(cues.score) >= StrokeSideWeights.senseMargin, abs(cues.cue) >= StrokeSideWeights.cueMargin {
            votes += (cues.score > 0) == (cues.cue > 0) ? 1 : -1
        }
        guard abs(votes) >= StrokeSideWeights.votesNeeded else { return Estimate() }
        guard votes.signum() == racketHand else { return Estimate(unsure: true) }
        guard abs(cues.score) >= StrokeSideWeights.sideMargin else { return Estimate() }
        return Estimate(side: (cues.score > 0) == (racketHand > 0) ? .forehand : .backhand)
    }

    /// Both cues at a hit at `t`; nil when the kept samples do not reach from 0.6 s before it to 0.08 s
    /// after it, hold fewer than three 0.6–0.9 s before it, or are none (no racket hand).
    public func cues(at t: Double) -> Cues? {
        guard count > 1 else { return nil }
        let oldest = (next - count) & (Self.capacity - 1)
        let first = t + Double(Self.firstLag) * Self.step
        let last = t + Double(Self.lastLag) * Self.step
        guard ring[oldest].t <= first, ring[(next - 1) & (Self.capacity - 1)].t >= last else { return nil }
        var sum = (x: 0.0, y: 0.0, z: 0.0)
        var inWindow = 0
        var lag = 0
        var d = [SideVector](repeating: SideVector(), count: Self.lagCount)
        var target = first
        for offset in 0..<count {
            let sample = ring[(oldest + offset) & (Self.capacity - 1)]
            if sample.t > t - Self.gravityFrom, sample.t < t - Self.gravityTo {
                sum = (sum.x + sample.x, sum.y + sample.y, sum.z + sample.z)
                inWindow += 1
            }
            // Linear interpolation onto t + 0.04 k between this sample and the one before.
            while lag < Self.lagCount, sample.t >= target, offset > 0 {
                let before = ring[(oldest + offset - 1) & (Self.capacity - 1)]
                let span = sample.t - before.t
                let w = span > 0 ? max(0, min(1, (target - before.t) / span)) : 1
                d[lag] = SideVector(
                    x: before.x + w * (sample.x - before.x), y: before.y + w * (sample.y - before.y),
                    z: before.z + w * (sample.z - before.z))
                lag += 1
                target = t + Double(Self.firstLag + lag) * Self.step
            }
        }
        guard inWindow >= 3, lag == Self.lagCount else { return nil }
        let count = Double(inWindow)
        let g = SideVector(x: sum.x / count, y: sum.y / count, z: sum.z / count)
        let length = g.length
        guard length > 0 else { return nil }
        let unit = g.scaled(1 / length)
        let contact = d[-Self.firstLag]
        for k in d.indices { d[k] = d[k].minus(g) }
        return Cues(score: Self.score(unit: unit, d: d), cue: Self.cue(unit: unit, d: d, contact: contact))
    }

    /// The fitted sum of the pseudo-scalars and their x·|x|.
    static func score(unit: SideVector, d: [SideVector]) -> Double {
        var total = 0.0
        var index = 0
        func add(_ x: Double) {
            total += StrokeSideWeights.scoreLinear[index] * x + StrokeSideWeights.scoreSquared[index] * x * abs(x)
            index += 1
        }
        for p in d.indices {
            for q in (p + 1)..<d.count { add(unit.dot(d[p].cross(d[q]))) }
        }
        for from in sweptFrom {
            var swept = 0.0
            for k in (from - firstLag)..<(d.count - 1) { swept += unit.dot(d[k].cross(d[k + 1])) }
            add(swept)
        }
        return total
    }

    /// The fitted logistic sum of ĝ·d_k, |d_k| and the contact's cosine with ĝ.
    static func cue(unit: SideVector, d: [SideVector], contact: SideVector) -> Double {
        let weights = StrokeSideWeights.cue
        var total = StrokeSideWeights.cueBias
        for k in d.indices {
            total += weights[k] * unit.dot(d[k]) + weights[d.count + k] * d[k].length
        }
        let magnitude = contact.length
        return total + weights[2 * d.count] * (magnitude > 0 ? unit.dot(contact) / magnitude : 0)
    }
}

/// A 3-vector of g for the estimator's arithmetic.
@usableFromInline struct SideVector: Sendable {
    var x = 0.0
    var y = 0.0
    var z = 0.0

    @usableFromInline init(x: Double = 0, y: Double = 0, z: Double = 0) {
        self.x = x
        self.y = y
        self.z = z
    }

    var length: Double { (x * x + y * y + z * z).squareRoot() }
    func dot(_ o: SideVector) -> Double { x * o.x + y * o.y + z * o.z }
    func cross(_ o: SideVector) -> SideVector {
        SideVector(x: y * o.z - z * o.y, y: z * o.x - x * o.z, z: x * o.y - y * o.x)
    }
    func minus(_ o: SideVector) -> SideVector { SideVector(x: x - o.x, y: y - o.y, z: z - o.z) }
    func scaled(_ s: Double) -> SideVector { SideVector(x: x * s, y: y * s, z: z * s) }
}
