// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import SDUSensor

/// One-sided 95 % upper limit of a Poisson rate: the λ at which `count` or fewer events in
/// `exposure` would be seen only 5 % of the time (0 events: 3.0 / exposure, the rule of three).
///
/// Issue 14's false-flight goal is a rate (≤ 2 per hour); zero events in a few minutes does not
/// show it, and this bound says how much the recordings can show.
func poissonUpperLimit(count: Int, exposure: Double) -> Double? {
    guard exposure > 0, count >= 0 else { return nil }
    func cumulative(_ mean: Double) -> Double {
        var term = exp(-mean)
        var sum = term
        if count > 0 {
            for k in 1...count {
                term *= mean / Double(k)
                sum += term
            }
        }
        return sum
    }
    var low = Double(count)
    var high = Double(count) + 10 + 10 * Double(count).squareRoot()
    for _ in 0..<200 {
        let mid = (low + high) / 2
        if cumulative(mid) > 0.05 { low = mid } else { high = mid }
    }
    return high / exposure
}

/// The jump and throw detections on real recordings that hold neither (walking, daily movement,
/// instruments moved by hand), pooled per split, rate and profile: the kit's measure of issue 14's
/// "≤ 2 false jumps or throws per hour in real non-sport movement", with the rate the recordings
/// can bound it to.
func validationFalseFlightTable(_ rows: [ValidationRow]) -> String {
    func f(_ value: Double, _ decimals: Int) -> String { SampleCSV.fixed(value, decimals: decimals) }
    struct Pool {
        var datasets: [String] = []
        var recordings = 0
        var hours = 0.0
        var standard = 0
        var baseline = 0
    }
    var pools: [String: Pool] = [:]
    for row in rows where (row.profile == .jump || row.profile == .throw) && row.flightLabels == 0 {
        let key = "\(row.split) | \(Int(row.rate)) | \(row.profile.rawValue)"
        var pool = pools[key, default: Pool()]
        if !pool.datasets.contains(row.dataset) { pool.datasets.append(row.dataset) }
        pool.recordings += row.recordings
        pool.hours += row.hours
        pool.standard += row.standard.falseDetections
        pool.baseline += row.baseline.falseDetections
        pools[key] = pool
    }
    var text = """

        False jumps and throws in real movement without any (the recordings above with no jump or throw label, \
        pooled; the goal is ≤ 2 per hour; "95 % upper" is the one-sided Poisson limit of the rate the recordings \
        can show):

        | split | Hz | profile | datasets | rec. | min | false | per h | 95 % upper per h | baseline false | \
        baseline per h |
        | --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |

        """
    for (key, pool) in pools.sorted(by: { $0.key < $1.key }) {
        let upper = poissonUpperLimit(count: pool.standard, exposure: pool.hours).map { f($0, 1) } ?? "–"
        text += "| \(key) | \(pool.datasets.joined(separator: ", ")) | \(pool.recordings) | "
        text += "\(f(pool.hours * 60, 1)) | \(pool.standard) | \(f(Double(pool.standard) / pool.hours, 1)) | "
        text += "\(upper) | \(pool.baseline) | \(f(Double(pool.baseline) / pool.hours, 1)) |\n"
    }
    return text
}
