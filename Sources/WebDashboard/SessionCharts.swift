// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation

/// The session page's figures and charts, built one page of events at a time (the events come in
/// time order). Whatever the session's length, each chart keeps at most `maxPoints` points, about
/// as many as its 640-pixel plot can show apart: a three-hour steps session is 20 000 events, which
/// the page need neither hold at once nor draw one by one.
struct SessionCharts {
    /// The most points one chart keeps.
    static let maxPoints = 600
    /// The intensity chart's longest span: a session left open (or a clock that jumped) must not
    /// make a chart of years.
    static let maxMinutes = 24 * 60

    /// Seconds per point: the session's length over `maxPoints`.
    private let bucketSeconds: Double
    /// Every event gets a bar while the session has no more than `maxPoints`; beyond, each point
    /// is the highest of its time slot.
    private let barPerEvent: Bool
    /// The session's length in whole minutes, at most `maxMinutes`.
    private let minutes: Int
    /// Events added so far.
    private(set) var count = 0
    private(set) var bestHeightM: Double?
    private(set) var maxPeakG: Double?
    private var cumulative: [(x: Double, y: Double)] = [(0, 0)]
    private var cumulativeSlot: Int?
    private var heights: [(x: Double, y: Double)] = []
    private var heightSlot: Int?
    private var peaks: [(x: Double, y: Double)] = []
    private var peakSlot: Int?
    private var perMinute: [Int: Int] = [:]

    /// Charts for `session`, sized by its length and its stored event count.
    init(_ session: SessionInfo, now: Date = Date()) {
        let seconds = (session.endedAt ?? now).timeIntervalSince(session.startedAt)
        bucketSeconds = seconds.isFinite && seconds > 0 ? seconds / Double(Self.maxPoints) : 1
        barPerEvent = session.eventCounts.values.saturatingSum <= Self.maxPoints
        minutes = min(max(Int(saturating: seconds / 60), 0), Self.maxMinutes)
    }

    /// Adds the next page of events.
    mutating func add(_ events: [EventRecord]) {
        for event in events {
            count += 1
            let slot = Int(saturating: event.t / bucketSeconds)
            Self.put((event.t, Double(count)), slot: slot, into: &cumulative, last: &cumulativeSlot) { _, new in new }
            if let height = event.heightM {
                bestHeightM = max(bestHeightM ?? height, height)
                Self.put((event.t, height), slot: barPerEvent ? nil : slot, into: &heights, last: &heightSlot) {
                    $0.y >= $1.y ? $0 : $1
                }
            }
            if let peak = event.peakG {
                maxPeakG = max(maxPeakG ?? peak, peak)
                Self.put((event.t, peak), slot: barPerEvent ? nil : slot, into: &peaks, last: &peakSlot) {
                    $0.y >= $1.y ? $0 : $1
                }
            }
            perMinute[Int(saturating: event.t / 60), default: 0] += 1
        }
    }

    /// A point into its time slot: appended when the slot is new (or there are no slots), else
    /// merged with the slot's point.
    private static func put(
        _ point: (x: Double, y: Double), slot: Int?, into points: inout [(x: Double, y: Double)], last: inout Int?,
        merge: ((x: Double, y: Double), (x: Double, y: Double)) -> (x: Double, y: Double)
    ) {
        if let slot, slot == last, let previous = points.last {
            points[points.count - 1] = merge(previous, point)
        } else {
            points.append(point)
            last = slot
        }
    }

    /// The page's values: the figures and the SVG of each chart.
    var values: [String: Any] {
        var values: [String: Any] = [:]
        values["bestHeight"] = bestHeightM.map { String(format: "%.2f m", $0) }
        values["maxPeakG"] = maxPeakG.map { String(format: "%.1f g", $0) }
        values["chartCount"] =
            SVGChart(title: "Events over time", xUnit: "s", yUnit: "events", style: .line, points: cumulative).svg
        let slot = barPerEvent ? "" : " (highest per \(String(format: "%.0f", bucketSeconds.rounded(.up))) s)"
        if !heights.isEmpty {
            values["chartValue"] =
                SVGChart(title: "Height per event" + slot, xUnit: "s", yUnit: "m", style: .bars, points: heights).svg
        } else if !peaks.isEmpty {
            values["chartValue"] =
                SVGChart(title: "Peak g per hit" + slot, xUnit: "s", yUnit: "g", style: .bars, points: peaks).svg
        }
        let lastMinute = min(max(minutes, perMinute.keys.max() ?? 0), Self.maxMinutes)
        let intensity = (0...max(lastMinute, 0)).map { (x: Double($0), y: Double(perMinute[$0] ?? 0)) }
        values["chartIntensity"] =
            SVGChart(
                title: "Intensity: events per minute", xUnit: "min", yUnit: "events/min", style: .bars,
                points: intensity
            ).svg
        return values
    }
}
