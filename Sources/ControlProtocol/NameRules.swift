// SPDX-License-Identifier: GPL-2.0-or-later

/// What a name people give (a sensor's alias, an athlete's or a team's name) may be: up to 64
/// letters, digits, spaces, `-` and `_`. Every entry point checks it here, so a name that reaches
/// the store prints safely in a terminal, a CSV and a web page.
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
        if let character = name.first(where: { !isAllowed($0) }) {
            return "contains '\(character)'; a name holds only letters, digits, spaces, - and _"
        }
        return nil
    }

    /// Letters of any script (with their accents), digits, space, `-` and `_`: nothing a shell,
    /// a spreadsheet or a page could read as syntax (`=`, `+`, `@`, quotes, `<`).
    public static func isAllowed(_ character: Character) -> Bool {
        if character == " " || character == "-" || character == "_" { return true }
        guard let first = character.unicodeScalars.first else { return false }
        let base: Bool =
            switch first.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                .decimalNumber:
                true
            default: false
            }
        // What follows the base scalar in one character may only be a combining mark (ë as e + ¨).
        return base
            && character.unicodeScalars.dropFirst().allSatisfy { scalar in
                switch scalar.properties.generalCategory {
                case .nonspacingMark, .spacingMark, .enclosingMark: true
                default: false
                }
            }
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
