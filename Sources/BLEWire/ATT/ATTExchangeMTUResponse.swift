// SPDX-License-Identifier: GPL-2.0-or-later

/// ATT_EXCHANGE_MTU_RSP: the server's receive MTU (Core Vol 3 Part F 3.4.2.2). Always 3 bytes.
///
/// Both sides then use the smaller of the two MTUs.
public struct ATTExchangeMTUResponse: ATTMessage {
    /// 0x03.
    public static let opcode = ATTOpcode.exchangeMTUResponse
    /// The largest PDU the server can receive; at least 23.
    public var serverRxMTU: UInt16

    /// A response announcing `serverRxMTU`.
    public init(serverRxMTU: UInt16) {
        self.serverRxMTU = serverRxMTU
    }

    /// Parses a whole PDU. An MTU below 23 is `invalidValue`.
    public init(parsing pdu: some Collection<UInt8>) throws(WireError) {
        var reader = try Self.parameters(of: pdu, "ATT Exchange MTU Response")
        serverRxMTU = try reader.readUInt16LE()
        try reader.expectEnd()
        guard serverRxMTU >= ATTExchangeMTURequest.minimumMTU else {
            throw WireError(.invalidValue, "ATT Exchange MTU Response: MTU \(serverRxMTU) is below the minimum 23")
        }
    }

    /// Appends the whole PDU.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(Self.opcode.rawValue)
        buffer.appendUInt16LE(serverRxMTU)
    }
}
