// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Testing

@Suite("CSVCell: text cells a spreadsheet neither splits nor evaluates")
struct CSVCellTests {
    @Test(
        "a leading =, +, -, @, tab or CR gets a quote mark and the cell is quoted (OWASP's CSV-injection rule)",
        arguments: [
            ("=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\""), ("+1", "\"'+1\""),
            ("-anna", "\"'-anna\""), ("@SUM(A1)", "\"'@SUM(A1)\""), ("\tx", "\"'\tx\""), ("\rx", "\"'\rx\""),
        ])
    func formulas(_ text: String, _ cell: String) {
        #expect(CSVCell.text(text) == cell)
    }

    @Test(
        "plain text stays as it is; commas, quotes and line breaks are quoted",
        arguments: [
            ("Anna", "Anna"), ("Zoë_2", "Zoë_2"), ("", ""), ("a,b", "\"a,b\""), ("say \"hi\"", "\"say \"\"hi\"\"\""),
            ("a\nb", "\"a\nb\""), ("anna-left", "anna-left"),
        ])
    func plain(_ text: String, _ cell: String) {
        #expect(CSVCell.text(text) == cell)
    }
}
