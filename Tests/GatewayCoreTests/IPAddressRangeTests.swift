// SPDX-License-Identifier: GPL-2.0-or-later
import GatewayConfig
import Testing

@Suite("IP addresses and CIDR blocks ([web] trusted_proxies)")
struct IPAddressRangeTests {
    @Test("addresses and blocks, IPv4 and IPv6, in canonical form; host bits cleared")
    func parses() throws {
        #expect(IPAddressRange(parsing: "127.0.0.1")?.description == "127.0.0.1/32")
        #expect(IPAddressRange(parsing: "10.1.2.3/8")?.description == "10.0.0.0/8")
        #expect(IPAddressRange(parsing: "::1")?.description == "::1/128")
        #expect(IPAddressRange(parsing: "fd00:0:0::1/8")?.description == "fd00::/8")
        #expect(IPAddressRange(parsing: "0.0.0.0/0")?.prefixLength == 0)
        // An IPv4-mapped block is the IPv4 block.
        #expect(IPAddressRange(parsing: "::ffff:192.168.0.0/112") == IPAddressRange(parsing: "192.168.0.0/16"))
    }

    @Test("not an address: host names, zones, ports, bad prefixes, empty")
    func refuses() {
        for bad in [
            "", "localhost", "proxy.hall.example", "127.0.0.1:80", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/",
            "::1/129", "fe80::1%eth0", "1.2.3", "256.0.0.1", "10.0.0.0/8/8", "::ffff:10.0.0.0/95", "10.0.0.0/ 8",
        ] {
            #expect(IPAddressRange(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test("membership: the block's addresses only, one family at a time; mapped peers match IPv4 entries")
    func contains() throws {
        let lan = try #require(IPAddressRange(parsing: "192.168.1.0/24"))
        #expect(lan.contains(try #require(IPAddressRange.address("192.168.1.200"))))
        #expect(!lan.contains(try #require(IPAddressRange.address("192.168.2.1"))))
        #expect(lan.contains(try #require(IPAddressRange.address("::ffff:192.168.1.7"))))
        #expect(!lan.contains(try #require(IPAddressRange.address("::1"))))
        let odd = try #require(IPAddressRange(parsing: "10.0.0.128/25"))
        #expect(odd.contains(try #require(IPAddressRange.address("10.0.0.255"))))
        #expect(!odd.contains(try #require(IPAddressRange.address("10.0.0.127"))))
        let ula = try #require(IPAddressRange(parsing: "fd00::/8"))
        #expect(ula.contains(try #require(IPAddressRange.address("fd12:3456::9"))))
        #expect(!ula.contains(try #require(IPAddressRange.address("fe80::1"))))
        #expect(try #require(IPAddressRange(parsing: "0.0.0.0/0")).contains([8, 8, 8, 8]))
        #expect(IPAddressRange.text(try #require(IPAddressRange.address("::ffff:10.0.0.1"))) == "10.0.0.1")
    }
}
