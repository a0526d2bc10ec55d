// SPDX-License-Identifier: GPL-2.0-or-later

/// A cursor over received bytes that reads little-endian fields and throws `WireError`
/// instead of trapping when the bytes run out.
///
/// Bluetooth is little-endian throughout (HCI, L2CAP, ATT); btsnoop headers are the one
/// big-endian exception, so both orders are offered.
public struct WireReader: Sendable {
    /// The bytes not yet consumed.
    public private(set) var remaining: ArraySlice<UInt8>
    /// Names the structure being parsed in error messages.
    public var context: String

    public init(_ bytes: some Collection<UInt8>, context: String) {
        self.remaining = ArraySlice(bytes)
        self.context = context
    }

    /// Number of bytes not yet consumed.
    public var count: Int { remaining.count }
    /// True when every byte has been consumed.
    public var isAtEnd: Bool { remaining.isEmpty }

    private mutating func need(_ n: Int) throws(WireError) {
        if remaining.count < n { throw WireError.truncated(context, need: n - remaining.count, have: remaining.count) }
    }

    public mutating func readUInt8() throws(WireError) -> UInt8 {
        try need(1)
        return remaining.removeFirst()
    }

    public mutating func readUInt16LE() throws(WireError) -> UInt16 {
        try need(2)
        let i = remaining.startIndex
        let value = UInt16(remaining[i]) | UInt16(remaining[i + 1]) << 8
        remaining.removeFirst(2)
        return value
    }

    public mutating func readInt16LE() throws(WireError) -> Int16 {
        Int16(bitPattern: try readUInt16LE())
    }

    public mutating func readUInt24LE() throws(WireError) -> UInt32 {
        try need(3)
        let i = remaining.startIndex
        let value = UInt32(remaining[i]) | UInt32(remaining[i + 1]) << 8 | UInt32(remaining[i + 2]) << 16
        remaining.removeFirst(3)
        return value
    }

    public mutating func readUInt32LE() throws(WireError) -> UInt32 {
        UInt32(try readUInt16LE()) | UInt32(try readUInt16LE()) << 16
    }

    public mutating func readUInt16BE() throws(WireError) -> UInt16 {
        try need(2)
        let i = remaining.startIndex
        let value = UInt16(remaining[i]) << 8 | UInt16(remaining[i + 1])
        remaining.removeFirst(2)
        return value
    }

    public mutating func readUInt32BE() throws(WireError) -> UInt32 {
        UInt32(try readUInt16BE()) << 16 | UInt32(try readUInt16BE())
    }

    public mutating func readUInt64BE() throws(WireError) -> UInt64 {
        UInt64(try readUInt32BE()) << 32 | UInt64(try readUInt32BE())
    }

    /// Reads exactly `n` bytes.
    public mutating func readBytes(_ n: Int) throws(WireError) -> ArraySlice<UInt8> {
        guard n >= 0 else { throw WireError(.invalidValue, "\(context): negative length \(n)") }
        try need(n)
        let bytes = remaining.prefix(n)
        remaining.removeFirst(n)
        return bytes
    }

    /// Consumes and returns every remaining byte.
    public mutating func readRest() -> ArraySlice<UInt8> {
        defer { remaining = remaining.suffix(0) }
        return remaining
    }

    /// Throws `wrongLength` if any byte is left: for fixed-size structures.
    public func expectEnd() throws(WireError) {
        if !remaining.isEmpty {
            throw WireError(.wrongLength, "\(context): \(remaining.count) unexpected trailing byte(s)")
        }
    }
}

extension Array where Element == UInt8 {
    /// Appends `value` as one byte.
    @inlinable public mutating func appendUInt8(_ value: UInt8) { append(value) }

    /// Appends `value` little-endian.
    @inlinable public mutating func appendUInt16LE(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }

    /// Appends `value` little-endian.
    @inlinable public mutating func appendInt16LE(_ value: Int16) { appendUInt16LE(UInt16(bitPattern: value)) }

    /// Appends `value` little-endian.
    @inlinable public mutating func appendUInt32LE(_ value: UInt32) {
        appendUInt16LE(UInt16(truncatingIfNeeded: value))
        appendUInt16LE(UInt16(truncatingIfNeeded: value >> 16))
    }

    /// Appends `value` big-endian.
    @inlinable public mutating func appendUInt16BE(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    /// Appends `value` big-endian.
    @inlinable public mutating func appendUInt32BE(_ value: UInt32) {
        appendUInt16BE(UInt16(truncatingIfNeeded: value >> 16))
        appendUInt16BE(UInt16(truncatingIfNeeded: value))
    }

    /// Appends `value` big-endian.
    @inlinable public mutating func appendUInt64BE(_ value: UInt64) {
        appendUInt32BE(UInt32(truncatingIfNeeded: value >> 32))
        appendUInt32BE(UInt32(truncatingIfNeeded: value))
    }
}
