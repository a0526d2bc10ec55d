// SPDX-License-Identifier: GPL-2.0-or-later

/// An HCI event code (Core Vol 4 Part E 7.7).
public struct HCIEventCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code byte.
    public var rawValue: UInt8

    /// Wraps a code byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Disconnection Complete (0x05).
    public static let disconnectionComplete = HCIEventCode(rawValue: 0x05)
    /// Command Complete (0x0E).
    public static let commandComplete = HCIEventCode(rawValue: 0x0E)
    /// Command Status (0x0F).
    public static let commandStatus = HCIEventCode(rawValue: 0x0F)
    /// Number Of Completed Packets (0x13).
    public static let numberOfCompletedPackets = HCIEventCode(rawValue: 0x13)
    /// LE Meta event (0x3E): the first parameter is an LE subevent code.
    public static let leMeta = HCIEventCode(rawValue: 0x3E)

    /// `0x3E`.
    public var description: String { "0x" + BluetoothUUID.hex([rawValue]) }
}

/// An HCI event packet: event code, parameter length, parameters (Core Vol 4 Part E 5.4.4).
/// Without the H4 packet-type byte.
public struct HCIEventPacket: Hashable, Sendable {
    /// Which event.
    public var eventCode: HCIEventCode
    /// The parameter bytes, at most 255.
    public var parameters: [UInt8]

    /// Creates an event packet.
    public init(eventCode: HCIEventCode, parameters: [UInt8] = []) {
        self.eventCode = eventCode
        self.parameters = parameters
    }

    /// Parses a whole event packet; the length byte must match the parameter bytes exactly.
    public init(parsing bytes: some Collection<UInt8>) throws(WireError) {
        var reader = WireReader(bytes, context: "HCI event")
        eventCode = HCIEventCode(rawValue: try reader.readUInt8())
        let length = Int(try reader.readUInt8())
        parameters = Array(try reader.readBytes(length))
        try reader.expectEnd()
    }

    /// Appends event code, length and parameters (parameters beyond 255 bytes are cut).
    public func encode(into buffer: inout [UInt8]) {
        let body = parameters.prefix(255)
        buffer.append(eventCode.rawValue)
        buffer.append(UInt8(body.count))
        buffer.append(contentsOf: body)
    }
}

/// A typed HCI event: its code and a codec for its parameters.
public protocol HCIEvent: Hashable, Sendable {
    /// The event code this type decodes.
    static var eventCode: HCIEventCode { get }
    /// Parses the parameter bytes (without event code and length).
    init(parameters: ArraySlice<UInt8>) throws(WireError)
    /// Appends the parameter bytes.
    func encodeParameters(into buffer: inout [UInt8])
}

extension HCIEvent {
    /// Parses a whole event packet (code, length, parameters); another code is `wrongOpcode`.
    public init(parsing bytes: some Collection<UInt8>) throws(WireError) {
        try self.init(try HCIEventPacket(parsing: bytes))
    }

    /// Decodes a generic event packet; another event code is `wrongOpcode`.
    public init(_ packet: HCIEventPacket) throws(WireError) {
        guard packet.eventCode == Self.eventCode else {
            throw WireError(.wrongOpcode, "HCI event: code \(packet.eventCode), expected \(Self.eventCode)")
        }
        try self.init(parameters: packet.parameters[...])
    }

    /// The generic event packet.
    public var packet: HCIEventPacket {
        var parameters: [UInt8] = []
        encodeParameters(into: &parameters)
        return HCIEventPacket(eventCode: Self.eventCode, parameters: parameters)
    }

    /// Appends the whole event packet (code, length, parameters).
    public func encode(into buffer: inout [UInt8]) {
        packet.encode(into: &buffer)
    }
}
