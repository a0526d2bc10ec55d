// SPDX-License-Identifier: GPL-2.0-or-later

/// Estimates a sensor's true sample period from a whole recording's notification arrivals.
///
/// Each notification arrives some time after its last sample was taken: the true time plus a
/// latency that is never negative and is smallest when the radio delivered at once. Plotted
/// against the sample index, arrival times therefore lie on or above a straight line whose slope
/// is the sample period. The line that stays below every point and is closest to them on
/// average is a supporting line of the points' lower convex hull: the hull edge that spans the
/// mean index. Unlike a least-squares fit it is not pulled up by late, batched deliveries, and
/// unlike the live `SampleClock` it sees the whole recording at once, so a file decodes with
/// one period from its first sample to its last.
public struct SamplePeriodFit: Sendable {
    private var hull: [(index: Double, time: Double)] = []
    private var indexSum = 0.0
    private var count = 0

    /// An empty fit.
    public init() {}

    /// Adds one notification: the index of its last sample and its arrival time in seconds.
    /// Indices must increase from call to call; a point that does not is ignored.
    public mutating func add(lastIndex: Int64, arrivalTime: Double) {
        let point = (index: Double(lastIndex), time: arrivalTime)
        guard arrivalTime.isFinite, hull.last.map({ point.index > $0.index }) ?? true else { return }
        indexSum += point.index
        count += 1
        // Andrew's monotone chain, lower half: drop the last point while it lies on or above the
        // segment from the one before it to the new point.
        while hull.count >= 2 {
            let o = hull[hull.count - 2]
            let a = hull[hull.count - 1]
            let cross = (a.index - o.index) * (point.time - o.time) - (a.time - o.time) * (point.index - o.index)
            if cross > 0 { break }
            hull.removeLast()
        }
        hull.append(point)
    }

    /// Number of points added.
    public var pointCount: Int { count }

    /// The estimated sample period in seconds, or nil with fewer than two points or when the
    /// arrivals do not move forward with the index.
    public var period: Double? {
        guard hull.count >= 2 else { return nil }
        let mean = indexSum / Double(count)
        var edge = 0
        while edge + 2 < hull.count && hull[edge + 1].index < mean { edge += 1 }
        let a = hull[edge]
        let b = hull[edge + 1]
        let slope = (b.time - a.time) / (b.index - a.index)
        return slope > 0 && slope.isFinite ? slope : nil
    }
}
