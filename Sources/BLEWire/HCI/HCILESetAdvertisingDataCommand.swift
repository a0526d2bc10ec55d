// SPDX-License-Identifier: GPL-2.0-or-later

/// LE Set Advertising Data (0x2008): the advertising data a legacy advertiser sends, at most 31 bytes
/// (Core Vol 4 Part E 7.8.7).
///
/// On the wire the significant length is followed by a 31-byte field padded with zeros; this
/// type keeps the significant bytes only, and encoding pads them again.
public struct HCILESetAdvertisingDataCommand: HCICommand {
    /// LE Set Advertising Data.
    public static let opcode = HCIOpcode.leSetAdvertisingData

    /// The most significant bytes one legacy PDU carries.
    public static let maximumLength = 31

    /// The significant bytes, at most maximumLength (more are cut when encoding).
    public var data: [UInt8]

    /// Creates the command from raw bytes.
    public init(data: [UInt8]) {
        self.data = data
    }

    /// Creates the command from AD structures.
    public init(_ advertisingData: AdvertisingData) {
        var bytes: [UInt8] = []
        advertisingData.encode(into: &bytes)
        self.init(data: bytes)
    }

    /// Parses the 32 parameter bytes (length, then 31 bytes); a length above 31 is
    /// `invalidValue`, fewer or more than 32 bytes are `truncated`/`wrongLength`.
    public init(parameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(parameters, context: "LE Set Advertising Data")
        let length = Int(try reader.readUInt8())
        guard length <= Self.maximumLength else {
            throw WireError(.invalidValue, "\(reader.context): length is \(length), at most 31 allowed")
        }
        let field = try reader.readBytes(Self.maximumLength)
        try reader.expectEnd()
        data = Array(field.prefix(length))
    }

    /// The significant bytes as AD structures.
    ///
    /// - Throws: `WireError` when they are not well-formed advertising data.
    public var advertisingData: AdvertisingData {
        get throws(WireError) { try AdvertisingData(parsing: data) }
    }

    /// Appends the length and the 31-byte field, zero-padded.
    public func encodeParameters(into buffer: inout [UInt8]) {
        let significant = data.prefix(Self.maximumLength)
        buffer.append(UInt8(significant.count))
        buffer.append(contentsOf: significant)
        buffer.append(contentsOf: repeatElement(0, count: Self.maximumLength - significant.count))
    }
}
