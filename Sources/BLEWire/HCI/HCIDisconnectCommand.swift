// SPDX-License-Identifier: GPL-2.0-or-later

/// Disconnect (0x0406): end the link with this connection handle, giving the peer a reason
/// (Core Vol 4 Part E 7.1.6). The controller answers with Command Status, then Disconnection
/// Complete once the link is gone.
public struct HCIDisconnectCommand: HCICommand {
    /// Disconnect.
    public static let opcode = HCIOpcode.disconnect

    /// The link to end (12 bits; the upper four must be zero).
    public var connectionHandle: UInt16
    /// Why, as the peer will see it; usually Remote User Terminated Connection (0x13).
    public var reason: HCIErrorCode

    /// Creates the command.
    public init(connectionHandle: UInt16, reason: HCIErrorCode = .remoteUserTerminated) {
        self.connectionHandle = connectionHandle
        self.reason = reason
    }

    /// Parses the three parameter bytes; a handle above 0x0EFF is `invalidValue`.
    public init(parameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(parameters, context: "Disconnect")
        connectionHandle = try reader.readUInt16LE()
        guard connectionHandle <= 0x0EFF else {
            throw WireError(
                .invalidValue, "\(reader.context): Connection_Handle is \(connectionHandle), at most 0x0EFF")
        }
        reason = HCIErrorCode(rawValue: try reader.readUInt8())
        try reader.expectEnd()
    }

    /// Appends the three parameter bytes.
    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.appendUInt16LE(connectionHandle & 0x0FFF)
        buffer.append(reason.rawValue)
    }
}
