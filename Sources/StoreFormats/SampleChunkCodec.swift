// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors
import SDUSensor

/// The compressed form of a run of samples as the store keeps it in one BLOB (see Docs/FORMATS.md,
/// "Stored sample chunks").
///
/// Counts and sample indices round-trip exactly for any input. Times that are all whole microseconds
/// (what `StoreTime.microseconds` makes, so every time the gateway and imports record) round-trip
/// exactly too: they are kept as integers on a linear base in microseconds, however the samples are
/// cut into chunks. Other times are kept as a linear base in seconds plus a whole-microsecond
/// residual (within 0.5 µs), or, when that cannot hold them (not finite, or more than about 12 days
/// off the line), as raw `Double`s.
///
/// New chunks are written in format version 3: each axis is predicted per block of 32 samples by the
/// best of eight fixed predictors and the residuals are coded with an adaptive binary range coder
/// whose model follows the residuals' running magnitude. Version 2 has the same sample data without
/// the microsecond time modes; version 1 chunks (the predictors' first four, Rice codes per block)
/// are still decoded.
public enum SampleChunkCodec {
    /// The format version `encode` writes in the first byte.
    public static let version: UInt8 = 3
    /// The format versions `decode` reads.
    public static let readableVersions: ClosedRange<UInt8> = 1...3
    /// Samples per block: the unit a predictor (and, in version 1, a Rice parameter) is chosen for.
    public static let blockLength = 32

    /// Why a BLOB could not be decoded.
    public struct DecodeError: CodedError, Hashable, Sendable {
        /// What went wrong.
        public struct Code: NamedCode {
            public let name: String
            /// The BLOB ends before the data its header announces.
            public static let truncated = Code(name: "truncated")
            /// The version byte is not one this build reads.
            public static let unknownVersion = Code(name: "unknownVersion")
            /// A field holds a value the format does not allow.
            public static let malformed = Code(name: "malformed")
        }

        /// The kind of failure.
        public var code: Code
        /// What was found, naming the fix where there is one.
        public var message: String
    }

    /// The chunk's samples summarised, as the store's columns keep them next to the BLOB.
    public struct Summary: Hashable, Sendable {
        /// Number of samples.
        public var count: Int
        /// Index of the first sample.
        public var firstIndex: Int64
        /// Time of the first sample, seconds.
        public var firstTime: Double
        /// Seconds per sample index on the chunk's linear time base.
        public var timeStep: Double
    }

    // MARK: Encoding

    /// Encodes samples (any number, including none). Indices need not be contiguous.
    public static func encode(_ samples: some Collection<IndexedSample>) -> [UInt8] {
        var out: [UInt8] = []
        encode(Array(samples), into: &out)
        return out
    }

    /// The linear time base the encoder fits to these samples.
    public static func summary(of samples: [IndexedSample]) -> Summary {
        summary(count: samples.count, first: samples.first, last: samples.last)
    }

    /// The same from all it depends on: how many samples, the first and the last (`ChunkExtent`).
    static func summary(count: Int, first: IndexedSample?, last: IndexedSample?) -> Summary {
        guard let first, let last else { return Summary(count: 0, firstIndex: 0, firstTime: 0, timeStep: 0) }
        let span = last.index &- first.index
        let step = span > 0 ? (last.t - first.t) / Double(span) : 0
        return Summary(count: count, firstIndex: first.index, firstTime: first.t, timeStep: step.isFinite ? step : 0)
    }

    /// True when `encode` keeps these samples' times bit for bit as whole microseconds (format 3's
    /// integer line): every time is a whole microsecond within about ±142 years and on a line
    /// whose residuals stay below 10¹² µs. Times the gateway and imports record always are.
    public static func keepsTimesExactly(_ samples: [IndexedSample]) -> Bool {
        MicrosecondLine(samples) != nil
    }

    /// Appends the encoding of `samples` to `out`, in format version `version`.
    public static func encode(_ samples: [IndexedSample], into out: inout [UInt8]) {
        encode(samples, version: version, into: &out)
    }

    /// Appends the encoding of `samples` in format `version` (2 or 3; 2 only to make fixtures: it
    /// differs from 3 in its times alone).
    static func encode(_ samples: [IndexedSample], version: UInt8, into out: inout [UInt8]) {
        precondition(version >= 2, "format 1 is only read (its writer is the tests')")
        let timeResiduals = encodeHeader(samples, version: version, into: &out)
        encodeFormat2Body(samples, timeResiduals: timeResiduals, into: &out)
    }

    /// Appends the header every version shares (version, count, first index, index gaps, times)
    /// and returns the time residuals the body carries, if any.
    static func encodeHeader(_ samples: [IndexedSample], version: UInt8, into out: inout [UInt8]) -> [Int64]? {
        out.append(version)
        let summary = summary(of: samples)
        appendVarint(UInt64(samples.count), to: &out)
        appendVarint(zigzag(summary.firstIndex), to: &out)

        IndexGaps(of: samples).encode(into: &out)

        // Times: whole microseconds on an integer line (version 3), else a linear base in seconds
        // plus microsecond residuals, or raw doubles when neither can hold them.
        if version >= 3, let line = MicrosecondLine(samples) {
            out.append(line.isExact ? TimeMode.exactMicroseconds.rawValue : TimeMode.microseconds.rawValue)
            appendVarint(zigzag(line.first), to: &out)
            appendDouble(line.step, to: &out)
            return line.isExact ? nil : line.residuals
        }
        var residuals: [Int64] = []
        residuals.reserveCapacity(samples.count)
        var linear = true
        var exact = true
        for sample in samples {
            let base = summary.firstTime + Double(sample.index &- summary.firstIndex) * summary.timeStep
            let micro = ((sample.t - base) * 1e6).rounded()
            guard micro.isFinite, abs(micro) < 1e12 else {
                linear = false
                break
            }
            if micro != 0 { exact = false }
            residuals.append(Int64(micro))
        }
        let mode: TimeMode = linear ? (exact && version >= 2 ? .exactLinear : .linear) : .raw
        out.append(mode.rawValue)
        if mode == .raw {
            for sample in samples { appendDouble(sample.t, to: &out) }
        } else {
            appendDouble(summary.firstTime, to: &out)
            appendDouble(summary.timeStep, to: &out)
        }
        return mode == .linear ? residuals : nil
    }

    // MARK: Decoding

    /// Decodes a BLOB written by `encode` in any readable version. Never traps, whatever the bytes.
    public static func decode(_ bytes: [UInt8]) throws(DecodeError) -> [IndexedSample] {
        guard let blobVersion = bytes.first else { throw DecodeError(code: .truncated, message: "empty chunk") }
        guard readableVersions.contains(blobVersion) else {
            throw DecodeError(
                code: .unknownVersion,
                message: """
                    sample chunk format \(blobVersion) is not one this build reads \
                    (\(readableVersions.lowerBound)–\(readableVersions.upperBound)): upgrade sportsensord
                    """)
        }
        var cursor = 1
        let count64 = try readVarint(bytes, &cursor)
        // Version 1 spends at least one bit per axis and sample; version 2 at least one range-coder
        // decision per axis and sample, and a decision costs at least log2(4096 / 4065) > 1/92 bit,
        // so fewer than 256 samples per byte. A count beyond that is corrupt; refusing it here keeps
        // a bad header from allocating wildly (version 2 also allocates only as samples decode).
        let bound = blobVersion == 1 ? UInt64(bytes.count) * 8 / 3 : UInt64(bytes.count) * 256
        guard count64 <= bound else {
            throw DecodeError(
                code: .malformed, message: "sample count \(count64) exceeds what \(bytes.count) bytes hold")
        }
        let count = Int(count64)
        let firstIndex = unzigzag(try readVarint(bytes, &cursor))
        let gaps = try IndexGaps(parsing: bytes, &cursor, count: count)

        guard cursor < bytes.count, let mode = TimeMode(rawValue: bytes[cursor]), blobVersion >= mode.firstVersion
        else {
            throw DecodeError(code: cursor < bytes.count ? .malformed : .truncated, message: "bad time mode")
        }
        cursor += 1
        var times: [Double] = []
        var firstTime = 0.0
        var timeStep = 0.0
        var firstMicroseconds: Int64 = 0
        switch mode {
        case .linear, .exactLinear:
            firstTime = try readDouble(bytes, &cursor)
            timeStep = try readDouble(bytes, &cursor)
        case .microseconds, .exactMicroseconds:
            firstMicroseconds = unzigzag(try readVarint(bytes, &cursor))
            timeStep = try readDouble(bytes, &cursor)
            guard firstMicroseconds.magnitude <= MicrosecondLine.limit.magnitude, timeStep.isFinite else {
                throw DecodeError(code: .malformed, message: "microsecond time base out of range")
            }
        case .raw:
            guard (bytes.count - cursor) / 8 >= count else {
                throw DecodeError(code: .truncated, message: "chunk ends inside its raw times")
            }
            times.reserveCapacity(count)
            for _ in 0..<count { times.append(try readDouble(bytes, &cursor)) }
        }

        let hasResiduals = mode == .linear || mode == .microseconds
        let body =
            blobVersion == 1
            ? try decodeFormat1Body(bytes, start: cursor, count: count, timeResiduals: hasResiduals)
            : try decodeFormat2Body(bytes, start: cursor, count: count, timeResiduals: hasResiduals)

        var samples: [IndexedSample] = []
        samples.reserveCapacity(count)
        var indices = gaps.indices(from: firstIndex)
        for position in 0..<count {
            let index = indices.index(at: position)
            let t: Double
            switch mode {
            case .linear: t = firstTime + Double(index &- firstIndex) * timeStep + Double(body.micro[position]) * 1e-6
            case .exactLinear: t = firstTime + Double(index &- firstIndex) * timeStep
            case .microseconds, .exactMicroseconds:
                guard
                    let base = MicrosecondLine.base(
                        first: firstMicroseconds, step: timeStep, offset: index &- firstIndex)
                else { throw DecodeError(code: .malformed, message: "sample time beyond the microsecond line's range") }
                let residual = mode == .microseconds ? body.micro[position] : 0
                t = Double(base &+ residual) / 1e6
            case .raw: t = times[position]
            }
            samples.append(IndexedSample(index: index, t: t, raw: body.counts[position]))
        }
        return samples
    }

    // MARK: Format internals

    enum TimeMode: UInt8 {
        /// A linear base and a microsecond residual per sample.
        case linear = 0
        /// One double per sample.
        case raw = 1
        /// A linear base whose residuals are all zero (version 2 on): no time data in the stream.
        case exactLinear = 2
        /// Whole microseconds: an integer line plus an integer residual per sample (version 3 on).
        case microseconds = 3
        /// Whole microseconds exactly on the integer line (version 3 on): no time data in the stream.
        case exactMicroseconds = 4

        /// The first format version that has this mode.
        var firstVersion: UInt8 {
            switch self {
            case .linear, .raw: 1
            case .exactLinear: 2
            case .microseconds, .exactMicroseconds: 3
            }
        }
    }

    @inline(__always) static func zigzag32(_ value: Int32) -> UInt32 {
        UInt32(bitPattern: (value << 1) ^ (value >> 31))
    }

    @inline(__always) static func unzigzag32(_ value: UInt32) -> Int32 {
        Int32(bitPattern: value >> 1) ^ -Int32(bitPattern: value & 1)
    }

    @inline(__always) static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    @inline(__always) static func unzigzag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }

    // MARK: Byte helpers

    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }

    static func readVarint(_ bytes: [UInt8], _ cursor: inout Int) throws(DecodeError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard cursor < bytes.count else {
                throw DecodeError(code: .truncated, message: "chunk ends inside a number")
            }
            let byte = bytes[cursor]
            cursor += 1
            guard shift < 64 else { throw DecodeError(code: .malformed, message: "number longer than 64 bits") }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    static func appendDouble(_ value: Double, to out: inout [UInt8]) {
        let bits = value.bitPattern
        for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }

    static func readDouble(_ bytes: [UInt8], _ cursor: inout Int) throws(DecodeError) -> Double {
        guard bytes.count - cursor >= 8 else {
            throw DecodeError(code: .truncated, message: "chunk ends inside a time")
        }
        var bits: UInt64 = 0
        for offset in 0..<8 { bits |= UInt64(bytes[cursor + offset]) << UInt64(offset * 8) }
        cursor += 8
        return Double(bitPattern: bits)
    }
}
