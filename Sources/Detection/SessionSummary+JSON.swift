// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

extension SessionSummary: Codable {
    /// One member: its key, its value and the decimals a number is written with.
    enum Member {
        case text(String?)
        case count(Int?)
        case number(Double?, decimals: Int)
    }

    /// The keys in the order every output writes them.
    var members: [(key: String, value: Member)] {
        [
            ("profile", .text(profile)),
            ("duration_s", .number(durationS, decimals: 3)),
            ("recorded_s", .number(recordedS, decimals: 3)),
            ("active_s", .number(activeS, decimals: 3)),
            ("samples", .count(samples)),
            ("clipped_samples", .count(clippedSamples)),
            ("gaps", .count(gaps)),
            ("playerload", .number(playerload, decimals: 3)),
            ("playerload_per_min", .number(playerloadPerMin, decimals: 3)),
            ("enmo_mg", .number(enmoMg, decimals: 1)),
            ("mad_mg", .number(madMg, decimals: 1)),
            ("sedentary_s", .number(sedentaryS, decimals: 3)),
            ("light_s", .number(lightS, decimals: 3)),
            ("moderate_s", .number(moderateS, decimals: 3)),
            ("vigorous_s", .number(vigorousS, decimals: 3)),
            ("met_min", .number(metMin, decimals: 4)),
            ("kcal", .number(kcal, decimals: 2)),
            ("kcal_note", .text(kcalNote)),
            ("hits", .count(hits)),
            ("hits_per_min", .number(hitsPerMin, decimals: 2)),
            ("max_peak_g", .number(maxPeakG, decimals: 3)),
            ("mean_peak_g", .number(meanPeakG, decimals: 3)),
            ("last_peak_g", .number(lastPeakG, decimals: 3)),
            ("saturated_hits", .count(saturatedHits)),
            ("max_intensity_g", .number(maxIntensityG, decimals: 3)),
            ("forehand_hits", .count(forehandHits)),
            ("backhand_hits", .count(backhandHits)),
            ("forehand_max_peak_g", .number(forehandMaxPeakG, decimals: 3)),
            ("backhand_max_peak_g", .number(backhandMaxPeakG, decimals: 3)),
            ("forehand_max_intensity_g", .number(forehandMaxIntensityG, decimals: 3)),
            ("backhand_max_intensity_g", .number(backhandMaxIntensityG, decimals: 3)),
            ("jumps", .count(jumps)),
            ("jumps_per_min", .number(jumpsPerMin, decimals: 2)),
            ("best_height_m", .number(bestHeightM, decimals: 3)),
            ("mean_height_m", .number(meanHeightM, decimals: 3)),
            ("best_rsi", .number(bestRsi, decimals: 3)),
            ("throws", .count(`throws`)),
            ("best_throw_height_m", .number(bestThrowHeightM, decimals: 3)),
            ("steps", .count(steps)),
            ("cadence_spm", .number(cadenceSpm, decimals: 1)),
            ("flagged_events", .count(flaggedEvents)),
        ] + QualityFlag.allCases.map { (Self.qualityKey($0), .count(qualityCounts[$0] ?? 0)) }
    }

    /// The key counting events flagged `flag`: `quality_` and the flag's name.
    static func qualityKey(_ flag: QualityFlag) -> String { "quality_" + flag.rawValue }

    /// The summary as one line of JSON, keys in a fixed order, numbers with fixed decimals, `null`
    /// for what does not apply. What `analyze --summary` prints and `show --json` embeds.
    public var jsonLine: String {
        var text = "{"
        for (index, member) in members.enumerated() {
            if index > 0 { text += "," }
            text += "\"\(member.key)\":"
            switch member.value {
            case .text(let value): text += value.map(EventRecord.quoted) ?? "null"
            case .count(let value): text += value.map { "\($0)" } ?? "null"
            case .number(let value, let decimals):
                if let value, value.isFinite {
                    text += SampleCSV.fixed(value, decimals: decimals)
                } else {
                    text += "null"
                }
            }
        }
        return text + "}"
    }

    /// The summary as aligned `name  value` lines for people (`-` for null).
    public var table: String {
        let rows = members.map { member -> (String, String) in
            switch member.value {
            case .text(let value): (member.key, value ?? "-")
            case .count(let value): (member.key, value.map { "\($0)" } ?? "-")
            case .number(let value, let decimals):
                (member.key, value.flatMap { $0.isFinite ? SampleCSV.fixed($0, decimals: decimals) : nil } ?? "-")
            }
        }
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0 + String(repeating: " ", count: width - $0.0.count + 2) + $0.1 }.joined(separator: "\n")
    }

    /// Writes every member, nulls included, numbers rounded as `jsonLine` prints them.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: DetectionCodingKey.self)
        for member in members {
            let key = DetectionCodingKey(stringValue: member.key)
            switch member.value {
            case .text(let value): try container.encode(value, forKey: key)
            case .count(let value): try container.encode(value, forKey: key)
            case .number(let value, let decimals):
                try container.encode(value.flatMap { EventRecord.rounded($0, decimals: decimals) }, forKey: key)
            }
        }
    }

    /// Reads a summary whatever key strategy the decoder uses; unknown keys are ignored and missing
    /// ones keep their empty value, so a summary written by another version still reads.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: DetectionCodingKey.self)
        let found = LenientMembers(container)
        func number(_ key: String) throws -> Double? {
            try found[key].flatMap { try container.decodeIfPresent(Double.self, forKey: $0) }
        }
        func count(_ key: String) throws -> Int? {
            try found[key].flatMap { try container.decodeIfPresent(Int.self, forKey: $0) }
        }
        let profile = try found["profile"].flatMap { try container.decodeIfPresent(String.self, forKey: $0) }
        self.init(profile: profile ?? "")
        durationS = try number("duration_s") ?? 0
        recordedS = try number("recorded_s") ?? 0
        activeS = try number("active_s") ?? 0
        samples = try count("samples") ?? 0
        clippedSamples = try count("clipped_samples") ?? 0
        gaps = try count("gaps") ?? 0
        playerload = try number("playerload") ?? 0
        playerloadPerMin = try number("playerload_per_min")
        enmoMg = try number("enmo_mg")
        madMg = try number("mad_mg")
        sedentaryS = try number("sedentary_s") ?? 0
        lightS = try number("light_s") ?? 0
        moderateS = try number("moderate_s") ?? 0
        vigorousS = try number("vigorous_s") ?? 0
        metMin = try number("met_min") ?? 0
        kcal = try number("kcal")
        kcalNote = try found["kcal_note"].flatMap { try container.decodeIfPresent(String.self, forKey: $0) }
        hits = try count("hits")
        hitsPerMin = try number("hits_per_min")
        maxPeakG = try number("max_peak_g")
        meanPeakG = try number("mean_peak_g")
        lastPeakG = try number("last_peak_g")
        saturatedHits = try count("saturated_hits")
        maxIntensityG = try number("max_intensity_g")
        forehandHits = try count("forehand_hits")
        backhandHits = try count("backhand_hits")
        forehandMaxPeakG = try number("forehand_max_peak_g")
        backhandMaxPeakG = try number("backhand_max_peak_g")
        forehandMaxIntensityG = try number("forehand_max_intensity_g")
        backhandMaxIntensityG = try number("backhand_max_intensity_g")
        jumps = try count("jumps")
        jumpsPerMin = try number("jumps_per_min")
        bestHeightM = try number("best_height_m")
        meanHeightM = try number("mean_height_m")
        bestRsi = try number("best_rsi")
        `throws` = try count("throws")
        bestThrowHeightM = try number("best_throw_height_m")
        steps = try count("steps")
        cadenceSpm = try number("cadence_spm")
        flaggedEvents = try count("flagged_events") ?? 0
        for flag in QualityFlag.allCases {
            if let events = try count(Self.qualityKey(flag)), events > 0 { qualityCounts[flag] = events }
        }
    }
}
