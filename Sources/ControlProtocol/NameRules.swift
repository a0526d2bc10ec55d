// SPDX-License-Identifier: GPL-2.0-or-later

/// What a name people give (a sensor's alias, an athlete's name) may be: every entry point
/// checks it here, so a name that reaches the store prints safely in a terminal, a CSV and a
/// web page.
public enum NameRules {
    /// The longest name, in characters.
    public static let maximumLength = 64

    /// What is wrong with `name`, or nil when it is acceptable.
    public static func problem(with name: String) -> String? {
        if name.count > maximumLength {
            return "is \(name.count) characters long; the limit is \(maximumLength)"
        }
        if let scalar = name.unicodeScalars.first(where: isUnprintable) {
            let code = String(scalar.value, radix: 16, uppercase: true)
            return "contains the control character U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code)"
        }
        return nil
    }

    /// Throws a 400 that names the field, the problem and the fix.
    public static func check(_ name: String, field: String) throws(ControlError) {
        guard let problem = problem(with: name) else { return }
        throw ControlError(
            .invalidRequest, "the \(field) \(problem)",
            fix: "use up to \(maximumLength) printable characters (letters, digits, spaces, - and _)")
    }

    /// Control and invisible formatting characters: escape sequences, BEL, CR/LF, NUL, and
    /// direction overrides that reorder what a terminal shows.
    public static func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }
}
