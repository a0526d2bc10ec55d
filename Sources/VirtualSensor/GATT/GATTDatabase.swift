// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire

/// A GATT server's attribute table: attributes in handle order, handles 1, 2, 3, … without gaps.
///
/// Build one with `GATTDatabase.Builder`, which lays out services, characteristic declarations,
/// values and descriptors the way Core Vol 3 Part G 3 requires. The table is a value: a server
/// owns a copy and changes only the values (CCCD writes, notified values), never the layout.
public struct GATTDatabase: Hashable, Sendable {
    /// Every attribute, in handle order; `attributes[i].handle == i + 1`.
    public private(set) var attributes: [GATTAttribute]

    fileprivate init(attributes: [GATTAttribute]) {
        self.attributes = attributes
    }

    /// The highest handle in use, or 0 for an empty table.
    public var lastHandle: UInt16 { attributes.last?.handle ?? 0 }

    /// The attribute at `handle`, or nil when the handle is not in the table.
    public func attribute(at handle: UInt16) -> GATTAttribute? {
        guard handle >= 1, Int(handle) <= attributes.count else { return nil }
        return attributes[Int(handle) - 1]
    }

    /// The attributes whose handles lie in `range`, in handle order.
    public func attributes(in range: ATTHandleRange) -> ArraySlice<GATTAttribute> {
        guard range.isValid, range.start <= lastHandle else { return [] }
        let upper = min(Int(range.end), attributes.count)
        return attributes[(Int(range.start) - 1)..<upper]
    }

    /// Replaces the value at `handle`; does nothing for a handle not in the table.
    public mutating func setValue(_ value: [UInt8], at handle: UInt16) {
        guard attribute(at: handle) != nil else { return }
        attributes[Int(handle) - 1].value = value
    }

    /// The last handle of the group a service declaration at `handle` starts: the handle before
    /// the next service declaration, or the table's last handle.
    public func groupEnd(of handle: UInt16) -> UInt16 {
        guard handle >= 1 else { return 0 }
        var end = handle
        while Int(end) < attributes.count, !attributes[Int(end)].isServiceDeclaration {
            end += 1
        }
        return min(end, lastHandle)
    }

    /// The primary services: each declaration's handle range and service UUID.
    public var primaryServices: [(range: ATTHandleRange, uuid: BluetoothUUID)] {
        attributes.compactMap { attribute in
            guard attribute.type == .primaryService, let uuid = try? BluetoothUUID(littleEndian: attribute.value)
            else { return nil }
            return (ATTHandleRange(start: attribute.handle, end: groupEnd(of: attribute.handle)), uuid)
        }
    }

    /// The characteristic declarations in `range` (a service's range, or all of it).
    public func characteristics(in range: ATTHandleRange = .all) -> [GATTCharacteristicDeclaration] {
        attributes(in: range).compactMap { attribute in
            guard attribute.type == .characteristic else { return nil }
            return try? GATTCharacteristicDeclaration(parsing: attribute.value)
        }
    }

    /// The declaration of the characteristic whose value lives at `valueHandle`.
    public func declaration(ofValueHandle valueHandle: UInt16) -> GATTCharacteristicDeclaration? {
        guard valueHandle >= 2, let attribute = attribute(at: valueHandle - 1), attribute.type == .characteristic
        else { return nil }
        return try? GATTCharacteristicDeclaration(parsing: attribute.value)
    }

    /// The value handle of the first characteristic of type `uuid`, optionally inside the
    /// service `service`.
    public func valueHandle(of uuid: BluetoothUUID, inService service: BluetoothUUID? = nil) -> UInt16? {
        let range =
            service.map { wanted in primaryServices.first { $0.uuid == wanted }?.range }
            ?? ATTHandleRange.all
        guard let range else { return nil }
        return characteristics(in: range).first { $0.uuid == uuid }?.valueHandle
    }

    /// The characteristic a descriptor at `handle` belongs to: the nearest declaration before it
    /// within the same service, or nil when `handle` is not a descriptor.
    public func characteristic(ofDescriptor handle: UInt16) -> GATTCharacteristicDeclaration? {
        var candidate = handle
        while candidate > 1 {
            candidate -= 1
            guard let attribute = attribute(at: candidate), !attribute.isServiceDeclaration else { return nil }
            if attribute.type == .characteristic {
                guard let declaration = try? GATTCharacteristicDeclaration(parsing: attribute.value),
                    declaration.valueHandle < handle
                else { return nil }
                return declaration
            }
        }
        return nil
    }

    /// The handle of the Client Characteristic Configuration descriptor of the characteristic
    /// whose value lives at `valueHandle`, if it has one.
    public func configurationDescriptorHandle(ofValueHandle valueHandle: UInt16) -> UInt16? {
        var handle = valueHandle
        while let next = attribute(at: handle &+ 1), next.type != .characteristic, !next.isServiceDeclaration {
            if next.type == .clientCharacteristicConfiguration { return next.handle }
            handle = next.handle
        }
        return nil
    }
}

extension GATTDatabase {
    /// Lays out an attribute table in order: services, their characteristics, descriptors.
    ///
    /// ```swift
    /// var builder = GATTDatabase.Builder()
    /// builder.addPrimaryService(.genericAccess)
    /// builder.addCharacteristic(.deviceName, properties: .read, value: Array("BC05…".utf8))
    /// let database = builder.build()
    /// ```
    public struct Builder: Sendable {
        /// The handles `addCharacteristic` assigned.
        public struct CharacteristicHandles: Hashable, Sendable {
            /// The characteristic declaration (type 0x2803).
            public var declaration: UInt16
            /// The characteristic value.
            public var value: UInt16
            /// The CCCD added for a notify or indicate characteristic.
            public var configuration: UInt16?

            /// Handles as given.
            public init(declaration: UInt16, value: UInt16, configuration: UInt16?) {
                self.declaration = declaration
                self.value = value
                self.configuration = configuration
            }
        }

        private var attributes: [GATTAttribute] = []

        /// An empty table.
        public init() {}

        private var nextHandle: UInt16 { UInt16(attributes.count + 1) }

        @discardableResult
        private mutating func append(
            _ type: BluetoothUUID, _ value: [UInt8], _ permissions: GATTAttribute.Permissions
        )
            -> UInt16
        {
            precondition(attributes.count < Int(UInt16.max), "GATT database: the handle space is full")
            let handle = nextHandle
            attributes.append(GATTAttribute(handle: handle, type: type, value: value, permissions: permissions))
            return handle
        }

        /// Starts a primary service: a readable 0x2800 declaration whose value is the service
        /// UUID (2 bytes for a 16-bit UUID, else 16). Returns its handle.
        @discardableResult
        public mutating func addPrimaryService(_ uuid: BluetoothUUID) -> UInt16 {
            var value: [UInt8] = []
            uuid.encode(into: &value)
            return append(.primaryService, value, .readable)
        }

        /// Adds a characteristic to the current service: its declaration, its value attribute
        /// and, for `.notify` or `.indicate`, a CCCD (initially 0x0000).
        ///
        /// The value is readable when `properties` has `.read` and writable when it has `.write`
        /// or `.writeWithoutResponse`, unless `permissions` says otherwise.
        @discardableResult
        public mutating func addCharacteristic(
            _ uuid: BluetoothUUID,
            properties: GATTCharacteristicDeclaration.Properties,
            value: [UInt8] = [],
            permissions: GATTAttribute.Permissions? = nil
        ) -> CharacteristicHandles {
            let declarationHandle = nextHandle
            let declaration = GATTCharacteristicDeclaration(
                properties: properties, valueHandle: declarationHandle + 1, uuid: uuid)
            append(.characteristic, declaration.bytes, .readable)
            var derived: GATTAttribute.Permissions = []
            if properties.contains(.read) { derived.insert(.readable) }
            if !properties.isDisjoint(with: [.write, .writeWithoutResponse]) { derived.insert(.writable) }
            let valueHandle = append(uuid, value, permissions ?? derived)
            var configuration: UInt16?
            if !properties.isDisjoint(with: [.notify, .indicate]) {
                configuration = append(.clientCharacteristicConfiguration, [0x00, 0x00], [.readable, .writable])
            }
            return CharacteristicHandles(
                declaration: declarationHandle, value: valueHandle, configuration: configuration)
        }

        /// Adds a descriptor to the current characteristic. Returns its handle.
        @discardableResult
        public mutating func addDescriptor(
            _ uuid: BluetoothUUID, value: [UInt8], permissions: GATTAttribute.Permissions = .readable
        ) -> UInt16 {
            append(uuid, value, permissions)
        }

        /// The finished table.
        public func build() -> GATTDatabase {
            GATTDatabase(attributes: attributes)
        }
    }
}
