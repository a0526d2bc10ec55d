// SPDX-License-Identifier: GPL-2.0-or-later

/// The 16-byte btsnoop file header: the magic `btsnoop\0`, version 1 and the datalink, all
/// big-endian.
public struct BTSnoopFileHeader: Hashable, Sendable {
    /// `btsnoop\0`.
    public static let magic: [UInt8] = [0x62, 0x74, 0x73, 0x6E, 0x6F, 0x6F, 0x70, 0x00]
    /// The only version there is.
    public static let currentVersion: UInt32 = 1
    /// Header size in bytes.
    public static let size = 16

    /// The format version (1).
    public var version: UInt32
    /// What each record holds.
    public var datalink: BTSnoopDatalink

    /// Creates a version-1 header.
    public init(datalink: BTSnoopDatalink, version: UInt32 = BTSnoopFileHeader.currentVersion) {
        self.version = version
        self.datalink = datalink
    }

    /// Parses exactly 16 bytes (or the first 16 of a longer buffer when `allowTrailing` is set).
    ///
    /// A wrong magic is `invalidValue` ("not a btsnoop file"), a version other than 1 is
    /// `unsupported`. Any datalink is accepted here; the reader decides which it can decode.
    public init(parsing bytes: some Collection<UInt8>, allowTrailing: Bool = false) throws(WireError) {
        var reader = WireReader(bytes.prefix(allowTrailing ? Self.size : Int.max), context: "btsnoop header")
        let magic = Array(try reader.readBytes(8))
        guard magic == Self.magic else {
            throw WireError(
                .invalidValue,
                "btsnoop header: magic \(BluetoothUUID.hex(magic)) is not \"btsnoop\\0\"; is this a btsnoop capture?")
        }
        version = try reader.readUInt32BE()
        guard version == Self.currentVersion else {
            throw WireError(.unsupported, "btsnoop header: version \(version), only version 1 exists")
        }
        datalink = BTSnoopDatalink(rawValue: try reader.readUInt32BE())
        try reader.expectEnd()
    }

    /// Appends the 16 header bytes.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(contentsOf: Self.magic)
        buffer.appendUInt32BE(version)
        buffer.appendUInt32BE(datalink.rawValue)
    }
}
