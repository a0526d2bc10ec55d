// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import SystemCalls
import SystemPackage
import Testing

@testable import BLETransport

@Suite("HCI adapters")
struct HCIAdapterTests {
    @Test("without kernel Bluetooth, listing fails with noBluetoothSupport and says how to fix it")
    func noKernelSupport() {
        let script = SyscallScript(["socket": [.fails(.addressFamilyNotSupported)]])
        let error = #expect(throws: TransportError.self) {
            try SyscallScript.$current.withValue(script) { try HCIAdapter.list() }
        }
        #expect(error?.code == .noBluetoothSupport)
        #expect(error?.syscall == "socket")
        #expect(error?.message.contains("AF_BLUETOOTH") == true)
        #expect(error?.message.contains("CONFIG_BT") == true)
        #expect(script.calls == ["socket"])
    }

    @Test("listing on a dedicated thread gives the same typed error, with the caller's syscall script")
    func listOnDedicatedThread() async {
        let script = SyscallScript([
            "socket": [.returns(1000)],
            "ioctl": [.fails(.notPermitted)],
            "close": [.returns(0)],
        ])
        let error = await SyscallScript.$current.withValue(script) { () async -> TransportError? in
            do throws(TransportError) {
                _ = try await HCIAdapter.listOnDedicatedThread()
                return nil
            } catch {
                return error
            }
        }
        #expect(error?.code == .permissionDenied)
        #expect(error?.syscall == "ioctl")
        #expect(script.calls == ["socket", "ioctl", "close"])
    }

    @Test("this machine: the real call lists adapters or fails with a typed error naming the fix")
    func realSystem() {
        do {
            let adapters = try HCIAdapter.list()
            for adapter in adapters {
                #expect(adapter.name.hasPrefix("hci"))
            }
            #expect(Set(adapters.map(\.index)).count == adapters.count)
        } catch {
            #expect([.noBluetoothSupport, .permissionDenied].contains(error.code), "\(error)")
            #expect(error.syscall == "socket")
            #expect(!error.message.isEmpty)
        }
    }

    @Test("a refused ioctl maps to permissionDenied and the socket is still closed")
    func refusedIoctl() {
        let script = SyscallScript([
            "socket": [.returns(1000)],
            "ioctl": [.fails(.notPermitted)],
            "close": [.returns(0)],
        ])
        let error = #expect(throws: TransportError.self) {
            try SyscallScript.$current.withValue(script) { try HCIAdapter.list() }
        }
        #expect(error?.code == .permissionDenied)
        #expect(error?.syscall == "ioctl")
        #expect(error?.message.contains("CAP_NET_ADMIN") == true)
        #expect(script.calls == ["socket", "ioctl", "close"])
    }

    @Test("an unknown adapter index is noSuchAdapter and names the adapter")
    func unknownAdapter() {
        let script = SyscallScript([
            "socket": [.returns(1000)],
            "ioctl": [.fails(.operationNotSupportedByDevice)],
            "close": [.returns(0)],
        ])
        let error = #expect(throws: TransportError.self) {
            try SyscallScript.$current.withValue(script) { try HCIAdapter.adapter(index: 3) }
        }
        #expect(error?.code == .noSuchAdapter)
        #expect(error?.message.hasPrefix("hci3: ") == true)
        #expect(error?.message.contains("btmgmt info") == true)
        #expect(script.calls == ["socket", "ioctl", "close"])
    }

    @Test("hci_dev_info fields decode: NUL-terminated name, little-endian address, up flag")
    func decodeDeviceInfo() {
        let adapter = HCIAdapter(
            index: 0,
            nameBytes: Array("hci0".utf8) + [0, 0, 0, 0],
            addressLittleEndian: [0x13, 0x71, 0xDA, 0x7D, 0x1A, 0x00],
            isUp: true
        )
        #expect(adapter.name == "hci0")
        #expect(adapter.address == BluetoothAddress(string: "00:1A:7D:DA:71:13"))
        #expect(adapter.description == "hci0 00:1A:7D:DA:71:13 up")

        let full = HCIAdapter(
            index: 12,
            nameBytes: Array("hci12abc".utf8),
            addressLittleEndian: [0, 0, 0, 0, 0, 0],
            isUp: false
        )
        #expect(full.name == "hci12abc")
        #expect(full.description.hasSuffix(" down"))

        let unnamed = HCIAdapter(index: 2, nameBytes: [0, 0, 0, 0, 0, 0, 0, 0], addressLittleEndian: [], isUp: false)
        #expect(unnamed.name == "hci2")
        #expect(unnamed.address.octets == [0, 0, 0, 0, 0, 0])
    }
}
