// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation

/// Where each key of a TOML text is, by scanning its lines: the parser reports positions of
/// syntax errors only, and a semantic error must still name its line. Keys are read as TOML
/// spells them (bare, `"basic"` with its escapes, `'literal'`, dotted), so a quoted key holding an
/// escape is found on its own line, not on its section's.
struct TOMLKeyLines {
    private var lineOfKey: [String: Int] = [:]

    init(text: String) {
        var section: [String] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = Substring(raw.trimmingCharacters(in: .whitespaces))
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                line = line.drop { $0 == "[" }
                guard let parts = Self.key(&line) else { continue }
                section = parts
                let name = section.joined(separator: ".")
                if lineOfKey[name] == nil { lineOfKey[name] = number + 1 }
                continue
            }
            guard let parts = Self.key(&line), line.first == "=" else { continue }
            let full = (section + parts).joined(separator: ".")
            if lineOfKey[full] == nil { lineOfKey[full] = number + 1 }
        }
    }

    /// The line of `key`, else of its nearest enclosing section; nil when neither appears.
    func line(of key: String) -> Int? {
        var parts = key.split(separator: ".").map(String.init)
        while !parts.isEmpty {
            if let line = lineOfKey[parts.joined(separator: ".")] { return line }
            parts.removeLast()
        }
        return nil
    }

    /// Reads a (dotted) key from the start of `text`, leaving what follows it; nil when there is
    /// none.
    static func key(_ text: inout Substring) -> [String]? {
        var parts: [String] = []
        while true {
            text = text.drop { $0 == " " || $0 == "\t" }
            guard let part = simpleKey(&text) else { return nil }
            parts.append(part)
            text = text.drop { $0 == " " || $0 == "\t" }
            guard text.first == "." else { return parts }
            text = text.dropFirst()
        }
    }

    private static func simpleKey(_ text: inout Substring) -> String? {
        switch text.first {
        case "\"":
            text = text.dropFirst()
            var out = ""
            while let character = text.first {
                text = text.dropFirst()
                if character == "\"" { return out }
                guard character == "\\", let escape = text.first else {
                    out.append(character)
                    continue
                }
                text = text.dropFirst()
                switch escape {
                case "b": out += "\u{8}"
                case "t": out += "\t"
                case "n": out += "\n"
                case "f": out += "\u{C}"
                case "r": out += "\r"
                case "e": out += "\u{1B}"
                case "u", "U":
                    let digits = escape == "u" ? 4 : 8
                    guard let value = UInt32(text.prefix(digits), radix: 16), let scalar = Unicode.Scalar(value)
                    else { return nil }
                    text = text.dropFirst(digits)
                    out.unicodeScalars.append(scalar)
                default: out.append(escape)
                }
            }
            return nil
        case "'":
            text = text.dropFirst()
            guard let end = text.firstIndex(of: "'") else { return nil }
            let literal = String(text[..<end])
            text = text[text.index(after: end)...]
            return literal
        default:
            let bare = text.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
            guard !bare.isEmpty else { return nil }
            text = text.dropFirst(bare.count)
            return String(bare)
        }
    }
}
