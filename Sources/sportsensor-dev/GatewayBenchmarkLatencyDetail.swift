// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation

/// Where the slow detection items of a run arrived: shortly after a `counters` item (in or just
/// after the once-a-second items of the live sessions) or away from them, and how the counters
/// items came: in bursts, how many and over how long. `bench-gateway --latency-detail`.
struct GatewayBenchmarkLatencyDetail {
    /// A detection item counts as near the counters when it arrived this soon after one.
    static let near: Duration = .milliseconds(50)
    /// Counters items closer than this to the one before belong to one burst.
    static let burstGap: Duration = .milliseconds(50)

    var nearCounters: LatencySummary?
    var awayFromCounters: LatencySummary?
    /// Items per burst and the burst's span (first to last item, ms) at one subscriber, medians.
    var medianBurstItems: Int
    var medianBurstSpanMilliseconds: Double
    var largestBurstSpanMilliseconds: Double

    init(latencies: [GatewayBenchmarkSubscriber.Latency], countersArrivals: [[ContinuousClock.Instant]]) {
        let near = latencies.filter { $0.sinceCounters.map { $0 < Self.near } ?? false }
        let away = latencies.filter { !($0.sinceCounters.map { $0 < Self.near } ?? false) }
        nearCounters = LatencySummary(near.map(\.milliseconds))
        awayFromCounters = LatencySummary(away.map(\.milliseconds))
        var bursts: [(items: Int, span: Double)] = []
        for arrivals in countersArrivals {
            var first: ContinuousClock.Instant?
            var last: ContinuousClock.Instant?
            var items = 0
            for at in arrivals {
                if let previous = last, previous.duration(to: at) < Self.burstGap {
                    items += 1
                } else {
                    if let first, let last { bursts.append((items, first.duration(to: last).inSeconds * 1000)) }
                    first = at
                    items = 1
                }
                last = at
            }
            if let first, let last { bursts.append((items, first.duration(to: last).inSeconds * 1000)) }
        }
        let items = bursts.map(\.items).sorted()
        let spans = bursts.map(\.span).sorted()
        medianBurstItems = items.isEmpty ? 0 : items[items.count / 2]
        medianBurstSpanMilliseconds = spans.isEmpty ? 0 : spans[spans.count / 2]
        largestBurstSpanMilliseconds = spans.last ?? 0
    }

    /// One line for the run's row.
    var line: String {
        func fixed(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
        func text(_ summary: LatencySummary?) -> String {
            guard let summary else { return "-" }
            return "\(fixed(summary.p50, 2)) / \(fixed(summary.p99, 2)) / \(fixed(summary.max, 2)) (\(summary.count))"
        }
        return "  detections < 50 ms after a counters item: \(text(nearCounters)); later: \(text(awayFromCounters)); "
            + "counters bursts: median \(medianBurstItems) items over \(fixed(medianBurstSpanMilliseconds, 1)) ms, "
            + "longest \(fixed(largestBurstSpanMilliseconds, 1)) ms"
    }
}
