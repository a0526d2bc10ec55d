// SPDX-License-Identifier: GPL-2.0-or-later

/// Any ATT PDU, parsed by its opcode: what a bearer delivers, typed.
///
/// Opcodes the specification defines but this implementation does not model (Read Multiple,
/// Prepare/Execute Write, Signed Write, …) parse as `.unsupported`, so the receiver can still
/// answer a request with *Request Not Supported* (and ignore a command) instead of leaving the
/// peer waiting. An opcode the specification does not define is a `wrongOpcode` error.
public enum ATTPDU: Hashable, Sendable {
    case errorResponse(ATTErrorResponse)
    case exchangeMTURequest(ATTExchangeMTURequest)
    case exchangeMTUResponse(ATTExchangeMTUResponse)
    case findInformationRequest(ATTFindInformationRequest)
    case findInformationResponse(ATTFindInformationResponse)
    case findByTypeValueRequest(ATTFindByTypeValueRequest)
    case findByTypeValueResponse(ATTFindByTypeValueResponse)
    case readByTypeRequest(ATTReadByTypeRequest)
    case readByTypeResponse(ATTReadByTypeResponse)
    case readRequest(ATTReadRequest)
    case readResponse(ATTReadResponse)
    case readBlobRequest(ATTReadBlobRequest)
    case readBlobResponse(ATTReadBlobResponse)
    case readByGroupTypeRequest(ATTReadByGroupTypeRequest)
    case readByGroupTypeResponse(ATTReadByGroupTypeResponse)
    case writeRequest(ATTWriteRequest)
    case writeResponse(ATTWriteResponse)
    case writeCommand(ATTWriteCommand)
    case handleValueNotification(ATTHandleValueNotification)
    case handleValueIndication(ATTHandleValueIndication)
    case handleValueConfirmation(ATTHandleValueConfirmation)
    /// A defined opcode this implementation does not model, with its parameter bytes.
    case unsupported(opcode: ATTOpcode, parameters: [UInt8])

    /// Parses a whole PDU by its first byte.
    public init(parsing pdu: some Collection<UInt8>) throws(WireError) {
        guard let first = pdu.first else { throw WireError(.truncated, "ATT PDU: empty, needs an opcode") }
        switch ATTOpcode(rawValue: first) {
        case .errorResponse: self = .errorResponse(try ATTErrorResponse(parsing: pdu))
        case .exchangeMTURequest: self = .exchangeMTURequest(try ATTExchangeMTURequest(parsing: pdu))
        case .exchangeMTUResponse: self = .exchangeMTUResponse(try ATTExchangeMTUResponse(parsing: pdu))
        case .findInformationRequest: self = .findInformationRequest(try ATTFindInformationRequest(parsing: pdu))
        case .findInformationResponse: self = .findInformationResponse(try ATTFindInformationResponse(parsing: pdu))
        case .findByTypeValueRequest: self = .findByTypeValueRequest(try ATTFindByTypeValueRequest(parsing: pdu))
        case .findByTypeValueResponse: self = .findByTypeValueResponse(try ATTFindByTypeValueResponse(parsing: pdu))
        case .readByTypeRequest: self = .readByTypeRequest(try ATTReadByTypeRequest(parsing: pdu))
        case .readByTypeResponse: self = .readByTypeResponse(try ATTReadByTypeResponse(parsing: pdu))
        case .readRequest: self = .readRequest(try ATTReadRequest(parsing: pdu))
        case .readResponse: self = .readResponse(try ATTReadResponse(parsing: pdu))
        case .readBlobRequest: self = .readBlobRequest(try ATTReadBlobRequest(parsing: pdu))
        case .readBlobResponse: self = .readBlobResponse(try ATTReadBlobResponse(parsing: pdu))
        case .readByGroupTypeRequest: self = .readByGroupTypeRequest(try ATTReadByGroupTypeRequest(parsing: pdu))
        case .readByGroupTypeResponse: self = .readByGroupTypeResponse(try ATTReadByGroupTypeResponse(parsing: pdu))
        case .writeRequest: self = .writeRequest(try ATTWriteRequest(parsing: pdu))
        case .writeResponse: self = .writeResponse(try ATTWriteResponse(parsing: pdu))
        case .writeCommand: self = .writeCommand(try ATTWriteCommand(parsing: pdu))
        case .handleValueNotification: self = .handleValueNotification(try ATTHandleValueNotification(parsing: pdu))
        case .handleValueIndication: self = .handleValueIndication(try ATTHandleValueIndication(parsing: pdu))
        case .handleValueConfirmation:
            self = .handleValueConfirmation(try ATTHandleValueConfirmation(parsing: pdu))
        case let opcode where opcode.isRequest || opcode.isResponse || Self.otherDefined.contains(opcode):
            self = .unsupported(opcode: opcode, parameters: Array(pdu.dropFirst()))
        case let opcode:
            throw WireError(.wrongOpcode, "ATT PDU: opcode \(opcode) is not defined by the specification")
        }
    }

    /// Defined opcodes that are neither requests nor responses and that are not modelled.
    private static let otherDefined: Set<ATTOpcode> = [.signedWriteCommand, .multipleHandleValueNotification]

    /// The PDU's opcode.
    public var opcode: ATTOpcode {
        switch self {
        case .errorResponse: .errorResponse
        case .exchangeMTURequest: .exchangeMTURequest
        case .exchangeMTUResponse: .exchangeMTUResponse
        case .findInformationRequest: .findInformationRequest
        case .findInformationResponse: .findInformationResponse
        case .findByTypeValueRequest: .findByTypeValueRequest
        case .findByTypeValueResponse: .findByTypeValueResponse
        case .readByTypeRequest: .readByTypeRequest
        case .readByTypeResponse: .readByTypeResponse
        case .readRequest: .readRequest
        case .readResponse: .readResponse
        case .readBlobRequest: .readBlobRequest
        case .readBlobResponse: .readBlobResponse
        case .readByGroupTypeRequest: .readByGroupTypeRequest
        case .readByGroupTypeResponse: .readByGroupTypeResponse
        case .writeRequest: .writeRequest
        case .writeResponse: .writeResponse
        case .writeCommand: .writeCommand
        case .handleValueNotification: .handleValueNotification
        case .handleValueIndication: .handleValueIndication
        case .handleValueConfirmation: .handleValueConfirmation
        case .unsupported(let opcode, _): opcode
        }
    }

    /// The message inside, as its protocol; nil for `.unsupported`.
    public var message: (any ATTMessage)? {
        switch self {
        case .errorResponse(let m): m
        case .exchangeMTURequest(let m): m
        case .exchangeMTUResponse(let m): m
        case .findInformationRequest(let m): m
        case .findInformationResponse(let m): m
        case .findByTypeValueRequest(let m): m
        case .findByTypeValueResponse(let m): m
        case .readByTypeRequest(let m): m
        case .readByTypeResponse(let m): m
        case .readRequest(let m): m
        case .readResponse(let m): m
        case .readBlobRequest(let m): m
        case .readBlobResponse(let m): m
        case .readByGroupTypeRequest(let m): m
        case .readByGroupTypeResponse(let m): m
        case .writeRequest(let m): m
        case .writeResponse(let m): m
        case .writeCommand(let m): m
        case .handleValueNotification(let m): m
        case .handleValueIndication(let m): m
        case .handleValueConfirmation(let m): m
        case .unsupported: nil
        }
    }

    /// Appends the whole PDU.
    public func encode(into buffer: inout [UInt8]) {
        if let message {
            message.encode(into: &buffer)
        } else if case .unsupported(let opcode, let parameters) = self {
            buffer.append(opcode.rawValue)
            buffer.append(contentsOf: parameters)
        }
    }

    /// The PDU as bytes.
    public var bytes: [UInt8] {
        var buffer: [UInt8] = []
        encode(into: &buffer)
        return buffer
    }
}
