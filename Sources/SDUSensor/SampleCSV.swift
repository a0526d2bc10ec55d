// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors

/// The project's sample interchange format: CSV with the header `t,x,y,z`, one sample a line,
/// `t` in seconds and `x`, `y`, `z` in g with six decimals (see Docs/FORMATS.md).
///
/// Six decimals keep raw counts lossless: one count is 1/16384 g ≈ 0.000061 g, so rounding to
/// 0.000001 g moves a value by at most 0.008 counts and `round(g × 16384)` gives the count back.
public enum SampleCSV {
    /// The header line every file starts with.
    public static let header = "t,x,y,z"

    /// An error reading a sample CSV, naming the line.
    public struct ParseError: CodedError, Hashable, Sendable {
        /// What kind of mistake.
        public struct Code: NamedCode {
            /// The stable name.
            public let name: String
            /// The first line is not `t,x,y,z`.
            public static let missingHeader = Code(name: "missingHeader")
            /// A line does not have four numeric fields.
            public static let malformedLine = Code(name: "malformedLine")
            /// A time is smaller than the one before it.
            public static let timeNotMonotonic = Code(name: "timeNotMonotonic")
        }

        /// What kind of mistake.
        public var code: Code
        /// 1-based line number in the file.
        public var line: Int
        /// What is wrong with the line.
        public var message: String

        /// `line N`.
        public var location: String? { "line \(line)" }
    }

    /// Formats one sample as a CSV line (without the newline).
    public static func line(t: Double, x: Double, y: Double, z: Double) -> String {
        "\(fixed(t, decimals: 6)),\(fixed(x, decimals: 6)),\(fixed(y, decimals: 6)),\(fixed(z, decimals: 6))"
    }

    /// The sensor count (16384 per g) a CSV value stands for, when it lies within 0.01 count of a
    /// whole one: what this writer makes of a count (six decimals move it by at most 0.008 counts).
    public static func wholeCount(_ g: Double) -> Int16? {
        let exact = g * 16384
        let count = exact.rounded()
        guard count >= Double(Int16.min), count <= Double(Int16.max), abs(exact - count) <= 0.01 else { return nil }
        return Int16(count)
    }

    /// `g` as the detectors saw it live when it is a written count (`count / 16384`, which six
    /// decimals only approximate), else `g` as written: analysing an exported session then
    /// reproduces its live events bit for bit.
    public static func restoringCount(_ g: Double) -> Double {
        wholeCount(g).map { Double($0) / 16384 } ?? g
    }

    /// Formats one sample as a CSV line (without the newline).
    public static func line(_ sample: AccelerationSample) -> String {
        line(t: sample.t, x: sample.x, y: sample.y, z: sample.z)
    }

    /// Formats `value` with exactly `decimals` digits after the point, rounding half away from
    /// zero, without Foundation (whose formatting is locale- and platform-dependent).
    public static func fixed(_ value: Double, decimals: Int) -> String {
        precondition((0...9).contains(decimals))
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        var scale: Double = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9.0e18 else { return "\(value)" }
        let units = UInt64(scaled)
        let factor = UInt64(scale)
        let whole = units / factor
        let fraction = units % factor
        let negative = value < 0 && units != 0
        var text = negative ? "-" : ""
        text += String(whole)
        if decimals > 0 {
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: decimals - digits.count) + digits
        }
        return text
    }

    /// Parses a whole file. Blank lines and lines starting with `#` are skipped; `\r\n` line ends
    /// are accepted. Times must not decrease.
    public static func parse(_ text: String) throws(ParseError) -> [AccelerationSample] {
        var samples: [AccelerationSample] = []
        var reader = Reader()
        var lineNumber = 0
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            if let sample = try reader.consume(line: rawLine, number: lineNumber) { samples.append(sample) }
        }
        try reader.finish(lines: lineNumber)
        return samples
    }

    /// A streaming parser: feed lines in order with their 1-based numbers.
    public struct Reader: Sendable {
        private var sawHeader = false
        private var lastTime = -Double.infinity

        public init() {}

        /// Parses one line; returns nil for the header, blank lines and comments.
        public mutating func consume(line rawLine: Substring, number: Int) throws(ParseError) -> AccelerationSample? {
            var line = rawLine
            if line.last == "\r" { line = line.dropLast() }
            let trimmed = line.trimmingSpaces
            if trimmed.isEmpty || trimmed.first == "#" { return nil }
            if !sawHeader {
                let fields = trimmed.split(separator: ",").map { $0.trimmingSpaces.lowercased() }
                guard fields == ["t", "x", "y", "z"] else {
                    throw ParseError(
                        code: .missingHeader, line: number,
                        message: "expected the header `t,x,y,z`, found `\(trimmed.prefix(60))`"
                    )
                }
                sawHeader = true
                return nil
            }
            let fields = trimmed.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == 4 else {
                throw ParseError(
                    code: .malformedLine, line: number,
                    message: "expected 4 comma-separated fields t,x,y,z, found \(fields.count)"
                )
            }
            var values: [Double] = []
            values.reserveCapacity(4)
            for (index, field) in fields.enumerated() {
                guard let value = Double(field.trimmingSpaces), value.isFinite else {
                    let name = ["t", "x", "y", "z"][index]
                    throw ParseError(
                        code: .malformedLine, line: number,
                        message: "field \(name) is not a finite number: `\(field.prefix(40))`"
                    )
                }
                values.append(value)
            }
            guard values[0] >= lastTime else {
                throw ParseError(
                    code: .timeNotMonotonic, line: number,
                    message: "time \(values[0]) s is before the previous line's \(lastTime) s; sort the file by t"
                )
            }
            lastTime = values[0]
            return AccelerationSample(t: values[0], x: values[1], y: values[2], z: values[3])
        }

        /// Call after the last line: a file without even a header is an error.
        public func finish(lines: Int) throws(ParseError) {
            if !sawHeader {
                throw ParseError(code: .missingHeader, line: max(lines, 1), message: "empty file: expected `t,x,y,z`")
            }
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while let first = s.first, first == " " || first == "\t" { s = s.dropFirst() }
        while let last = s.last, last == " " || last == "\t" { s = s.dropLast() }
        return s
    }
}
