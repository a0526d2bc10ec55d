// SPDX-License-Identifier: GPL-2.0-or-later

/// Command Status (0x0F): the controller accepted (or refused) a command whose result comes
/// later in another event (Core Vol 4 Part E 7.7.15).
public struct HCICommandStatusEvent: HCIEvent {
    /// Command Status.
    public static let eventCode = HCIEventCode.commandStatus

    /// Whether the command was accepted.
    public var status: HCIErrorCode
    /// How many more command packets the host may send.
    public var numberOfCommandPackets: UInt8
    /// The command this status is for.
    public var opcode: HCIOpcode

    /// Creates the event.
    public init(status: HCIErrorCode, numberOfCommandPackets: UInt8 = 1, opcode: HCIOpcode) {
        self.status = status
        self.numberOfCommandPackets = numberOfCommandPackets
        self.opcode = opcode
    }

    /// Parses the four parameter bytes.
    public init(parameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(parameters, context: "Command Status")
        status = HCIErrorCode(rawValue: try reader.readUInt8())
        numberOfCommandPackets = try reader.readUInt8()
        opcode = HCIOpcode(rawValue: try reader.readUInt16LE())
        try reader.expectEnd()
    }

    /// Appends the four parameter bytes.
    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(status.rawValue)
        buffer.append(numberOfCommandPackets)
        buffer.appendUInt16LE(opcode.rawValue)
    }
}
