// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation

/// A session summary (Docs/METRICS.md) as the session page shows it: load, intensity bands,
/// energy and the profile's own figures; absent figures are left out.
enum SummaryRows {
    static func values(_ summary: SessionSummary) -> [String: Any] {
        func seconds(_ value: Double) -> String {
            String(format: "%d:%02d", Int(saturating: value) / 60, Int(saturating: value) % 60)
        }
        var figures: [(String, String?)] = [
            ("PlayerLoad", String(format: "%.1f", summary.playerload)),
            ("PlayerLoad / min", summary.playerloadPerMin.map { String(format: "%.2f", $0) }),
            ("Active", seconds(summary.activeS)),
            ("Energy", summary.kcal.map { String(format: "%.0f kcal", $0) }),
            ("Mean hit", summary.meanPeakG.map { String(format: "%.1f g", $0) }),
            ("Hits per minute", summary.hitsPerMin.map { String(format: "%.1f", $0) }),
            ("Forehand / backhand", sides(summary.forehandHits, summary.backhandHits) { "\($0)" }),
            (
                "Hardest forehand / backhand",
                sides(summary.forehandMaxIntensityG, summary.backhandMaxIntensityG) { String(format: "%.1f g", $0) }
            ),
            ("Mean height", summary.meanHeightM.map { String(format: "%.2f m", $0) }),
            ("Best RSI", summary.bestRsi.map { String(format: "%.2f", $0) }),
            ("Best throw", summary.bestThrowHeightM.map { String(format: "%.2f m", $0) }),
            ("Cadence", summary.cadenceSpm.map { String(format: "%.0f /min", $0) }),
        ]
        figures = figures.filter { $0.1 != nil }
        let bands = [
            ("sedentary", summary.sedentaryS), ("light", summary.lightS), ("moderate", summary.moderateS),
            ("vigorous", summary.vigorousS),
        ]
        let total = max(bands.map(\.1).reduce(0, +), 1e-9)
        var values: [String: Any] = [
            "hasSummary": true,
            "summaryFigures": figures.map { ["label": $0.0, "value": $0.1 ?? ""] },
            "bands": bands.map { name, value in
                ["name": name, "time": seconds(value), "share": String(format: "%.0f", value / total * 100)]
            },
        ]
        if summary.kcal == nil, let note = summary.kcalNote { values["kcalNote"] = note }
        return values
    }

    /// `forehand / backhand`, `–` for a side without a value; nil when neither side has one.
    static func sides<Value>(_ forehand: Value?, _ backhand: Value?, _ text: (Value) -> String) -> String? {
        guard forehand != nil || backhand != nil else { return nil }
        return (forehand.map(text) ?? "–") + " / " + (backhand.map(text) ?? "–")
    }
}
