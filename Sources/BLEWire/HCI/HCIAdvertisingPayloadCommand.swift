// SPDX-License-Identifier: GPL-2.0-or-later

/// The layout LE Set Advertising Data (0x2008) and LE Set Scan Response Data (0x2009) share: a
/// significant length, then a 31-byte field padded with zeros (Core Vol 4 Part E 7.8.7, 7.8.8).
/// Conforming types keep the significant bytes only; parsing and encoding are shared.
public protocol HCIAdvertisingPayloadCommand: HCICommand {
    /// Names the command in parse errors.
    static var name: String { get }
    /// The significant bytes, at most `maximumLength` (more are cut when encoding).
    var data: [UInt8] { get }
    /// Creates the command from raw bytes.
    init(data: [UInt8])
}

extension HCIAdvertisingPayloadCommand {
    /// The most significant bytes one legacy PDU carries.
    public static var maximumLength: Int { 31 }

    /// Creates the command from AD structures.
    public init(_ advertisingData: AdvertisingData) {
        var bytes: [UInt8] = []
        advertisingData.encode(into: &bytes)
        self.init(data: bytes)
    }

    /// Parses the 32 parameter bytes (length, then 31 bytes); a length above 31 is
    /// `invalidValue`, fewer or more than 32 bytes are `truncated`/`wrongLength`.
    public init(parameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(parameters, context: Self.name)
        let length = Int(try reader.readUInt8())
        guard length <= Self.maximumLength else {
            throw WireError(.invalidValue, "\(reader.context): length is \(length), at most 31 allowed")
        }
        let field = try reader.readBytes(Self.maximumLength)
        try reader.expectEnd()
        self.init(data: Array(field.prefix(length)))
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
