// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// The JSON lines `sportsensorctl analyze` prints (and the daemon will stream): one object per event,
/// fixed decimals, keys in a fixed order, no Foundation.
///
/// Times have 4 decimals (0.1 ms: takeoff and landing are interpolated between samples), g values
/// 3 decimals, heights 3 decimals (mm).
public enum EventJSON {
    /// One event as a single-line JSON object.
    public static func line(_ event: DetectorEvent) -> String {
        switch event {
        case .hit(let hit):
            return "{\"type\":\"hit\",\"t\":\(fixed(hit.t, 4)),\"peak_g\":\(fixed(hit.peakG, 3)),"
                + "\"saturated\":\(hit.saturated),\"intensity_g\":\(fixed(hit.intensityG, 3))}"
        case .jump(let flight):
            return "{\"type\":\"jump\",\"takeoff\":\(fixed(flight.start, 4)),\"landing\":\(fixed(flight.end, 4)),"
                + "\"flight_s\":\(fixed(flight.flightTime, 4)),\"height_m\":\(fixed(flight.height, 3))}"
        case .throw(let flight):
            return "{\"type\":\"throw\",\"release\":\(fixed(flight.start, 4)),\"catch\":\(fixed(flight.end, 4)),"
                + "\"flight_s\":\(fixed(flight.flightTime, 4)),\"height_m\":\(fixed(flight.height, 3))}"
        case .step(let step):
            return "{\"type\":\"step\",\"t\":\(fixed(step.t, 4)),\"cadence_spm\":\(fixed(step.cadence, 1))}"
        }
    }

    /// A summary as a single-line JSON object: `profile` first, then `ProfileSummary.fields`.
    public static func summary(_ summary: ProfileSummary) -> String {
        var text = "{\"profile\":\"\(summary.profile.rawValue)\""
        for field in summary.fields {
            text += ",\"\(field.name)\":\(fixed(field.value, field.decimals))"
        }
        return text + "}"
    }

    /// A summary as aligned `name  value` lines for people.
    public static func table(_ summary: ProfileSummary) -> String {
        var rows = [("profile", summary.profile.rawValue)]
        for field in summary.fields { rows.append((field.name, fixed(field.value, field.decimals))) }
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0 + String(repeating: " ", count: width - $0.0.count + 2) + $0.1 }.joined(separator: "\n")
    }

    static func fixed(_ value: Double, _ decimals: Int) -> String {
        value.isFinite ? SampleCSV.fixed(value, decimals: decimals) : "null"
    }
}
