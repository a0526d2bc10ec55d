// SPDX-License-Identifier: GPL-2.0-or-later

/// One kind of ATT PDU: a fixed opcode, a parser and an encoder.
///
/// `init(parsing:)` takes the whole PDU, opcode byte included, and throws `WireError` for a
/// different opcode (`wrongOpcode`), too few bytes (`truncated`) or a length that does not fit
/// the structure (`wrongLength`). `encode(into:)` appends the whole PDU, opcode first.
public protocol ATTMessage: Hashable, Sendable {
    /// The opcode every PDU of this kind starts with.
    static var opcode: ATTOpcode { get }
    /// Parses a whole PDU, opcode byte included.
    init(parsing pdu: some Collection<UInt8>) throws(WireError)
    /// Appends the whole PDU, opcode byte included.
    func encode(into buffer: inout [UInt8])
}

extension ATTMessage {
    /// The PDU as bytes.
    public var bytes: [UInt8] {
        var buffer: [UInt8] = []
        encode(into: &buffer)
        return buffer
    }

    /// A reader positioned after the opcode, after checking that the opcode is this message's.
    static func parameters(of pdu: some Collection<UInt8>, _ name: String) throws(WireError) -> WireReader {
        var reader = WireReader(pdu, context: name)
        let opcode = ATTOpcode(rawValue: try reader.readUInt8())
        guard opcode == Self.opcode else {
            throw WireError(.wrongOpcode, "\(name): opcode \(opcode), expected \(Self.opcode)")
        }
        return reader
    }
}

/// The handle range most requests carry, with the checks a server applies before answering.
public struct ATTHandleRange: Hashable, Sendable, CustomStringConvertible {
    /// First handle, inclusive.
    public var start: UInt16
    /// Last handle, inclusive.
    public var end: UInt16

    /// A range from `start` to `end`, inclusive.
    public init(start: UInt16, end: UInt16) {
        self.start = start
        self.end = end
    }

    /// The whole handle space, 0x0001–0xFFFF.
    public static let all = ATTHandleRange(start: 0x0001, end: 0xFFFF)

    /// A server answers a range with start 0 or start > end with *Invalid Handle*.
    public var isValid: Bool { start != 0 && start <= end }

    /// True when `handle` lies within the range.
    public func contains(_ handle: UInt16) -> Bool { start <= handle && handle <= end }

    /// `0x0001-0xFFFF`.
    public var description: String {
        "0x" + BluetoothUUID.hex([UInt8(start >> 8), UInt8(start & 0xFF)]) + "-0x"
            + BluetoothUUID.hex([UInt8(end >> 8), UInt8(end & 0xFF)])
    }

    init(reading reader: inout WireReader) throws(WireError) {
        self.start = try reader.readUInt16LE()
        self.end = try reader.readUInt16LE()
    }

    func encode(into buffer: inout [UInt8]) {
        buffer.appendUInt16LE(start)
        buffer.appendUInt16LE(end)
    }
}

extension WireReader {
    /// Reads the handle-then-value layout that writes, notifications and indications share.
    mutating func readHandleAndValue() throws(WireError) -> (UInt16, [UInt8]) {
        let handle = try readUInt16LE()
        return (handle, Array(readRest()))
    }
}
