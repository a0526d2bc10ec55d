// SPDX-License-Identifier: GPL-2.0-or-later

/// Disconnection Complete (0x05): a connection ended (Core Vol 4 Part E 7.7.5).
public struct HCIDisconnectionCompleteEvent: HCIEvent {
    /// Disconnection Complete.
    public static let eventCode = HCIEventCode.disconnectionComplete

    /// Whether the disconnection itself succeeded.
    public var status: HCIErrorCode
    /// The connection handle that is no longer valid (12 bits).
    public var connectionHandle: UInt16
    /// Why the connection ended, for example `.remoteUserTerminated` or `.connectionTimeout`.
    public var reason: HCIErrorCode

    /// Creates the event.
    public init(status: HCIErrorCode = .success, connectionHandle: UInt16, reason: HCIErrorCode) {
        self.status = status
        self.connectionHandle = connectionHandle
        self.reason = reason
    }

    /// Parses the four parameter bytes.
    public init(parameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(parameters, context: "Disconnection Complete")
        status = HCIErrorCode(rawValue: try reader.readUInt8())
        connectionHandle = try reader.readUInt16LE() & 0x0FFF
        reason = HCIErrorCode(rawValue: try reader.readUInt8())
        try reader.expectEnd()
    }

    /// Appends the four parameter bytes.
    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(status.rawValue)
        buffer.appendUInt16LE(connectionHandle & 0x0FFF)
        buffer.append(reason.rawValue)
    }
}
