// SPDX-License-Identifier: GPL-2.0-or-later

/// Which flagged events may set a best: the one rule behind the summary's bests and so behind
/// personal bests, leaderboards, `record` milestones and reports, which all rank summaries.
/// Docs/METRICS.md ("Flagged events and bests") gives the reason for each choice.
extension SummaryMetric {
    /// The quality flags that keep an event from setting this metric (its other numbers, counts
    /// and loads still take it in). A flag is here when it can make a non-event or a value above
    /// the true one; a flag that only makes a value a lower bound or a few ms less exact is not.
    public var excludingFlags: EventQuality {
        switch self {
        // Peaks are measured samples: a clip or a gap can only hide the top (a lower bound). Too
        // slow a rate lets a table tap's one sample weigh in the stroke envelope like a swing.
        case .maxPeakG: [.rateTooLow]
        // The clip estimate is what this metric is for (its error is in DETECTION.md), but a gap
        // inside the clipped stretch lengthens it and so raises the estimate.
        case .maxIntensityG: [.rateTooLow, .sampleGap]
        // Heights: a low floor margin may be arm motion taken for a flight; a gap may hold an edge
        // (flight time too long); a slow rate is ±5 cm at 25 Hz. `clipped` and `edge_fallback`
        // edges are a few ms less exact, within the unflagged error on the validation kit.
        case .bestHeightM, .bestThrowHeightM, .bestRsi: [.lowFloorMargin, .rateTooLow, .sampleGap]
        // Counts and loads: every event counts.
        case .hits, .jumps, .throws, .steps, .playerload, .playerloadPerMin, .activeS, .kcal: []
        }
    }

    /// Whether an event flagged `quality` may set this metric.
    @inlinable public func admits(_ quality: EventQuality) -> Bool {
        quality.isDisjoint(with: excludingFlags)
    }
}

extension QualityFlag {
    /// The flags worth showing a coach on a live event of `kind` (the board's "Last event" line):
    /// those that change what to trust. For hits, jumps and throws that is a flag keeping the event
    /// out of a best of its kind (`SummaryMetric.excludingFlags`, one rule for both), so `clipped`
    /// on a hard stroke, normal at ±2 g and covered by the intensity estimate, is not shown. Steps
    /// have no best: there a slow rate or a gap means steps may have been missed, so the count is
    /// what to doubt. A hit's `side_unsure` is shown too: no side is given, and the racket hand or the
    /// sensor may be wrong.
    public static func shownToCoach(for kind: EventKind) -> EventQuality {
        let metrics: [SummaryMetric]
        var shown = EventQuality()
        switch kind {
        case .hit:
            metrics = [.maxPeakG, .maxIntensityG]
            shown = .sideUnsure
        case .jump: metrics = [.bestHeightM, .bestRsi]
        case .throw: metrics = [.bestThrowHeightM]
        case .step: return [.rateTooLow, .sampleGap]
        }
        return metrics.reduce(into: shown) { $0.formUnion($1.excludingFlags) }
    }
}
