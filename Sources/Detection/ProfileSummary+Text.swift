// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

extension ProfileSummary {
    /// The summary as one line of JSON: `profile` first, then `fields` with their fixed decimals
    /// (`null` when not finite). What `analyze --summary` prints and `show --json` embeds.
    public var jsonLine: String {
        var text = "{\"profile\":\"\(profile.rawValue)\""
        for field in fields {
            text +=
                ",\"\(field.name)\":"
                + (field.value.isFinite ? SampleCSV.fixed(field.value, decimals: field.decimals) : "null")
        }
        return text + "}"
    }

    /// The summary as aligned `name  value` lines for people.
    public var table: String {
        var rows = [("profile", profile.rawValue)]
        for field in fields { rows.append((field.name, SampleCSV.fixed(field.value, decimals: field.decimals))) }
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0 + String(repeating: " ", count: width - $0.0.count + 2) + $0.1 }.joined(separator: "\n")
    }
}
