// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol

/// Text from the daemon or the store made safe to print: a name stored before names were checked
/// (or written into the database by hand) must not move the cursor, clear the screen or ring.
enum TerminalText {
    /// `text` with every control or invisible formatting character shown as `\u{1B}`.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: NameRules.isUnprintable) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if NameRules.isUnprintable(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
