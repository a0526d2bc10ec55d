// SPDX-License-Identifier: GPL-2.0-or-later

/// An HCI command packet: opcode (UInt16 LE), parameter length (UInt8), parameters
/// (Core Vol 4 Part E 5.4.1). Without the H4 packet-type byte.
public struct HCICommandPacket: Hashable, Sendable {
    /// Which command.
    public var opcode: HCIOpcode
    /// The parameter bytes, at most 255.
    public var parameters: [UInt8]

    /// Creates a command packet.
    public init(opcode: HCIOpcode, parameters: [UInt8] = []) {
        self.opcode = opcode
        self.parameters = parameters
    }

    /// Parses a whole command packet; the length byte must match the parameter bytes exactly.
    public init(parsing bytes: some Collection<UInt8>) throws(WireError) {
        var reader = WireReader(bytes, context: "HCI command")
        opcode = HCIOpcode(rawValue: try reader.readUInt16LE())
        let length = Int(try reader.readUInt8())
        parameters = Array(try reader.readBytes(length))
        try reader.expectEnd()
    }

    /// Appends opcode, length and parameters (parameters beyond 255 bytes are cut).
    public func encode(into buffer: inout [UInt8]) {
        let body = parameters.prefix(255)
        buffer.appendUInt16LE(opcode.rawValue)
        buffer.append(UInt8(body.count))
        buffer.append(contentsOf: body)
    }
}

/// A typed HCI command: its opcode and a codec for its parameters.
public protocol HCICommand: Hashable, Sendable {
    /// The command's opcode.
    static var opcode: HCIOpcode { get }
    /// Parses the parameter bytes (without opcode and length).
    init(parameters: ArraySlice<UInt8>) throws(WireError)
    /// Appends the parameter bytes.
    func encodeParameters(into buffer: inout [UInt8])
}

extension HCICommand {
    /// Parses a whole command packet (opcode, length, parameters); another opcode is `wrongOpcode`.
    public init(parsing bytes: some Collection<UInt8>) throws(WireError) {
        try self.init(try HCICommandPacket(parsing: bytes))
    }

    /// Decodes a generic command packet; another opcode is `wrongOpcode`.
    public init(_ packet: HCICommandPacket) throws(WireError) {
        guard packet.opcode == Self.opcode else {
            throw WireError(.wrongOpcode, "HCI command: opcode \(packet.opcode), expected \(Self.opcode)")
        }
        try self.init(parameters: packet.parameters[...])
    }

    /// The generic command packet.
    public var packet: HCICommandPacket {
        var parameters: [UInt8] = []
        encodeParameters(into: &parameters)
        return HCICommandPacket(opcode: Self.opcode, parameters: parameters)
    }

    /// Appends the whole command packet (opcode, length, parameters).
    public func encode(into buffer: inout [UInt8]) {
        packet.encode(into: &buffer)
    }
}
