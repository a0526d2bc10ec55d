// SPDX-License-Identifier: GPL-2.0-or-later

/// Command Complete (0x0E): the controller finished a command and returns its results
/// (Core Vol 4 Part E 7.7.14).
public struct HCICommandCompleteEvent: HCIEvent {
    /// Command Complete.
    public static let eventCode = HCIEventCode.commandComplete

    /// How many more command packets the host may send.
    public var numberOfCommandPackets: UInt8
    /// The command that completed (0x0000 for a spontaneous flow-control update).
    public var opcode: HCIOpcode
    /// The command's return parameters; for almost every command the first byte is a status.
    public var returnParameters: [UInt8]

    /// Creates the event.
    public init(numberOfCommandPackets: UInt8 = 1, opcode: HCIOpcode, returnParameters: [UInt8]) {
        self.numberOfCommandPackets = numberOfCommandPackets
        self.opcode = opcode
        self.returnParameters = returnParameters
    }

    /// Parses the event parameters.
    public init(parameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(parameters, context: "Command Complete")
        numberOfCommandPackets = try reader.readUInt8()
        opcode = HCIOpcode(rawValue: try reader.readUInt16LE())
        returnParameters = Array(reader.readRest())
    }

    /// Appends the event parameters.
    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(numberOfCommandPackets)
        buffer.appendUInt16LE(opcode.rawValue)
        buffer.append(contentsOf: returnParameters)
    }

    /// The first return parameter read as a status, when there is one.
    public var status: HCIErrorCode? {
        returnParameters.first.map { HCIErrorCode(rawValue: $0) }
    }
}
