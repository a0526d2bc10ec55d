// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire

/// Discovery: primary services, characteristics and descriptors, each a loop of requests continued
/// after the last handle found until *Attribute Not Found* or the end of the range.
extension GATTClient {
    /// Every primary service, in handle order (Read By Group Type 0x2800 from 0x0001, repeated
    /// after the last group until *Attribute Not Found* or handle 0xFFFF).
    public func discoverPrimaryServices() async throws -> [GATTService] {
        var services: [GATTService] = []
        var start: UInt16? = 0x0001
        while let from = start {
            let request = ATTReadByGroupTypeRequest(
                range: ATTHandleRange(start: from, end: 0xFFFF), groupType: .primaryService)
            guard let response = try await transactUntilNotFound(request) else { break }
            guard case .readByGroupTypeResponse(let answer) = response else { throw Self.unexpected(response) }
            var lowest = UInt32(from)
            for entry in answer.entries {
                try Self.check(entry.range, advancesFrom: lowest, within: request.range, type(of: request).opcode)
                services.append(
                    GATTService(uuid: try Self.uuid(entry.value, type(of: request).opcode), range: entry.range))
                lowest = UInt32(entry.range.end) + 1
            }
            start = Self.handle(from: lowest)
        }
        return services
    }

    /// The primary services of type `uuid`, in handle order (Find By Type Value 0x2800 with the
    /// UUID, repeated until *Attribute Not Found* or handle 0xFFFF). Empty when there is none.
    public func discoverPrimaryService(uuid: BluetoothUUID) async throws -> [GATTService] {
        var value: [UInt8] = []
        uuid.encode(into: &value)
        var services: [GATTService] = []
        var start: UInt16? = 0x0001
        while let from = start {
            let request = ATTFindByTypeValueRequest(
                range: ATTHandleRange(start: from, end: 0xFFFF), attributeType: 0x2800, value: value)
            guard let response = try await transactUntilNotFound(request) else { break }
            guard case .findByTypeValueResponse(let answer) = response else { throw Self.unexpected(response) }
            var lowest = UInt32(from)
            for group in answer.groups {
                try Self.check(group, advancesFrom: lowest, within: request.range, type(of: request).opcode)
                services.append(GATTService(uuid: uuid, range: group))
                lowest = UInt32(group.end) + 1
            }
            start = Self.handle(from: lowest)
        }
        return services
    }

    /// The characteristics of `service`, in handle order (Read By Type 0x2803 over the service's
    /// range, repeated after the last declaration until *Attribute Not Found* or the service's
    /// end). Each characteristic ends one handle before the next declaration; the last ends with
    /// the service.
    public func discoverCharacteristics(in service: GATTService) async throws -> [GATTCharacteristic] {
        var found: [(handle: UInt16, declaration: GATTCharacteristicDeclaration)] = []
        var start: UInt16? = service.range.start
        while let from = start, from <= service.range.end {
            let request = ATTReadByTypeRequest(
                range: ATTHandleRange(start: from, end: service.range.end), attributeType: .characteristic)
            guard let response = try await transactUntilNotFound(request) else { break }
            guard case .readByTypeResponse(let answer) = response else { throw Self.unexpected(response) }
            var lowest = UInt32(from)
            for entry in answer.entries {
                let declaration: GATTCharacteristicDeclaration
                do {
                    declaration = try GATTCharacteristicDeclaration(parsing: entry.value)
                } catch {
                    throw GATTError(
                        .malformedResponse, "characteristic declaration at \(Self.hex(entry.handle)): \(error.message)",
                        requestOpcode: type(of: request).opcode, handle: entry.handle, cause: error)
                }
                guard UInt32(entry.handle) >= lowest, entry.handle <= service.range.end,
                    declaration.valueHandle > entry.handle, declaration.valueHandle <= service.range.end
                else {
                    throw GATTError(
                        .malformedResponse,
                        "characteristic declaration at \(Self.hex(entry.handle)) (value "
                            + "\(Self.hex(declaration.valueHandle))) lies outside \(service.range) or out of order",
                        requestOpcode: type(of: request).opcode, handle: entry.handle)
                }
                found.append((entry.handle, declaration))
                lowest = UInt32(entry.handle) + 1
            }
            start = Self.handle(from: lowest)
        }
        return try found.indices.map { index in
            let (handle, declaration) = found[index]
            let end = index + 1 < found.count ? found[index + 1].handle - 1 : service.range.end
            guard declaration.valueHandle <= end else {
                throw GATTError(
                    .malformedResponse,
                    "characteristic value \(Self.hex(declaration.valueHandle)) lies beyond the next declaration",
                    requestOpcode: .readByTypeRequest, handle: handle)
            }
            return GATTCharacteristic(
                uuid: declaration.uuid, declarationHandle: handle, valueHandle: declaration.valueHandle,
                properties: declaration.properties, endHandle: end)
        }
    }

    /// The descriptors of `characteristic`, in handle order (Find Information from the value
    /// handle + 1 to the characteristic's end, repeated until *Attribute Not Found* or the end).
    /// Empty without a request when the characteristic has no room for descriptors.
    public func discoverDescriptors(of characteristic: GATTCharacteristic) async throws -> [GATTDescriptor] {
        var descriptors: [GATTDescriptor] = []
        var start = Self.handle(after: characteristic.valueHandle)
        while let from = start, from <= characteristic.endHandle {
            let request = ATTFindInformationRequest(range: ATTHandleRange(start: from, end: characteristic.endHandle))
            guard let response = try await transactUntilNotFound(request) else { break }
            guard case .findInformationResponse(let answer) = response else { throw Self.unexpected(response) }
            var lowest = UInt32(from)
            for entry in answer.entries {
                guard UInt32(entry.handle) >= lowest, request.range.contains(entry.handle) else {
                    throw GATTError(
                        .malformedResponse,
                        "descriptor at \(Self.hex(entry.handle)) lies outside \(request.range) or out of order",
                        requestOpcode: type(of: request).opcode, handle: entry.handle)
                }
                descriptors.append(GATTDescriptor(handle: entry.handle, uuid: entry.type))
                lowest = UInt32(entry.handle) + 1
            }
            start = Self.handle(from: lowest)
        }
        return descriptors
    }

    /// The first characteristic of type `uuid` in the first primary service of type
    /// `serviceUUID`: the one call a sensor session needs before enabling notifications. Throws
    /// `.notFound` when either is missing.
    public func characteristic(
        _ uuid: BluetoothUUID, inService serviceUUID: BluetoothUUID
    ) async throws
        -> GATTCharacteristic
    {
        guard let service = try await discoverPrimaryService(uuid: serviceUUID).first else {
            throw GATTError(
                .notFound, "the device has no service \(serviceUUID): check that it is the expected sensor model")
        }
        guard let found = try await discoverCharacteristics(in: service).first(where: { $0.uuid == uuid }) else {
            throw GATTError(
                .notFound,
                "service \(serviceUUID) has no characteristic \(uuid): check the sensor's firmware version")
        }
        return found
    }

    /// `transact`, returning nil for *Attribute Not Found*: how every discovery loop ends.
    private func transactUntilNotFound(_ request: some ATTMessage) async throws -> ATTPDU? {
        do {
            return try await transact(request)
        } catch let error as GATTError where error.code == .attError(.attributeNotFound) {
            return nil
        }
    }

    /// The handle after `handle`, nil at the end of the handle space.
    private static func handle(after handle: UInt16) -> UInt16? {
        handle == 0xFFFF ? nil : handle + 1
    }

    /// `lowest` as a handle to continue from, nil past the end of the handle space.
    private static func handle(from lowest: UInt32) -> UInt16? {
        lowest > 0xFFFF ? nil : UInt16(lowest)
    }

    private static func check(
        _ range: ATTHandleRange, advancesFrom lowest: UInt32, within bounds: ATTHandleRange, _ opcode: ATTOpcode
    ) throws {
        guard UInt32(range.start) >= lowest, range.start <= range.end, bounds.contains(range.start) else {
            throw GATTError(
                .malformedResponse, "group \(range) is empty, out of order or outside \(bounds)",
                requestOpcode: opcode, handle: range.start)
        }
    }

    private static func uuid(_ value: [UInt8], _ opcode: ATTOpcode) throws -> BluetoothUUID {
        guard value.count == 2 || value.count == 16 else {
            throw GATTError(
                .malformedResponse, "service UUID is \(value.count) bytes, expected 2 or 16", requestOpcode: opcode)
        }
        do {
            return try BluetoothUUID(littleEndian: value)
        } catch {
            throw GATTError(.malformedResponse, "service UUID: \(error.message)", requestOpcode: opcode, cause: error)
        }
    }
}
