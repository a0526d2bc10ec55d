// SPDX-License-Identifier: GPL-2.0-or-later

/// The body of `POST /v1/sessions/import` parsed as it arrives, so the daemon never holds the
/// whole body nor a JSON tree of it: the `samples` array goes straight into `ImportSamples` (24
/// bytes a sample), and every other member, copied as JSON text of at most `fieldLimit` bytes,
/// is decoded at the end with the members' own `Codable` rules (`samples` then reads `[]`).
///
/// Pure: feed the bytes in order with `consume`, then call `finish`. The body must be one JSON
/// object; anything else is a `Failure` saying what and where.
public struct ImportBodyParser: Sendable {
    /// Why the body is not an import.
    public struct Failure: Error, Hashable, Sendable {
        /// What is wrong, for the 400 answer.
        public var message: String
    }

    private enum Token: Equatable {
        case punctuation(UInt8)
        case string([UInt8])
        case number([UInt8])
        case literal([UInt8])
    }

    private enum Lexer: Equatable {
        case idle
        case string(escaped: Bool)
        case number
        case literal
    }

    private enum Place: Equatable {
        case start
        case keyOrEnd
        case key
        case colon
        case copying(depth: Int)
        case afterMember
        case samplesOpen
        case rowOrEnd
        case row
        case numberOrEnd
        case number
        case afterNumber
        case afterRow
        case done
    }

    /// Bytes the members other than `samples` may take together, as JSON text.
    public let fieldLimit: Int
    /// The samples so far.
    public private(set) var samples = ImportSamples()
    /// The other members as one JSON object, so far.
    private var fields: [UInt8] = [UInt8(ascii: "{")]
    private var members = 0
    private var lexer = Lexer.idle
    private var token: [UInt8] = []
    private var place = Place.start
    private var key: [UInt8] = []
    private var row: [Double] = []
    private var offset = 0
    private static let samplesKey = Array("samples".utf8)
    /// Longest string or number token outside `fields`' limit (a key, a number).
    private static let tokenLimit = 1024

    /// A parser whose other members may take `fieldLimit` bytes.
    public init(fieldLimit: Int = 1 << 16) {
        self.fieldLimit = fieldLimit
        row.reserveCapacity(5)
    }

    /// Feeds the next bytes of the body.
    public mutating func consume(_ bytes: some Sequence<UInt8>) throws(Failure) {
        for byte in bytes {
            try feed(byte)
            offset += 1
        }
    }

    /// The other members as a JSON object (`"samples":[]` in place of the samples), and the
    /// samples; fails when the body ended early.
    public mutating func finish() throws(Failure) -> (fields: [UInt8], samples: ImportSamples) {
        switch lexer {
        case .number, .literal: try emit()
        case .string: throw fail("the body ends inside a string")
        case .idle: break
        }
        guard place == .done else {
            throw fail(place == .start ? "the body is empty: send one JSON object" : "the body ends before its object")
        }
        return (fields, samples)
    }

    private func fail(_ what: String) -> Failure {
        Failure(message: "not valid JSON at byte \(offset): \(what)")
    }

    private mutating func feed(_ byte: UInt8) throws(Failure) {
        switch lexer {
        case .string(let escaped):
            if byte == UInt8(ascii: "\"") && !escaped {
                lexer = .idle
                try handle(.string(token))
                token.removeAll(keepingCapacity: true)
                return
            }
            try take(byte)
            lexer = .string(escaped: !escaped && byte == UInt8(ascii: "\\"))
            return
        case .number:
            if Self.isNumberByte(byte) { return try take(byte) }
            try emit()
        case .literal:
            if Self.isLetter(byte) { return try take(byte) }
            try emit()
        case .idle: break
        }
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): return
        case UInt8(ascii: "\""): lexer = .string(escaped: false)
        case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: ":"),
            UInt8(ascii: ","):
            try handle(.punctuation(byte))
        case _ where byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte):
            lexer = .number
            try take(byte)
        case _ where Self.isLetter(byte):
            lexer = .literal
            try take(byte)
        default: throw fail("unexpected byte \(byte)")
        }
    }

    private mutating func take(_ byte: UInt8) throws(Failure) {
        let limit = place == .copying(depth: 0) || Self.isCopying(place) ? fieldLimit : Self.tokenLimit
        guard token.count < limit else { throw fail("a value longer than \(limit) bytes") }
        token.append(byte)
    }

    private mutating func emit() throws(Failure) {
        let value: Token = lexer == .number ? .number(token) : .literal(token)
        lexer = .idle
        try handle(value)
        token.removeAll(keepingCapacity: true)
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e")
            || byte == UInt8(ascii: "E")
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    private static func isCopying(_ place: Place) -> Bool {
        if case .copying = place { return true }
        return false
    }

    private mutating func handle(_ token: Token) throws(Failure) {
        switch (place, token) {
        case (.start, .punctuation(UInt8(ascii: "{"))): place = .keyOrEnd
        case (.keyOrEnd, .punctuation(UInt8(ascii: "}"))): try close()
        case (.keyOrEnd, .string(let name)), (.key, .string(let name)):
            key = name
            place = .colon
        case (.colon, .punctuation(UInt8(ascii: ":"))):
            if key == Self.samplesKey {
                place = .samplesOpen
            } else {
                try beginMember(key)
                place = .copying(depth: 0)
            }
        case (.copying(let depth), _): try copy(token, depth: depth)
        case (.afterMember, .punctuation(UInt8(ascii: ","))): place = .key
        case (.afterMember, .punctuation(UInt8(ascii: "}"))): try close()
        case (.samplesOpen, .punctuation(UInt8(ascii: "["))): place = .rowOrEnd
        case (.samplesOpen, _): throw Failure(message: "field 'samples' must be an array of [index, t, x, y, z] rows")
        case (.rowOrEnd, .punctuation(UInt8(ascii: "]"))), (.afterRow, .punctuation(UInt8(ascii: "]"))):
            try beginMember(Self.samplesKey)
            try append(Array("[]".utf8))
            place = .afterMember
        case (.rowOrEnd, .punctuation(UInt8(ascii: "["))), (.row, .punctuation(UInt8(ascii: "["))):
            row.removeAll(keepingCapacity: true)
            place = .numberOrEnd
        case (.afterRow, .punctuation(UInt8(ascii: ","))): place = .row
        case (.numberOrEnd, .number(let text)), (.number, .number(let text)):
            guard row.count < 5, let value = Double(String(decoding: text, as: UTF8.self)) else {
                throw Failure(message: ImportSample.invalidRow(samples.count + 1))
            }
            row.append(value)
            place = .afterNumber
        case (.afterNumber, .punctuation(UInt8(ascii: ","))): place = .number
        case (.afterNumber, .punctuation(UInt8(ascii: "]"))), (.numberOrEnd, .punctuation(UInt8(ascii: "]"))):
            guard let sample = ImportSample(row: row) else {
                throw Failure(message: ImportSample.invalidRow(samples.count + 1))
            }
            samples.append(sample)
            place = .afterRow
        case (.numberOrEnd, _), (.number, _), (.afterNumber, _), (.row, _), (.rowOrEnd, _), (.afterRow, _):
            throw Failure(message: ImportSample.invalidRow(samples.count + 1))
        case (.done, _): throw fail("more after the body's object")
        case (.start, _): throw fail("the body must be a JSON object")
        default: throw fail("unexpected \(Self.describe(token))")
        }
    }

    /// Appends one token of another member's value; nested arrays and objects are followed.
    private mutating func copy(_ token: Token, depth: Int) throws(Failure) {
        switch token {
        case .string(let text):
            try append([UInt8(ascii: "\"")] + text + [UInt8(ascii: "\"")])
            place = depth == 0 ? .afterMember : .copying(depth: depth)
        case .number(let text), .literal(let text):
            try append(text)
            place = depth == 0 ? .afterMember : .copying(depth: depth)
        case .punctuation(let byte):
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                place = .copying(depth: depth + 1)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard depth > 0 else { throw fail("unexpected \(Self.describe(token))") }
                place = depth == 1 ? .afterMember : .copying(depth: depth - 1)
            default:
                guard depth > 0 else { throw fail("unexpected \(Self.describe(token))") }
            }
            try append([byte])
        }
    }

    private mutating func beginMember(_ name: [UInt8]) throws(Failure) {
        if members > 0 { try append([UInt8(ascii: ",")]) }
        members += 1
        try append([UInt8(ascii: "\"")] + name + Array("\":".utf8))
    }

    private mutating func append(_ bytes: [UInt8]) throws(Failure) {
        guard fields.count + bytes.count <= fieldLimit else {
            throw Failure(message: "the fields other than 'samples' take more than \(fieldLimit) bytes")
        }
        fields += bytes
    }

    private mutating func close() throws(Failure) {
        try append([UInt8(ascii: "}")])
        place = .done
    }

    private static func describe(_ token: Token) -> String {
        switch token {
        case .punctuation(let byte): "'\(Character(Unicode.Scalar(byte)))'"
        case .string: "a string"
        case .number: "a number"
        case .literal(let text): "'\(String(decoding: text, as: UTF8.self))'"
        }
    }
}
