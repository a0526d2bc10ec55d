// SPDX-License-Identifier: GPL-2.0-or-later

/// A text cell of a CSV export (`/sessions.csv`, the leaderboard, `report --format csv`), written
/// so a spreadsheet neither splits it nor evaluates it. Numbers are written as they are, never
/// through here, so they stay numbers.
public enum CSVCell {
    /// What a spreadsheet reads as the start of a formula (OWASP's CSV-injection list).
    static let formulaStarts: Set<Character> = ["=", "+", "-", "@", "\t", "\r"]

    /// `text` as one cell: a leading formula character gets a `'` before it (the spreadsheet
    /// shows the text, not a result) and the cell is quoted; a cell holding a comma, a quote or a
    /// line break is quoted with its quotes doubled; anything else is written as is.
    public static func text(_ text: String) -> String {
        let defused = text.first.map { formulaStarts.contains($0) } == true ? "'" + text : text
        guard defused != text || text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
        else { return text }
        return "\"" + defused.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
