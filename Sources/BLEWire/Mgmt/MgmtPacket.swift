// SPDX-License-Identifier: GPL-2.0-or-later

/// A management command code: what the kernel's mgmt interface is asked to do (BlueZ
/// `doc/mgmt-protocol.rst`, "Commands").
public struct MgmtCommandCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code, little-endian on the wire.
    public var rawValue: UInt16

    /// Wraps a code.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Read Controller Index List (0x0003).
    public static let readIndexList = MgmtCommandCode(rawValue: 0x0003)
    /// Read Controller Information (0x0004).
    public static let readControllerInfo = MgmtCommandCode(rawValue: 0x0004)
    /// Start Discovery (0x0023).
    public static let startDiscovery = MgmtCommandCode(rawValue: 0x0023)
    /// Stop Discovery (0x0024).
    public static let stopDiscovery = MgmtCommandCode(rawValue: 0x0024)
    /// Start Service Discovery (0x003A).
    public static let startServiceDiscovery = MgmtCommandCode(rawValue: 0x003A)

    /// The name of a command this project uses, nil for others.
    public var name: String? {
        switch self {
        case .readIndexList: "Read Controller Index List"
        case .readControllerInfo: "Read Controller Information"
        case .startDiscovery: "Start Discovery"
        case .stopDiscovery: "Stop Discovery"
        case .startServiceDiscovery: "Start Service Discovery"
        default: nil
        }
    }

    /// `Start Discovery (0x0023)`.
    public var description: String {
        "\(name ?? "mgmt command") (0x\(BluetoothUUID.hex([UInt8(rawValue >> 8), UInt8(rawValue & 0xFF)])))"
    }
}

/// A management event code (BlueZ `doc/mgmt-protocol.rst`, "Events").
public struct MgmtEventCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code, little-endian on the wire.
    public var rawValue: UInt16

    /// Wraps a code.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Command Complete (0x0001).
    public static let commandComplete = MgmtEventCode(rawValue: 0x0001)
    /// Command Status (0x0002).
    public static let commandStatus = MgmtEventCode(rawValue: 0x0002)
    /// Index Added (0x0004): a controller appeared; no parameters.
    public static let indexAdded = MgmtEventCode(rawValue: 0x0004)
    /// Index Removed (0x0005): a controller went away; no parameters.
    public static let indexRemoved = MgmtEventCode(rawValue: 0x0005)
    /// New Settings (0x0006): the controller's current settings changed.
    public static let newSettings = MgmtEventCode(rawValue: 0x0006)
    /// Device Found (0x0012).
    public static let deviceFound = MgmtEventCode(rawValue: 0x0012)
    /// Discovering (0x0013).
    public static let discovering = MgmtEventCode(rawValue: 0x0013)

    /// `0x0012`.
    public var description: String {
        "0x" + BluetoothUUID.hex([UInt8(rawValue >> 8), UInt8(rawValue & 0xFF)])
    }
}

/// Which controller a management packet is about: `hciN` is index N, and 0xFFFF means none (a
/// command or event about the mgmt interface itself, such as Read Controller Index List).
public struct MgmtControllerIndex: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The index, little-endian on the wire.
    public var rawValue: UInt16

    /// Wraps an index.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// No controller (0xFFFF).
    public static let none = MgmtControllerIndex(rawValue: 0xFFFF)

    /// `hci0`, or `none`.
    public var description: String { self == .none ? "none" : "hci\(rawValue)" }
}

/// The six-byte header both directions share: code, controller index, parameter length, all
/// little-endian, then the parameters.
struct MgmtHeader {
    var code: UInt16
    var index: MgmtControllerIndex
    var parameters: [UInt8]

    /// Parses a whole packet; the length field must match the parameter bytes exactly.
    init(parsing bytes: some Collection<UInt8>, context: String) throws(WireError) {
        var reader = WireReader(bytes, context: context)
        code = try reader.readUInt16LE()
        index = MgmtControllerIndex(rawValue: try reader.readUInt16LE())
        let length = Int(try reader.readUInt16LE())
        parameters = Array(try reader.readBytes(length))
        try reader.expectEnd()
    }

    init(code: UInt16, index: MgmtControllerIndex, parameters: [UInt8]) {
        self.code = code
        self.index = index
        self.parameters = parameters
    }

    func encode(into buffer: inout [UInt8]) {
        let body = parameters.prefix(Int(UInt16.max))
        buffer.appendUInt16LE(code)
        buffer.appendUInt16LE(index.rawValue)
        buffer.appendUInt16LE(UInt16(body.count))
        buffer.append(contentsOf: body)
    }
}

/// A management command as written to the mgmt socket: code, controller index, parameters.
public struct MgmtCommandPacket: Hashable, Sendable {
    /// Which command.
    public var code: MgmtCommandCode
    /// The controller it is for.
    public var index: MgmtControllerIndex
    /// The parameter bytes.
    public var parameters: [UInt8]

    /// Creates a command packet.
    public init(code: MgmtCommandCode, index: MgmtControllerIndex, parameters: [UInt8] = []) {
        self.code = code
        self.index = index
        self.parameters = parameters
    }

    /// Parses a whole command packet; the length field must match the parameter bytes exactly.
    public init(parsing bytes: some Collection<UInt8>) throws(WireError) {
        let header = try MgmtHeader(parsing: bytes, context: "mgmt command")
        self.init(code: MgmtCommandCode(rawValue: header.code), index: header.index, parameters: header.parameters)
    }

    /// Appends the header and the parameters.
    public func encode(into buffer: inout [UInt8]) {
        MgmtHeader(code: code.rawValue, index: index, parameters: parameters).encode(into: &buffer)
    }

    /// The encoded packet.
    public var bytes: [UInt8] {
        var buffer: [UInt8] = []
        encode(into: &buffer)
        return buffer
    }
}

/// A management event as read from the mgmt socket: code, controller index, parameters.
public struct MgmtEventPacket: Hashable, Sendable {
    /// Which event.
    public var code: MgmtEventCode
    /// The controller it is about (``MgmtControllerIndex/none`` for none).
    public var index: MgmtControllerIndex
    /// The parameter bytes.
    public var parameters: [UInt8]

    /// Creates an event packet.
    public init(code: MgmtEventCode, index: MgmtControllerIndex, parameters: [UInt8] = []) {
        self.code = code
        self.index = index
        self.parameters = parameters
    }

    /// Parses a whole event packet; the length field must match the parameter bytes exactly.
    public init(parsing bytes: some Collection<UInt8>) throws(WireError) {
        let header = try MgmtHeader(parsing: bytes, context: "mgmt event")
        self.init(code: MgmtEventCode(rawValue: header.code), index: header.index, parameters: header.parameters)
    }

    /// Appends the header and the parameters.
    public func encode(into buffer: inout [UInt8]) {
        MgmtHeader(code: code.rawValue, index: index, parameters: parameters).encode(into: &buffer)
    }
}

/// A typed management command: its code and a codec for its parameters.
public protocol MgmtCommand: Hashable, Sendable {
    /// The command's code.
    static var code: MgmtCommandCode { get }
    /// Parses the parameter bytes (without the header).
    init(parameters: ArraySlice<UInt8>) throws(WireError)
    /// Appends the parameter bytes.
    func encodeParameters(into buffer: inout [UInt8])
}

extension MgmtCommand {
    /// Decodes a generic command packet; another code is `wrongOpcode`.
    public init(_ packet: MgmtCommandPacket) throws(WireError) {
        guard packet.code == Self.code else {
            throw WireError(.wrongOpcode, "mgmt command: \(packet.code), expected \(Self.code)")
        }
        try self.init(parameters: packet.parameters[...])
    }

    /// Parses a whole command packet; another code is `wrongOpcode`.
    public init(parsing bytes: some Collection<UInt8>) throws(WireError) {
        try self.init(try MgmtCommandPacket(parsing: bytes))
    }

    /// The generic packet for controller `index`.
    public func packet(index: MgmtControllerIndex) -> MgmtCommandPacket {
        var parameters: [UInt8] = []
        encodeParameters(into: &parameters)
        return MgmtCommandPacket(code: Self.code, index: index, parameters: parameters)
    }

    /// Appends the whole command packet for controller `index`.
    public func encode(index: MgmtControllerIndex, into buffer: inout [UInt8]) {
        packet(index: index).encode(into: &buffer)
    }
}

/// A typed management event: its code and a codec for its parameters.
public protocol MgmtEvent: Hashable, Sendable {
    /// The event's code.
    static var code: MgmtEventCode { get }
    /// Parses the parameter bytes (without the header).
    init(parameters: ArraySlice<UInt8>) throws(WireError)
    /// Appends the parameter bytes.
    func encodeParameters(into buffer: inout [UInt8])
}

extension MgmtEvent {
    /// Decodes a generic event packet; another code is `wrongOpcode`.
    public init(_ packet: MgmtEventPacket) throws(WireError) {
        guard packet.code == Self.code else {
            throw WireError(.wrongOpcode, "mgmt event: code \(packet.code), expected \(Self.code)")
        }
        try self.init(parameters: packet.parameters[...])
    }

    /// Parses a whole event packet; another code is `wrongOpcode`.
    public init(parsing bytes: some Collection<UInt8>) throws(WireError) {
        try self.init(try MgmtEventPacket(parsing: bytes))
    }

    /// The generic packet about controller `index`.
    public func packet(index: MgmtControllerIndex) -> MgmtEventPacket {
        var parameters: [UInt8] = []
        encodeParameters(into: &parameters)
        return MgmtEventPacket(code: Self.code, index: index, parameters: parameters)
    }

    /// Appends the whole event packet about controller `index`.
    public func encode(index: MgmtControllerIndex, into buffer: inout [UInt8]) {
        packet(index: index).encode(into: &buffer)
    }
}
