// SPDX-License-Identifier: GPL-2.0-or-later
import Glibc

/// One IP address or a CIDR block of them, IPv4 or IPv6: `127.0.0.1`, `10.0.0.0/8`, `::1`,
/// `fd00::/8`. An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, how a listener on `::` sees an IPv4
/// peer) is read as the IPv4 address, so one entry matches the peer however the socket saw it.
/// Pure: text is parsed with `inet_pton`, no name is ever resolved.
public struct IPAddressRange: Hashable, Sendable, CustomStringConvertible {
    /// The block's first address: 4 bytes (IPv4) or 16 (IPv6), host bits zero.
    public let network: [UInt8]
    /// The bits that must match: 32 or 128 for one address.
    public let prefixLength: Int

    /// `address` or `address/prefix`; nil when it is neither (a host name, a zone, a bad prefix).
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = Self.address(String(parts[0])) else { return nil }
        // `::ffff:10.0.0.0/104` is IPv4 `10.0.0.0/8`.
        let mapped = parts[0].contains(":") && address.count == 4
        var prefix = address.count * 8
        if parts.count == 2 {
            guard parts[1].allSatisfy(\.isASCII), let length = Int(parts[1]),
                (mapped ? 96...128 : 0...prefix).contains(length)
            else { return nil }
            prefix = mapped ? length - 96 : length
        }
        network = address.enumerated().map { index, byte in
            let keep = min(8, max(0, prefix - index * 8))
            return keep == 0 ? 0 : byte & ~UInt8(truncatingIfNeeded: 0xFF >> keep)
        }
        prefixLength = prefix
    }

    /// True when `address` (4 or 16 bytes, as ``address(_:)`` returns) lies in this block.
    public func contains(_ address: [UInt8]) -> Bool {
        guard address.count == network.count else { return false }
        for index in 0..<network.count {
            let keep = min(8, max(0, prefixLength - index * 8))
            guard keep > 0 else { return true }
            let mask = ~UInt8(truncatingIfNeeded: 0xFF >> keep)
            if address[index] & mask != network[index] { return false }
        }
        return true
    }

    /// The block as configured, in canonical form (`10.0.0.0/8`, `::1/128`).
    public var description: String { "\(Self.text(network))/\(prefixLength)" }

    /// The bytes of the IP address `text` (IPv4-mapped IPv6 as its 4 IPv4 bytes); nil when it is
    /// not an address.
    public static func address(_ text: String) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.count <= 45 else { return nil }
        if text.contains(":") {
            var raw = in6_addr()
            guard inet_pton(AF_INET6, text, &raw) == 1 else { return nil }
            let bytes = withUnsafeBytes(of: &raw) { Array($0) }
            let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
            return Array(bytes.prefix(12)) == mappedPrefix ? Array(bytes.suffix(4)) : bytes
        }
        var raw = in_addr()
        guard inet_pton(AF_INET, text, &raw) == 1 else { return nil }
        return withUnsafeBytes(of: &raw) { Array($0) }
    }

    /// The canonical text of a 4- or 16-byte address (`inet_ntop`).
    public static func text(_ address: [UInt8]) -> String {
        let family = address.count == 4 ? AF_INET : AF_INET6
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written = address.withUnsafeBytes { bytes in
            inet_ntop(family, bytes.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard written != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
