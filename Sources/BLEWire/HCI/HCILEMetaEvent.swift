// SPDX-License-Identifier: GPL-2.0-or-later

/// LE Meta event (0x3E), generic: a subevent code and the subevent's parameters
/// (Core Vol 4 Part E 7.7.65).
public struct HCILEMetaEvent: HCIEvent {
    /// LE Meta.
    public static let eventCode = HCIEventCode.leMeta

    /// LE Connection Complete.
    public static let connectionComplete: UInt8 = 0x01
    /// LE Advertising Report.
    public static let advertisingReport: UInt8 = 0x02
    /// LE Enhanced Connection Complete [v1].
    public static let enhancedConnectionComplete: UInt8 = 0x0A
    /// LE Extended Advertising Report.
    public static let extendedAdvertisingReport: UInt8 = 0x0D
    /// LE Enhanced Connection Complete [v2].
    public static let enhancedConnectionCompleteV2: UInt8 = 0x29

    /// Which LE subevent.
    public var subeventCode: UInt8
    /// The subevent's parameters, after the subevent code.
    public var subeventParameters: [UInt8]

    /// Creates the event.
    public init(subeventCode: UInt8, subeventParameters: [UInt8]) {
        self.subeventCode = subeventCode
        self.subeventParameters = subeventParameters
    }

    /// Parses the event parameters: at least the subevent code.
    public init(parameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(parameters, context: "LE Meta event")
        subeventCode = try reader.readUInt8()
        subeventParameters = Array(reader.readRest())
    }

    /// Appends subevent code and parameters.
    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(subeventCode)
        buffer.append(contentsOf: subeventParameters)
    }
}

/// A typed LE Meta subevent. Conformers get `HCIEvent` (event code 0x3E) for free.
public protocol HCILESubevent: HCIEvent {
    /// The subevent code this value encodes with.
    var subeventCode: UInt8 { get }
    /// Whether this type decodes subevent `code`.
    static func decodes(subeventCode code: UInt8) -> Bool
    /// Parses the subevent parameters (after the subevent code).
    init(subeventCode: UInt8, subeventParameters: ArraySlice<UInt8>) throws(WireError)
    /// Appends the subevent parameters (after the subevent code).
    func encodeSubeventParameters(into buffer: inout [UInt8])
}

extension HCILESubevent {
    /// LE Meta.
    public static var eventCode: HCIEventCode { .leMeta }

    /// Parses LE Meta parameters; another subevent code is `wrongOpcode`.
    public init(parameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(parameters, context: "LE Meta event")
        let code = try reader.readUInt8()
        guard Self.decodes(subeventCode: code) else {
            throw WireError(.wrongOpcode, "LE Meta event: subevent 0x\(BluetoothUUID.hex([code])) is not \(Self.self)")
        }
        try self.init(subeventCode: code, subeventParameters: reader.readRest())
    }

    /// Decodes a generic LE Meta event; another subevent code is `wrongOpcode`.
    public init(_ meta: HCILEMetaEvent) throws(WireError) {
        guard Self.decodes(subeventCode: meta.subeventCode) else {
            throw WireError(
                .wrongOpcode, "LE Meta event: subevent 0x\(BluetoothUUID.hex([meta.subeventCode])) is not \(Self.self)")
        }
        try self.init(subeventCode: meta.subeventCode, subeventParameters: meta.subeventParameters[...])
    }

    /// Appends subevent code and parameters.
    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(subeventCode)
        encodeSubeventParameters(into: &buffer)
    }
}
