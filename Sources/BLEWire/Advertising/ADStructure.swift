// SPDX-License-Identifier: GPL-2.0-or-later

/// One advertising-data structure (Core Supplement Part A): a length byte, a type byte, then
/// `length - 1` bytes of data.
///
/// Known types decode to typed cases; every other type keeps its bytes in `other`, so encoding a
/// parsed structure reproduces the input exactly.
public enum ADStructure: Hashable, Sendable {
    /// Flags (0x01): LE Limited/General Discoverable, BR/EDR Not Supported, etc.
    case flags(UInt8)
    /// 16-bit service UUIDs (0x02 incomplete list, 0x03 complete list).
    case serviceUUIDs16(complete: Bool, [BluetoothUUID])
    /// 32-bit service UUIDs (0x04 incomplete list, 0x05 complete list).
    case serviceUUIDs32(complete: Bool, [BluetoothUUID])
    /// 128-bit service UUIDs (0x06 incomplete list, 0x07 complete list).
    case serviceUUIDs128(complete: Bool, [BluetoothUUID])
    /// Local name (0x08 shortened, 0x09 complete), kept as the raw bytes so invalid UTF-8 survives.
    case localName(complete: Bool, bytes: [UInt8])
    /// TX Power Level (0x0A) in dBm.
    case txPowerLevel(Int8)
    /// Manufacturer Specific Data (0xFF): a company identifier, then the company's bytes.
    case manufacturerData(companyID: UInt16, data: [UInt8])
    /// Any other AD type, with its data bytes.
    case other(type: UInt8, data: [UInt8])

    /// AD type codes this codec decodes to typed cases.
    public enum TypeCode {
        /// Flags.
        public static let flags: UInt8 = 0x01
        /// Incomplete list of 16-bit service UUIDs.
        public static let incompleteServiceUUIDs16: UInt8 = 0x02
        /// Complete list of 16-bit service UUIDs.
        public static let completeServiceUUIDs16: UInt8 = 0x03
        /// Incomplete list of 32-bit service UUIDs.
        public static let incompleteServiceUUIDs32: UInt8 = 0x04
        /// Complete list of 32-bit service UUIDs.
        public static let completeServiceUUIDs32: UInt8 = 0x05
        /// Incomplete list of 128-bit service UUIDs.
        public static let incompleteServiceUUIDs128: UInt8 = 0x06
        /// Complete list of 128-bit service UUIDs.
        public static let completeServiceUUIDs128: UInt8 = 0x07
        /// Shortened local name.
        public static let shortenedLocalName: UInt8 = 0x08
        /// Complete local name.
        public static let completeLocalName: UInt8 = 0x09
        /// TX power level.
        public static let txPowerLevel: UInt8 = 0x0A
        /// Manufacturer specific data.
        public static let manufacturerData: UInt8 = 0xFF
    }

    /// Decodes the data of one structure whose type byte is `type`.
    ///
    /// Throws `wrongLength` when the data does not fit the type (flags or TX power not one byte,
    /// a UUID list not a multiple of the UUID width, manufacturer data shorter than its company id).
    public init(type: UInt8, data: some Collection<UInt8>) throws(WireError) {
        let data = Array(data)
        switch type {
        case TypeCode.flags:
            guard data.count == 1 else { throw Self.lengthError("Flags", data.count, "1") }
            self = .flags(data[0])
        case TypeCode.incompleteServiceUUIDs16, TypeCode.completeServiceUUIDs16:
            self = .serviceUUIDs16(
                complete: type == TypeCode.completeServiceUUIDs16, try Self.uuids(data, width: 2))
        case TypeCode.incompleteServiceUUIDs32, TypeCode.completeServiceUUIDs32:
            self = .serviceUUIDs32(
                complete: type == TypeCode.completeServiceUUIDs32, try Self.uuids(data, width: 4))
        case TypeCode.incompleteServiceUUIDs128, TypeCode.completeServiceUUIDs128:
            self = .serviceUUIDs128(
                complete: type == TypeCode.completeServiceUUIDs128, try Self.uuids(data, width: 16))
        case TypeCode.shortenedLocalName, TypeCode.completeLocalName:
            self = .localName(complete: type == TypeCode.completeLocalName, bytes: data)
        case TypeCode.txPowerLevel:
            guard data.count == 1 else { throw Self.lengthError("TX Power Level", data.count, "1") }
            self = .txPowerLevel(Int8(bitPattern: data[0]))
        case TypeCode.manufacturerData:
            guard data.count >= 2 else { throw Self.lengthError("Manufacturer Specific Data", data.count, ">= 2") }
            self = .manufacturerData(companyID: UInt16(data[0]) | UInt16(data[1]) << 8, data: Array(data[2...]))
        default:
            self = .other(type: type, data: data)
        }
    }

    /// Parses one whole structure, length byte included; the length must cover exactly the bytes.
    public init(parsing bytes: some Collection<UInt8>) throws(WireError) {
        var reader = WireReader(bytes, context: "AD structure")
        let length = Int(try reader.readUInt8())
        guard length > 0 else { throw WireError(.wrongLength, "AD structure: length 0 has no type byte") }
        guard reader.count == length else {
            throw WireError(.wrongLength, "AD structure: length byte says \(length), \(reader.count) byte(s) follow")
        }
        let type = try reader.readUInt8()
        try self.init(type: type, data: reader.readRest())
    }

    /// The AD type byte this structure encodes with.
    public var type: UInt8 {
        switch self {
        case .flags: TypeCode.flags
        case .serviceUUIDs16(let complete, _):
            complete ? TypeCode.completeServiceUUIDs16 : TypeCode.incompleteServiceUUIDs16
        case .serviceUUIDs32(let complete, _):
            complete ? TypeCode.completeServiceUUIDs32 : TypeCode.incompleteServiceUUIDs32
        case .serviceUUIDs128(let complete, _):
            complete ? TypeCode.completeServiceUUIDs128 : TypeCode.incompleteServiceUUIDs128
        case .localName(let complete, _): complete ? TypeCode.completeLocalName : TypeCode.shortenedLocalName
        case .txPowerLevel: TypeCode.txPowerLevel
        case .manufacturerData: TypeCode.manufacturerData
        case .other(let type, _): type
        }
    }

    /// The data bytes (after the type byte).
    public var data: [UInt8] {
        var out: [UInt8] = []
        switch self {
        case .flags(let value): out.append(value)
        case .serviceUUIDs16(_, let list): for uuid in list { uuid.encode(into: &out, width: 2) }
        case .serviceUUIDs32(_, let list): for uuid in list { uuid.encode(into: &out, width: 4) }
        case .serviceUUIDs128(_, let list): for uuid in list { uuid.encode(into: &out, width: 16) }
        case .localName(_, let bytes): out = bytes
        case .txPowerLevel(let power): out.append(UInt8(bitPattern: power))
        case .manufacturerData(let company, let data):
            out.appendUInt16LE(company)
            out.append(contentsOf: data)
        case .other(_, let data): out = data
        }
        return out
    }

    /// Appends length, type and data. A structure longer than 254 data bytes cannot be encoded in
    /// one length byte; its data is cut to 254 bytes (advertising PDUs are far shorter anyway).
    public func encode(into buffer: inout [UInt8]) {
        let payload = data.prefix(254)
        buffer.append(UInt8(payload.count + 1))
        buffer.append(type)
        buffer.append(contentsOf: payload)
    }

    /// The local name as text; invalid UTF-8 sequences become U+FFFD instead of failing.
    public var localName: String? {
        guard case .localName(_, let bytes) = self else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func uuids(_ data: [UInt8], width: Int) throws(WireError) -> [BluetoothUUID] {
        guard data.count % width == 0 else {
            throw lengthError("\(width * 8)-bit service UUID list", data.count, "a multiple of \(width)")
        }
        var list: [BluetoothUUID] = []
        var start = 0
        while start < data.count {
            list.append(try BluetoothUUID(littleEndian: data[start..<start + width]))
            start += width
        }
        return list
    }

    private static func lengthError(_ what: String, _ count: Int, _ expected: String) -> WireError {
        WireError(.wrongLength, "AD \(what): \(count) data byte(s), expected \(expected)")
    }
}
