// SPDX-License-Identifier: GPL-2.0-or-later
import CBlueZ
import Testing

/// Swift imports kernel structs through the Clang importer; a packed or padded field seen
/// differently would corrupt every `connect(2)` and `bind(2)`. These tests pin Swift's view of
/// the structs the transport passes to the kernel to what the C compiler sees.
@Suite("CBlueZ struct layout")
struct StructLayoutTests {
    @Test("sockaddr_l2 is 14 bytes in Swift and in C")
    func sockaddrL2() {
        #expect(MemoryLayout<sockaddr_l2>.size == 14)
        #expect(MemoryLayout<sockaddr_l2>.size == cbz_sizeof_sockaddr_l2())
        #expect(MemoryLayout<sockaddr_l2>.offset(of: \.l2_cid) == cbz_offsetof_sockaddr_l2_cid())
        #expect(MemoryLayout<sockaddr_l2>.offset(of: \.l2_bdaddr_type) == cbz_offsetof_sockaddr_l2_bdaddr_type())
    }

    @Test("bdaddr_t is 6 packed bytes")
    func bdaddr() {
        #expect(MemoryLayout<bdaddr_t>.size == 6)
        #expect(MemoryLayout<bdaddr_t>.size == cbz_sizeof_bdaddr_t())
    }

    @Test("HCI socket structs match the C headers")
    func hciStructs() {
        #expect(MemoryLayout<sockaddr_hci>.size == cbz_sizeof_sockaddr_hci())
        #expect(MemoryLayout<hci_filter>.size == cbz_sizeof_hci_filter())
        #expect(MemoryLayout<hci_dev_info>.size == cbz_sizeof_hci_dev_info())
        #expect(MemoryLayout<bt_security>.size == cbz_sizeof_bt_security())
    }

    @Test("address bytes are stored least-significant octet first")
    func addressByteOrder() {
        var address = bdaddr_t()
        let msbFirst: [UInt8] = [0xBC, 0x05, 0xFC, 0x97, 0x8B, 0x75]
        cbz_bdaddr_from_bytes(&address, msbFirst)
        #expect(address.b.0 == 0x75)
        #expect(address.b.5 == 0xBC)
    }

    @Test("ATT channel id and socket constants")
    func constants() {
        #expect(cbz_att_cid() == 4)
        #expect(cbz_af_bluetooth() == 31)
        #expect(cbz_btproto_l2cap() == 0)
        #expect(cbz_btproto_hci() == 1)
    }
}

@Suite("CBlueZ L2CAP helpers")
struct L2CAPHelperTests {
    @Test("struct bt_security is 2 bytes: level, then key_size")
    func btSecurity() {
        #expect(MemoryLayout<bt_security>.size == 2)
        #expect(cbz_sizeof_bt_security() == 2)
        #expect(MemoryLayout<bt_security>.offset(of: \.key_size) == cbz_offsetof_bt_security_key_size())
        #expect(cbz_offsetof_bt_security_key_size() == 1)
        #expect(cbz_bt_security_low() == 1)
        #expect(cbz_sol_bluetooth() == 274)
        #expect(cbz_bt_security() == 4)
    }

    @Test("a fixed-channel sockaddr_l2 for a random address is the 14 bytes the kernel expects")
    func fixedChannelAddress() {
        var address = sockaddr_l2()
        let msbFirst: [UInt8] = [0xC4, 0x05, 0xFC, 0x97, 0x8B, 0x75]
        cbz_sockaddr_l2_fixed_channel(&address, msbFirst, cbz_att_cid(), UInt8(cbz_bdaddr_le_random()))
        let bytes = withUnsafeBytes(of: &address) { Array($0) }
        #expect(bytes == [31, 0, 0, 0, 0x75, 0x8B, 0x97, 0xFC, 0x05, 0xC4, 4, 0, 2, 0])
        #expect(MemoryLayout<sockaddr_l2>.offset(of: \.l2_bdaddr) == cbz_offsetof_sockaddr_l2_bdaddr())
        #expect(cbz_btohs(address.l2_cid) == 4)
        #expect(address.l2_psm == 0)
    }

    @Test("a NULL address is BDADDR_ANY; public type is 1, BR/EDR 0")
    func anyAddress() {
        var address = sockaddr_l2()
        cbz_sockaddr_l2_fixed_channel(&address, nil, 4, UInt8(cbz_bdaddr_le_public()))
        let bytes = withUnsafeBytes(of: &address) { Array($0) }
        #expect(bytes == [31, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 1, 0])
        #expect(cbz_bdaddr_bredr() == 0)
    }

    @Test("bdaddr_t converts back to most-significant-first octets; htobs is little-endian")
    func roundTrip() {
        var address = bdaddr_t()
        let msbFirst: [UInt8] = [0xBC, 0x05, 0xFC, 0x97, 0x8B, 0x75]
        cbz_bdaddr_from_bytes(&address, msbFirst)
        var back = [UInt8](repeating: 0, count: 6)
        cbz_bdaddr_to_bytes(&address, &back)
        #expect(back == msbFirst)
        let swapped = cbz_htobs(0x0102)
        #expect(withUnsafeBytes(of: swapped) { Array($0) } == [0x02, 0x01])
    }
}
