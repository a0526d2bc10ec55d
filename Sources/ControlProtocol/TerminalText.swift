// SPDX-License-Identifier: GPL-2.0-or-later
/// The one escaping of text printed to a terminal: a name stored before names were checked, an
/// argument, a key in a configuration file or a daemon's error must not move the cursor, clear
/// the screen or ring. Every control or invisible formatting character (ESC, BEL, CR, NUL, C1
/// controls, direction overrides) is shown in Swift's notation, `\u{1B}`, so what was there can
/// still be read; line breaks and tabs are kept only where a caller prints a layout of lines.
///
/// Used by every message `sportsensorctl` prints on standard error (`writeStandardError`,
/// ArgumentParser's errors in `SportsensorCtl.main`), its human-readable answers
/// (`ClientOptions.output`, `StoreFormat.write`, tables), and the configuration errors
/// `sportsensord` prints.
public enum TerminalText {
    /// `text` with every control or invisible formatting character shown as `\u{1B}`; with
    /// `keepingLayout`, `\n` and `\t` stay as they are.
    public static func escaped(_ text: String, keepingLayout: Bool = false) -> String {
        func escapes(_ scalar: Unicode.Scalar) -> Bool {
            NameRules.isUnprintable(scalar) && !(keepingLayout && (scalar == "\n" || scalar == "\t"))
        }
        guard text.unicodeScalars.contains(where: escapes) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if escapes(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
