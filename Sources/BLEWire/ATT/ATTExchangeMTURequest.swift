// SPDX-License-Identifier: GPL-2.0-or-later

/// ATT_EXCHANGE_MTU_REQ: the client's receive MTU (Core Vol 3 Part F 3.4.2.1). Always 3 bytes.
public struct ATTExchangeMTURequest: ATTMessage {
    /// 0x02.
    public static let opcode = ATTOpcode.exchangeMTURequest
    /// The largest PDU the client can receive; at least 23 (the LE default ATT_MTU).
    public var clientRxMTU: UInt16

    /// A request announcing `clientRxMTU`.
    public init(clientRxMTU: UInt16) {
        self.clientRxMTU = clientRxMTU
    }

    /// Parses a whole PDU. An MTU below 23 is `invalidValue`: the specification forbids it.
    public init(parsing pdu: some Collection<UInt8>) throws(WireError) {
        var reader = try Self.parameters(of: pdu, "ATT Exchange MTU Request")
        clientRxMTU = try reader.readUInt16LE()
        try reader.expectEnd()
        guard clientRxMTU >= ATTExchangeMTURequest.minimumMTU else {
            throw WireError(.invalidValue, "ATT Exchange MTU Request: MTU \(clientRxMTU) is below the minimum 23")
        }
    }

    /// Appends the whole PDU.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(Self.opcode.rawValue)
        buffer.appendUInt16LE(clientRxMTU)
    }

    /// The default and smallest ATT_MTU on an LE link.
    public static let minimumMTU: UInt16 = 23
}
