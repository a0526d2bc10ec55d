// SPDX-License-Identifier: GPL-2.0-or-later

/// The first byte of every ATT PDU (Core Vol 3 Part F 3.3).
///
/// Bits 0–5 are the method, bit 6 the command flag (no response is sent for a command), bit 7
/// the authentication-signature flag. The constants below are the opcodes a GATT client and
/// server exchange; any other byte is still representable so that an unknown request can be
/// answered with *Request Not Supported* instead of being dropped.
public struct ATTOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The opcode byte.
    public var rawValue: UInt8

    /// Wraps an opcode byte.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// ATT_ERROR_RSP.
    public static let errorResponse = ATTOpcode(rawValue: 0x01)
    /// ATT_EXCHANGE_MTU_REQ.
    public static let exchangeMTURequest = ATTOpcode(rawValue: 0x02)
    /// ATT_EXCHANGE_MTU_RSP.
    public static let exchangeMTUResponse = ATTOpcode(rawValue: 0x03)
    /// ATT_FIND_INFORMATION_REQ.
    public static let findInformationRequest = ATTOpcode(rawValue: 0x04)
    /// ATT_FIND_INFORMATION_RSP.
    public static let findInformationResponse = ATTOpcode(rawValue: 0x05)
    /// ATT_FIND_BY_TYPE_VALUE_REQ.
    public static let findByTypeValueRequest = ATTOpcode(rawValue: 0x06)
    /// ATT_FIND_BY_TYPE_VALUE_RSP.
    public static let findByTypeValueResponse = ATTOpcode(rawValue: 0x07)
    /// ATT_READ_BY_TYPE_REQ.
    public static let readByTypeRequest = ATTOpcode(rawValue: 0x08)
    /// ATT_READ_BY_TYPE_RSP.
    public static let readByTypeResponse = ATTOpcode(rawValue: 0x09)
    /// ATT_READ_REQ.
    public static let readRequest = ATTOpcode(rawValue: 0x0A)
    /// ATT_READ_RSP.
    public static let readResponse = ATTOpcode(rawValue: 0x0B)
    /// ATT_READ_BLOB_REQ.
    public static let readBlobRequest = ATTOpcode(rawValue: 0x0C)
    /// ATT_READ_BLOB_RSP.
    public static let readBlobResponse = ATTOpcode(rawValue: 0x0D)
    /// ATT_READ_MULTIPLE_REQ.
    public static let readMultipleRequest = ATTOpcode(rawValue: 0x0E)
    /// ATT_READ_MULTIPLE_RSP.
    public static let readMultipleResponse = ATTOpcode(rawValue: 0x0F)
    /// ATT_READ_BY_GROUP_TYPE_REQ.
    public static let readByGroupTypeRequest = ATTOpcode(rawValue: 0x10)
    /// ATT_READ_BY_GROUP_TYPE_RSP.
    public static let readByGroupTypeResponse = ATTOpcode(rawValue: 0x11)
    /// ATT_WRITE_REQ.
    public static let writeRequest = ATTOpcode(rawValue: 0x12)
    /// ATT_WRITE_RSP.
    public static let writeResponse = ATTOpcode(rawValue: 0x13)
    /// ATT_PREPARE_WRITE_REQ.
    public static let prepareWriteRequest = ATTOpcode(rawValue: 0x16)
    /// ATT_PREPARE_WRITE_RSP.
    public static let prepareWriteResponse = ATTOpcode(rawValue: 0x17)
    /// ATT_EXECUTE_WRITE_REQ.
    public static let executeWriteRequest = ATTOpcode(rawValue: 0x18)
    /// ATT_EXECUTE_WRITE_RSP.
    public static let executeWriteResponse = ATTOpcode(rawValue: 0x19)
    /// ATT_READ_MULTIPLE_VARIABLE_REQ (Bluetooth 5.2).
    public static let readMultipleVariableRequest = ATTOpcode(rawValue: 0x20)
    /// ATT_READ_MULTIPLE_VARIABLE_RSP (Bluetooth 5.2).
    public static let readMultipleVariableResponse = ATTOpcode(rawValue: 0x21)
    /// ATT_HANDLE_VALUE_NTF.
    public static let handleValueNotification = ATTOpcode(rawValue: 0x1B)
    /// ATT_HANDLE_VALUE_IND.
    public static let handleValueIndication = ATTOpcode(rawValue: 0x1D)
    /// ATT_HANDLE_VALUE_CFM.
    public static let handleValueConfirmation = ATTOpcode(rawValue: 0x1E)
    /// ATT_MULTIPLE_HANDLE_VALUE_NTF (Bluetooth 5.2).
    public static let multipleHandleValueNotification = ATTOpcode(rawValue: 0x23)
    /// ATT_WRITE_CMD.
    public static let writeCommand = ATTOpcode(rawValue: 0x52)
    /// ATT_SIGNED_WRITE_CMD.
    public static let signedWriteCommand = ATTOpcode(rawValue: 0xD2)

    /// The opcodes that expect a response from the peer. A side that receives one of these and
    /// does not implement it must answer with an Error Response, or the peer's transaction
    /// stalls until its 30 s timeout.
    public static let requests: Set<ATTOpcode> = [
        .exchangeMTURequest, .findInformationRequest, .findByTypeValueRequest, .readByTypeRequest, .readRequest,
        .readBlobRequest, .readMultipleRequest, .readByGroupTypeRequest, .writeRequest, .prepareWriteRequest,
        .executeWriteRequest, .readMultipleVariableRequest,
    ]

    /// The opcodes that answer a request (Error Response included).
    public static let responses: Set<ATTOpcode> = [
        .errorResponse, .exchangeMTUResponse, .findInformationResponse, .findByTypeValueResponse,
        .readByTypeResponse, .readResponse, .readBlobResponse, .readMultipleResponse, .readByGroupTypeResponse,
        .writeResponse, .prepareWriteResponse, .executeWriteResponse, .readMultipleVariableResponse,
    ]

    /// True for an opcode that expects a response.
    public var isRequest: Bool { Self.requests.contains(self) }

    /// True for an opcode that answers a request.
    public var isResponse: Bool { Self.responses.contains(self) }

    /// True when the command flag (bit 6) is set: the receiver never answers, not even with an
    /// error, and ignores a command it does not support.
    public var isCommand: Bool { rawValue & 0x40 != 0 }

    /// `0x1B`, with the name when known.
    public var description: String {
        let hex = "0x" + BluetoothUUID.hex([rawValue])
        return Self.names[rawValue].map { "\($0) (\(hex))" } ?? hex
    }

    private static let names: [UInt8: String] = [
        0x01: "Error Response", 0x02: "Exchange MTU Request", 0x03: "Exchange MTU Response",
        0x04: "Find Information Request", 0x05: "Find Information Response",
        0x06: "Find By Type Value Request", 0x07: "Find By Type Value Response",
        0x08: "Read By Type Request", 0x09: "Read By Type Response", 0x0A: "Read Request", 0x0B: "Read Response",
        0x0C: "Read Blob Request", 0x0D: "Read Blob Response", 0x0E: "Read Multiple Request",
        0x0F: "Read Multiple Response", 0x10: "Read By Group Type Request", 0x11: "Read By Group Type Response",
        0x12: "Write Request", 0x13: "Write Response", 0x16: "Prepare Write Request",
        0x17: "Prepare Write Response", 0x18: "Execute Write Request", 0x19: "Execute Write Response",
        0x1B: "Handle Value Notification", 0x1D: "Handle Value Indication", 0x1E: "Handle Value Confirmation",
        0x20: "Read Multiple Variable Request", 0x21: "Read Multiple Variable Response",
        0x23: "Multiple Handle Value Notification", 0x52: "Write Command", 0xD2: "Signed Write Command",
    ]
}
