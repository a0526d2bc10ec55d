// SPDX-License-Identifier: GPL-2.0-or-later

/// Command Complete (0x0001): a command finished, with its status and return parameters. Every
/// discovery command answers with this one, on success and on failure.
public struct MgmtCommandCompleteEvent: MgmtEvent {
    /// Command Complete.
    public static let code = MgmtEventCode.commandComplete

    /// The command that finished.
    public var command: MgmtCommandCode
    /// How it finished.
    public var status: MgmtStatus
    /// The command's return parameters.
    public var returnParameters: [UInt8]

    /// Creates the event.
    public init(command: MgmtCommandCode, status: MgmtStatus, returnParameters: [UInt8] = []) {
        self.command = command
        self.status = status
        self.returnParameters = returnParameters
    }

    /// Parses the parameters.
    public init(parameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(parameters, context: "mgmt Command Complete")
        command = MgmtCommandCode(rawValue: try reader.readUInt16LE())
        status = MgmtStatus(rawValue: try reader.readUInt8())
        returnParameters = Array(reader.readRest())
    }

    /// Appends the parameters.
    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.appendUInt16LE(command.rawValue)
        buffer.append(status.rawValue)
        buffer.append(contentsOf: returnParameters)
    }
}

/// Command Status (0x0002): a command failed before it could complete (an unknown command, bad
/// parameters, an invalid index), or an early status of a long one.
public struct MgmtCommandStatusEvent: MgmtEvent {
    /// Command Status.
    public static let code = MgmtEventCode.commandStatus

    /// The command.
    public var command: MgmtCommandCode
    /// Its status; anything but success means the command is over.
    public var status: MgmtStatus

    /// Creates the event.
    public init(command: MgmtCommandCode, status: MgmtStatus) {
        self.command = command
        self.status = status
    }

    /// Parses the three parameter bytes.
    public init(parameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(parameters, context: "mgmt Command Status")
        command = MgmtCommandCode(rawValue: try reader.readUInt16LE())
        status = MgmtStatus(rawValue: try reader.readUInt8())
        try reader.expectEnd()
    }

    /// Appends the three parameter bytes.
    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.appendUInt16LE(command.rawValue)
        buffer.append(status.rawValue)
    }
}
