// SPDX-License-Identifier: GPL-2.0-or-later

/// LE Set Advertising Parameters (0x2006): legacy advertising interval, type, addresses, channels
/// and filter policy (Core Vol 4 Part E 7.8.5).
public struct HCILESetAdvertisingParametersCommand: HCICommand {
    /// LE Set Advertising Parameters.
    public static let opcode = HCIOpcode.leSetAdvertisingParameters

    /// The legacy advertising PDU type.
    public enum AdvertisingType: UInt8, Hashable, Sendable {
        /// ADV_IND: connectable and scannable undirected (what a sensor waiting for a gateway sends).
        case connectableUndirected = 0x00
        /// ADV_DIRECT_IND, high duty cycle.
        case connectableDirectedHighDuty = 0x01
        /// ADV_SCAN_IND: scannable undirected, not connectable.
        case scannableUndirected = 0x02
        /// ADV_NONCONN_IND: neither connectable nor scannable.
        case nonConnectableUndirected = 0x03
        /// ADV_DIRECT_IND, low duty cycle.
        case connectableDirectedLowDuty = 0x04
    }

    /// Shortest advertising interval in units of 0.625 ms (0x0020...0x4000).
    public var intervalMin: UInt16
    /// Longest advertising interval in units of 0.625 ms, at least `intervalMin`.
    public var intervalMax: UInt16
    /// Which advertising PDU to send.
    public var advertisingType: AdvertisingType
    /// 0x00 public, 0x01 random, 0x02/0x03 resolvable with fallback.
    public var ownAddressType: UInt8
    /// The peer of directed advertising (its kind is the Peer_Address_Type); ignored otherwise.
    public var peerAddress: BluetoothAddress
    /// Bit 0: channel 37, bit 1: channel 38, bit 2: channel 39; 0x07 uses all three.
    public var channelMap: UInt8
    /// 0x00 accepts scan and connection requests from anyone; other values use the accept list.
    public var filterPolicy: UInt8

    /// Creates the command; the defaults are connectable undirected advertising every 100 ms on
    /// all three channels, from the public address, open to every scanner and initiator.
    public init(
        intervalMin: UInt16 = 0x00A0, intervalMax: UInt16 = 0x00A0,
        advertisingType: AdvertisingType = .connectableUndirected, ownAddressType: UInt8 = 0x00,
        peerAddress: BluetoothAddress = BluetoothAddress(octets: [0, 0, 0, 0, 0, 0])!, channelMap: UInt8 = 0x07,
        filterPolicy: UInt8 = 0x00
    ) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.advertisingType = advertisingType
        self.ownAddressType = ownAddressType
        self.peerAddress = peerAddress
        self.channelMap = channelMap
        self.filterPolicy = filterPolicy
    }

    /// Parses the fifteen parameter bytes; an unknown advertising type or peer address type is
    /// `invalidValue`.
    public init(parameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(parameters, context: "LE Set Advertising Parameters")
        intervalMin = try reader.readUInt16LE()
        intervalMax = try reader.readUInt16LE()
        let type = try reader.readUInt8()
        guard let advertisingType = AdvertisingType(rawValue: type) else {
            throw WireError(.invalidValue, "\(reader.context): Advertising_Type is \(type), expected 0...4")
        }
        self.advertisingType = advertisingType
        ownAddressType = try reader.readUInt8()
        let peerType = try reader.readUInt8()
        guard let kind = BluetoothAddress.Kind(rawValue: peerType) else {
            throw WireError(.invalidValue, "\(reader.context): Peer_Address_Type is \(peerType), expected 0 or 1")
        }
        peerAddress = try BluetoothAddress(littleEndian: &reader, kind: kind)
        channelMap = try reader.readUInt8()
        filterPolicy = try reader.readUInt8()
        try reader.expectEnd()
    }

    /// Appends the fifteen parameter bytes.
    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.appendUInt16LE(intervalMin)
        buffer.appendUInt16LE(intervalMax)
        buffer.append(advertisingType.rawValue)
        buffer.append(ownAddressType)
        buffer.append(peerAddress.kind.rawValue)
        peerAddress.encode(into: &buffer)
        buffer.append(channelMap)
        buffer.append(filterPolicy)
    }
}
