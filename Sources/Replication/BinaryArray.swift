// SPDX-License-Identifier: GPL-2.0-or-later
import NIOCore
import PostgresNIO

/// A one-dimensional PostgreSQL array of fixed-width numbers without nulls, in the binary wire
/// format (`array_recv`), written in one pass. postgres-nio encodes an array element by element
/// through its generic encoder, which was the gateway's largest cost per sample in the catch-up
/// benchmark (Docs/PERFORMANCE.md).
struct BinaryArray<Element: FixedWidthInteger>: PostgresNonThrowingEncodable {
    /// The elements.
    var elements: [Element]
    /// The element type's oid (`int2`, `int8`).
    var elementType: PostgresDataType

    static var psqlType: PostgresDataType { Element.bitWidth == 16 ? .int2Array : .int8Array }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(
        into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        let width = Element.bitWidth / 8
        buffer.writeInteger(Int32(1))  // dimensions
        buffer.writeInteger(Int32(0))  // no nulls
        buffer.writeInteger(elementType.rawValue)
        buffer.writeInteger(Int32(elements.count))
        buffer.writeInteger(Int32(1))  // lower bound
        let bytes = elements.count * (4 + width)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: bytes) { raw in
            var offset = 0
            for element in elements {
                raw.storeBytes(of: UInt32(width).bigEndian, toByteOffset: offset, as: UInt32.self)
                raw.storeBytes(of: element.bigEndian, toByteOffset: offset + 4, as: Element.self)
                offset += 4 + width
            }
            return bytes
        }
    }
}

extension BinaryArray<Int16> {
    init(_ elements: [Int16]) { self.init(elements: elements, elementType: .int2) }
}

extension BinaryArray<Int64> {
    init(_ elements: [Int64]) { self.init(elements: elements, elementType: .int8) }
}

/// `float8[]` in the binary wire format, written in one pass (see ``BinaryArray``).
struct BinaryDoubleArray: PostgresNonThrowingEncodable {
    var elements: [Double]

    static var psqlType: PostgresDataType { .float8Array }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(
        into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        BinaryArray(elements: elements.map(\.bitPattern), elementType: .float8).encode(into: &buffer, context: context)
    }
}
