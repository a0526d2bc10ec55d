// SPDX-License-Identifier: GPL-2.0-or-later

/// ATT_ERROR_RSP: a request failed (Core Vol 3 Part F 3.4.1.1). Always 5 bytes.
public struct ATTErrorResponse: ATTMessage {
    /// 0x01.
    public static let opcode = ATTOpcode.errorResponse
    /// The opcode of the request that failed.
    public var requestOpcode: ATTOpcode
    /// The attribute handle the error is about (0 when none applies).
    public var handle: UInt16
    /// Why it failed.
    public var error: ATTErrorCode

    /// An error answering `requestOpcode` about `handle`.
    public init(requestOpcode: ATTOpcode, handle: UInt16, error: ATTErrorCode) {
        self.requestOpcode = requestOpcode
        self.handle = handle
        self.error = error
    }

    /// Parses a whole PDU.
    public init(parsing pdu: some Collection<UInt8>) throws(WireError) {
        var reader = try Self.parameters(of: pdu, "ATT Error Response")
        requestOpcode = ATTOpcode(rawValue: try reader.readUInt8())
        handle = try reader.readUInt16LE()
        error = ATTErrorCode(rawValue: try reader.readUInt8())
        try reader.expectEnd()
    }

    /// Appends the whole PDU.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(Self.opcode.rawValue)
        buffer.append(requestOpcode.rawValue)
        buffer.appendUInt16LE(handle)
        buffer.append(error.rawValue)
    }
}
