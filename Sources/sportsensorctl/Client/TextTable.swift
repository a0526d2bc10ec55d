// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol

/// A plain-text table with aligned columns: what the client commands print without `--json`.
struct TextTable: Sendable {
    /// How a column aligns.
    enum Alignment: Sendable {
        case left
        case right
    }

    /// The column headings.
    var headers: [String]
    /// Each column's alignment (left when missing).
    var alignments: [Alignment]
    /// The rows; a short row is padded with empty cells.
    var rows: [[String]] = []
    /// False for a key/value listing without a heading line.
    var showsHeaders = true
    /// Each column's least width (0 when missing): rows printed one at a time (a piped `tail`) line
    /// up as long as their cells fit, and a redrawn table does not shift with every new value.
    var minimumWidths: [Int] = []

    /// A table with these headings.
    init(_ headers: [String], alignments: [Alignment] = []) {
        self.headers = headers
        self.alignments = alignments
    }

    /// Appends a row.
    mutating func append(_ row: [String]) { rows.append(row) }

    /// The table, two spaces between columns, no trailing spaces, each line ending in "\n";
    /// control characters in cells are shown escaped.
    var rendered: String {
        let all = (showsHeaders ? [headers] + rows : rows).map { $0.map { TerminalText.escaped($0) } }
        var widths = headers.indices.map { $0 < minimumWidths.count ? minimumWidths[$0] : 0 }
        for row in all {
            for (column, cell) in row.prefix(headers.count).enumerated() {
                widths[column] = max(widths[column], cell.count)
            }
        }
        var output = ""
        for row in all {
            var cells: [String] = []
            for column in headers.indices {
                let cell = column < row.count ? row[column] : ""
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                let alignment = column < alignments.count ? alignments[column] : .left
                cells.append(alignment == .right ? padding + cell : cell + padding)
            }
            var line = cells.joined(separator: "  ")
            while line.last == " " { line.removeLast() }
            output += line + "\n"
        }
        return output
    }
}
