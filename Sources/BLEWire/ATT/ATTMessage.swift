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

/// The layout writes, notifications and indications share: opcode, a 2-byte attribute handle,
/// then the value to the end of the PDU (possibly empty). Conforming types supply the fields and
/// their `name`; parsing and encoding are shared.
public protocol ATTHandleValueMessage: ATTMessage {
    /// Names the message in parse errors (`ATT Write Request`).
    static var name: String { get }
    /// The attribute handle.
    var handle: UInt16 { get }
    /// The attribute value.
    var value: [UInt8] { get }
    /// A PDU for `handle` carrying `value`.
    init(handle: UInt16, value: [UInt8])
}

extension ATTHandleValueMessage {
    /// Parses a whole PDU: the opcode, at least the 2-byte handle, then the value.
    public init(parsing pdu: some Collection<UInt8>) throws(WireError) {
        var reader = try Self.parameters(of: pdu, Self.name)
        let handle = try reader.readUInt16LE()
        self.init(handle: handle, value: Array(reader.readRest()))
    }

    /// Appends the whole PDU.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(Self.opcode.rawValue)
        buffer.appendUInt16LE(handle)
        buffer.append(contentsOf: value)
    }
}
