// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire

/// The ATT server side of one connection, as pure protocol logic (Core Vol 3 Part F and G).
///
/// Feed every PDU the client sends to `handle(_:)`; it answers requests from the attribute table
/// and returns what the I/O layer must do: send bytes, react to a CCCD write, note the MTU. It
/// never does I/O and never reads a clock. One value serves one connection: the MTU and the CCCD
/// values it holds belong to that connection.
public struct GATTServer: Sendable {
    /// Something the I/O layer must do after a PDU was handled.
    public enum Action: Hashable, Sendable {
        /// Send these bytes (a whole PDU) to the client.
        case send([UInt8])
        /// The client wrote the CCCD of the characteristic whose value lives at `valueHandle`:
        /// notifications and indications are now on or off as given.
        case configurationChanged(valueHandle: UInt16, notify: Bool, indicate: Bool)
        /// The first Exchange MTU fixed the connection's ATT_MTU at this value.
        case mtuChanged(Int)
        /// The client confirmed an indication.
        case indicationConfirmed
    }

    /// The ATT_MTU every LE link starts with, and the smallest one allowed.
    public static let defaultMTU = 23

    /// The attribute table with this connection's values (CCCDs, last notified values).
    public private(set) var database: GATTDatabase
    /// The MTU this server announces in its Exchange MTU Response.
    public let serverMTU: Int
    /// The connection's ATT_MTU: 23 until an Exchange MTU, then min(client, server), at least 23.
    public private(set) var mtu: Int = GATTServer.defaultMTU
    private var mtuExchanged = false

    /// A server answering from `database`, announcing `serverMTU` (raised to 23 if lower).
    public init(database: GATTDatabase, serverMTU: Int = GATTServer.defaultMTU) {
        self.database = database
        self.serverMTU = max(Self.defaultMTU, min(serverMTU, Int(UInt16.max)))
    }

    // MARK: Notifications

    /// True when the client has enabled notifications for the characteristic at `valueHandle`.
    public func isNotifying(valueHandle: UInt16) -> Bool {
        configuration(ofValueHandle: valueHandle).notify
    }

    /// The Handle Value Notification for a new `value` of the characteristic at `valueHandle`,
    /// or nil when the client has not enabled notifications for it. The value is stored in the
    /// table and cut to ATT_MTU − 3 bytes, as the specification requires.
    public mutating func notification(valueHandle: UInt16, value: [UInt8]) -> [UInt8]? {
        guard isNotifying(valueHandle: valueHandle) else { return nil }
        database.setValue(value, at: valueHandle)
        return ATTHandleValueNotification(handle: valueHandle, value: Array(value.prefix(mtu - 3))).bytes
    }

    private func configuration(ofValueHandle valueHandle: UInt16) -> (notify: Bool, indicate: Bool) {
        guard let declaration = database.declaration(ofValueHandle: valueHandle),
            let descriptor = database.configurationDescriptorHandle(ofValueHandle: valueHandle),
            let value = database.attribute(at: descriptor)?.value, value.count == 2
        else { return (false, false) }
        return (
            value[0] & 0x01 != 0 && declaration.properties.contains(.notify),
            value[0] & 0x02 != 0 && declaration.properties.contains(.indicate)
        )
    }

    // MARK: Requests

    /// Handles one PDU from the client and returns what to do. Requests always get exactly one
    /// `.send` (a response or an Error Response); commands and confirmations never do.
    public mutating func handle(_ pdu: some Collection<UInt8>) -> [Action] {
        guard let first = pdu.first else { return [] }
        let opcode = ATTOpcode(rawValue: first)
        let parsed: ATTPDU
        do {
            parsed = try ATTPDU(parsing: pdu)
        } catch {
            return handleUnparsable(opcode: opcode, pdu: pdu, error: error)
        }
        switch parsed {
        case .exchangeMTURequest(let request): return exchangeMTU(clientMTU: Int(request.clientRxMTU))
        case .findInformationRequest(let request): return reply(opcode, findInformation(request))
        case .findByTypeValueRequest(let request): return reply(opcode, findByTypeValue(request))
        case .readByTypeRequest(let request): return reply(opcode, readByType(request))
        case .readByGroupTypeRequest(let request): return reply(opcode, readByGroupType(request))
        case .readRequest(let request): return reply(opcode, read(request))
        case .readBlobRequest(let request): return reply(opcode, readBlob(request))
        case .writeRequest(let request):
            var actions: [Action] = []
            let result = write(handle: request.handle, value: request.value, actions: &actions)
            return [.send(response(opcode, result.map { ATTWriteResponse().bytes }))] + actions
        case .writeCommand(let command):
            var actions: [Action] = []
            _ = write(handle: command.handle, value: command.value, actions: &actions)
            return actions
        case .handleValueConfirmation: return [.indicationConfirmed]
        case .unsupported(let opcode, _):
            return opcode.isRequest ? [.send(errorBytes(opcode, 0, .requestNotSupported))] : []
        default:
            // Responses, notifications and indications are the server's to send, not to receive.
            return []
        }
    }

    private mutating func handleUnparsable(opcode: ATTOpcode, pdu: some Collection<UInt8>, error: WireError) -> [Action]
    {
        if opcode.isRequest {
            // An Exchange MTU below 23 is well-formed but out of range: use the default.
            if opcode == .exchangeMTURequest, pdu.count == 3, error.code == .invalidValue {
                return exchangeMTU(clientMTU: Self.defaultMTU)
            }
            return [.send(errorBytes(opcode, 0, .invalidPDU))]
        }
        // An opcode the specification does not define: a request unless its command flag is set.
        if error.code == .wrongOpcode, !opcode.isCommand, !opcode.isResponse {
            return [.send(errorBytes(opcode, 0, .requestNotSupported))]
        }
        return []
    }

    private mutating func exchangeMTU(clientMTU: Int) -> [Action] {
        let response = ATTExchangeMTUResponse(serverRxMTU: UInt16(serverMTU)).bytes
        // Only the first exchange sets the MTU (Core Vol 3 Part F 3.4.2.2); a repeated request
        // is still answered so the client is not left waiting.
        guard !mtuExchanged else { return [.send(response)] }
        mtuExchanged = true
        mtu = max(Self.defaultMTU, min(clientMTU, serverMTU))
        return [.send(response), .mtuChanged(mtu)]
    }

    private func reply(_ opcode: ATTOpcode, _ result: Result<[UInt8], ATTFailure>) -> [Action] {
        [.send(response(opcode, result))]
    }

    private func response(_ opcode: ATTOpcode, _ result: Result<[UInt8], ATTFailure>) -> [UInt8] {
        switch result {
        case .success(let bytes): bytes
        case .failure(let failure): errorBytes(opcode, failure.handle, failure.code)
        }
    }

    private func errorBytes(_ opcode: ATTOpcode, _ handle: UInt16, _ code: ATTErrorCode) -> [UInt8] {
        ATTErrorResponse(requestOpcode: opcode, handle: handle, error: code).bytes
    }

    private func checkRange(_ range: ATTHandleRange) -> Result<Void, ATTFailure> {
        range.isValid ? .success(()) : .failure(ATTFailure(handle: range.start, code: .invalidHandle))
    }

    private func findInformation(_ request: ATTFindInformationRequest) -> Result<[UInt8], ATTFailure> {
        let range = request.range
        if case .failure(let failure) = checkRange(range) { return .failure(failure) }
        let entries = database.attributes(in: range).map {
            ATTFindInformationResponse.Entry(handle: $0.handle, type: $0.type)
        }
        guard !entries.isEmpty else { return .failure(ATTFailure(handle: range.start, code: .attributeNotFound)) }
        return .success(ATTFindInformationResponse.fitting(entries, mtu: mtu).bytes)
    }

    private func findByTypeValue(_ request: ATTFindByTypeValueRequest) -> Result<[UInt8], ATTFailure> {
        let range = request.range
        if case .failure(let failure) = checkRange(range) { return .failure(failure) }
        let type = BluetoothUUID(request.attributeType)
        let capacity = (mtu - 1) / 4
        var groups: [ATTHandleRange] = []
        for attribute in database.attributes(in: range)
        where attribute.type == type && attribute.permissions.contains(.readable) && attribute.value == request.value {
            let end = attribute.isServiceDeclaration ? database.groupEnd(of: attribute.handle) : attribute.handle
            groups.append(ATTHandleRange(start: attribute.handle, end: end))
            if groups.count == capacity { break }
        }
        guard !groups.isEmpty else { return .failure(ATTFailure(handle: range.start, code: .attributeNotFound)) }
        return .success(ATTFindByTypeValueResponse(groups: groups).bytes)
    }

    private func readByType(_ request: ATTReadByTypeRequest) -> Result<[UInt8], ATTFailure> {
        let range = request.range
        if case .failure(let failure) = checkRange(range) { return .failure(failure) }
        let maximumValue = min(mtu - 4, 253)
        var entries: [ATTReadByTypeResponse.Entry] = []
        for attribute in database.attributes(in: range) where attribute.type == request.attributeType {
            guard attribute.permissions.contains(.readable) else {
                if entries.isEmpty { return .failure(ATTFailure(handle: attribute.handle, code: .readNotPermitted)) }
                break
            }
            let value = Array(attribute.value.prefix(maximumValue))
            if let first = entries.first {
                guard value.count == first.value.count else { break }
                guard (entries.count + 1) * (2 + value.count) <= mtu - 2 else { break }
            }
            entries.append(ATTReadByTypeResponse.Entry(handle: attribute.handle, value: value))
        }
        guard !entries.isEmpty else { return .failure(ATTFailure(handle: range.start, code: .attributeNotFound)) }
        return .success(ATTReadByTypeResponse(entries: entries).bytes)
    }

    private func readByGroupType(_ request: ATTReadByGroupTypeRequest) -> Result<[UInt8], ATTFailure> {
        let range = request.range
        if case .failure(let failure) = checkRange(range) { return .failure(failure) }
        guard request.groupType == .primaryService || request.groupType == .secondaryService else {
            return .failure(ATTFailure(handle: range.start, code: .unsupportedGroupType))
        }
        let maximumValue = min(mtu - 6, 251)
        var entries: [ATTReadByGroupTypeResponse.Entry] = []
        for attribute in database.attributes(in: range) where attribute.type == request.groupType {
            let value = Array(attribute.value.prefix(maximumValue))
            if let first = entries.first {
                guard value.count == first.value.count else { break }
                guard (entries.count + 1) * (4 + value.count) <= mtu - 2 else { break }
            }
            let group = ATTHandleRange(start: attribute.handle, end: database.groupEnd(of: attribute.handle))
            entries.append(ATTReadByGroupTypeResponse.Entry(range: group, value: value))
        }
        guard !entries.isEmpty else { return .failure(ATTFailure(handle: range.start, code: .attributeNotFound)) }
        return .success(ATTReadByGroupTypeResponse(entries: entries).bytes)
    }

    private func readableAttribute(_ handle: UInt16) -> Result<GATTAttribute, ATTFailure> {
        guard let attribute = database.attribute(at: handle) else {
            return .failure(ATTFailure(handle: handle, code: .invalidHandle))
        }
        guard attribute.permissions.contains(.readable) else {
            return .failure(ATTFailure(handle: handle, code: .readNotPermitted))
        }
        return .success(attribute)
    }

    private func read(_ request: ATTReadRequest) -> Result<[UInt8], ATTFailure> {
        readableAttribute(request.handle).map { attribute in
            ATTReadResponse(value: Array(attribute.value.prefix(mtu - 1))).bytes
        }
    }

    private func readBlob(_ request: ATTReadBlobRequest) -> Result<[UInt8], ATTFailure> {
        readableAttribute(request.handle).flatMap { attribute in
            let offset = Int(request.offset)
            guard offset <= attribute.value.count else {
                return .failure(ATTFailure(handle: request.handle, code: .invalidOffset))
            }
            // A value that a Read Response carries whole with room to spare is not long.
            guard attribute.value.count > mtu - 3 else {
                return .failure(ATTFailure(handle: request.handle, code: .attributeNotLong))
            }
            let part = attribute.value[offset...].prefix(mtu - 1)
            return .success(ATTReadBlobResponse(partValue: Array(part)).bytes)
        }
    }

    /// Applies a write; success carries nothing, the caller builds the Write Response.
    private mutating func write(handle: UInt16, value: [UInt8], actions: inout [Action]) -> Result<Void, ATTFailure> {
        guard let attribute = database.attribute(at: handle) else {
            return .failure(ATTFailure(handle: handle, code: .invalidHandle))
        }
        guard attribute.permissions.contains(.writable) else {
            return .failure(ATTFailure(handle: handle, code: .writeNotPermitted))
        }
        if attribute.type == .clientCharacteristicConfiguration {
            guard value.count == 2 else {
                return .failure(ATTFailure(handle: handle, code: .invalidAttributeValueLength))
            }
            database.setValue(value, at: handle)
            if let characteristic = database.characteristic(ofDescriptor: handle) {
                let state = configuration(ofValueHandle: characteristic.valueHandle)
                actions.append(
                    .configurationChanged(
                        valueHandle: characteristic.valueHandle, notify: state.notify, indicate: state.indicate))
            }
            return .success(())
        }
        guard value.count <= 512 else {
            return .failure(ATTFailure(handle: handle, code: .invalidAttributeValueLength))
        }
        database.setValue(value, at: handle)
        return .success(())
    }
}

/// Why a request failed: the handle and code of the Error Response.
private struct ATTFailure: Error {
    var handle: UInt16
    var code: ATTErrorCode
}
