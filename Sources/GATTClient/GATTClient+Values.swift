// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire

/// Values: reads (continued with Read Blob), writes with a response, and the Client Characteristic
/// Configuration writes that switch notifications and indications.
extension GATTClient {
    /// The value at `handle` (Read Request). A value that fills the response (MTU − 1 bytes) is
    /// continued with Read Blob Requests until a shorter part, *Attribute Not Long* or *Invalid
    /// Offset*, or 512 bytes (the longest attribute value).
    public func read(handle: UInt16) async throws -> [UInt8] {
        let response = try await transact(ATTReadRequest(handle: handle))
        guard case .readResponse(let answer) = response else { throw Self.unexpected(response) }
        var value = answer.value
        let full = Int(mtu) - 1
        var part = value.count
        while part >= full && value.count < 512 {
            let blob: ATTPDU
            do {
                blob = try await transact(ATTReadBlobRequest(handle: handle, offset: UInt16(value.count)))
            } catch let error as GATTError
                where error.code == .attError(.attributeNotLong) || error.code == .attError(.invalidOffset)
            {
                break
            }
            guard case .readBlobResponse(let more) = blob else { throw Self.unexpected(blob) }
            value += more.partValue
            part = more.partValue.count
        }
        return value
    }

    /// Writes `value` to `handle` and waits for the Write Response. `value` may be at most
    /// MTU − 3 bytes (long writes are not supported).
    public func write(handle: UInt16, value: [UInt8]) async throws {
        try checkFits(value, handle: handle)
        let response = try await transact(ATTWriteRequest(handle: handle, value: value))
        guard case .writeResponse = response else { throw Self.unexpected(response) }
    }

    /// Switches notifications on for `characteristic`: finds its Client Characteristic
    /// Configuration descriptor (0x2902) and writes 0x0001. Values then arrive on
    /// `notifications`. Throws `.notFound` when the characteristic has no such descriptor.
    public func enableNotifications(for characteristic: GATTCharacteristic) async throws {
        try await configure(characteristic, 0x0001)
    }

    /// Switches indications on for `characteristic` (writes 0x0002 to its CCCD). The client
    /// confirms every indication it receives.
    public func enableIndications(for characteristic: GATTCharacteristic) async throws {
        try await configure(characteristic, 0x0002)
    }

    /// Switches notifications and indications off for `characteristic` (writes 0x0000 to its
    /// CCCD).
    public func disableNotifications(for characteristic: GATTCharacteristic) async throws {
        try await configure(characteristic, 0x0000)
    }

    private func configure(_ characteristic: GATTCharacteristic, _ bits: UInt16) async throws {
        let descriptors = try await discoverDescriptors(of: characteristic)
        guard let cccd = descriptors.first(where: { $0.uuid == .clientCharacteristicConfiguration }) else {
            throw GATTError(
                .notFound,
                "characteristic \(characteristic.uuid) has no Client Characteristic Configuration descriptor, so it "
                    + "cannot notify: check that the right characteristic was chosen",
                handle: characteristic.valueHandle)
        }
        var value: [UInt8] = []
        value.appendUInt16LE(bits)
        try await write(handle: cccd.handle, value: value)
        logger.debug(
            "client characteristic configuration written",
            metadata: ["gatt.characteristic": "\(characteristic.uuid)", "gatt.cccd": "\(bits)"])
    }

    func checkFits(_ value: [UInt8], handle: UInt16) throws {
        let limit = Int(mtu) - 3
        guard value.count <= limit else {
            throw GATTError(
                .invalidArgument,
                "a \(value.count)-byte value does not fit one write at MTU \(mtu): write at most \(limit) bytes, "
                    + "or exchange a larger MTU first",
                handle: handle)
        }
    }
}
