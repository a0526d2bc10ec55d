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
