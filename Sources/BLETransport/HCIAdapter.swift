// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import CBlueZ
import Glibc
import SystemCalls

/// A Bluetooth adapter (HCI controller) as the kernel lists it: `hci0`, its address, whether it
/// is up.
///
/// Read with the `HCIGETDEVLIST` and `HCIGETDEVINFO` ioctls on an `AF_BLUETOOTH`/`BTPROTO_HCI`
/// socket. The kernel answers both from memory, so the calls do not block and may run on any
/// thread. On a kernel without Bluetooth the socket cannot be created and the error says so
/// (``TransportError/Code-swift.struct/noBluetoothSupport``): that is what a user without
/// Bluetooth sees first.
public struct HCIAdapter: Sendable, Hashable, CustomStringConvertible {
    /// The kernel's index of the adapter: 0 for `hci0`.
    public var index: UInt16
    /// The kernel's name of the adapter, such as `hci0`.
    public var name: String
    /// The adapter's public address (all zeros while a freshly attached controller is still
    /// being set up).
    public var address: BluetoothAddress
    /// Whether the adapter is powered up (the `HCI_UP` flag).
    public var isUp: Bool

    /// An adapter description.
    public init(index: UInt16, name: String, address: BluetoothAddress, isUp: Bool) {
        self.index = index
        self.name = name
        self.address = address
        self.isUp = isUp
    }

    /// `hci0 00:1A:7D:DA:71:13 up`.
    public var description: String { "\(name) \(address) \(isUp ? "up" : "down")" }

    /// ``list()`` on a dedicated thread, for async callers: the ioctls block, and blocking calls
    /// stay off Swift's cooperative thread pool.
    public static func listOnDedicatedThread() async throws(TransportError) -> [HCIAdapter] {
        let result = await runOnDedicatedThread(named: "hci-list") { () -> Result<[HCIAdapter], TransportError> in
            do throws(TransportError) {
                return .success(try list())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Every adapter the kernel knows, in the kernel's order. An adapter removed while the list is
    /// read is left out.
    ///
    /// - Throws: ``TransportError``: `noBluetoothSupport` when the kernel has no Bluetooth
    ///   sockets, `permissionDenied`, `tooManyOpenFiles`, or `system`.
    public static func list() throws(TransportError) -> [HCIAdapter] {
        try withHCISocket { socket throws(TransportError) in
            let capacity = Int(cbz_hci_max_dev())
            let size = cbz_sizeof_hci_dev_list_req(Int32(capacity))
            let request = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
            defer { request.deallocate() }
            request.initializeMemory(as: UInt8.self, repeating: 0, count: size)
            cbz_hci_dev_list_req_set_count(request, UInt16(capacity))
            _ = try syscall("ioctl") { Glibc.ioctl(socket, cbz_hcigetdevlist(), request) }.transportValue("ioctl")
            let count = min(Int(cbz_hci_dev_list_req_count(request)), capacity)
            var adapters: [HCIAdapter] = []
            for position in 0..<count {
                let index = cbz_hci_dev_list_req_id(request, Int32(position))
                do throws(TransportError) {
                    adapters.append(try info(index: index, socket: socket))
                } catch {
                    // Removed between the two ioctls: not an adapter any more.
                    guard error.code == .noSuchAdapter else { throw error }
                }
            }
            return adapters
        }
    }

    /// The adapter with this index (0 for `hci0`).
    ///
    /// - Throws: ``TransportError`` `noSuchAdapter` when there is no such adapter, or any error of
    ///   ``list()``.
    public static func adapter(index: UInt16) throws(TransportError) -> HCIAdapter {
        try withHCISocket { socket throws(TransportError) in try info(index: index, socket: socket) }
    }

    private static func info(index: UInt16, socket: Int32) throws(TransportError) -> HCIAdapter {
        var info = hci_dev_info()
        info.dev_id = index
        let result = withUnsafeMutablePointer(to: &info) { pointer in
            syscall("ioctl") { Glibc.ioctl(socket, cbz_hcigetdevinfo(), UnsafeMutableRawPointer(pointer)) }
        }
        do throws(TransportError) {
            _ = try result.transportValue("ioctl")
        } catch {
            var error = error
            if error.code == .noSuchAdapter { error.message = "hci\(index): " + error.message }
            throw error
        }
        let name = withUnsafeBytes(of: info.name) { Array($0) }
        let address = withUnsafeBytes(of: info.bdaddr.b) { Array($0) }
        let isUp = withUnsafeMutablePointer(to: &info.flags) { cbz_hci_test_bit(cbz_hci_up_flag(), $0) != 0 }
        return HCIAdapter(index: index, nameBytes: name, addressLittleEndian: address, isUp: isUp)
    }

    /// An adapter from the raw fields of `struct hci_dev_info`.
    ///
    /// - Parameters:
    ///   - nameBytes: the `char name[8]` field, NUL-terminated unless all eight bytes are used.
    ///   - addressLittleEndian: the six octets of `bdaddr_t`, least significant first.
    init(index: UInt16, nameBytes: [UInt8], addressLittleEndian: [UInt8], isUp: Bool) {
        let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
        self.init(
            index: index,
            name: name.isEmpty ? "hci\(index)" : name,
            address: BluetoothAddress(octets: addressLittleEndian.reversed())
                ?? BluetoothAddress(octets: [0, 0, 0, 0, 0, 0])!,
            isUp: isUp
        )
    }

    /// Runs `body` with a raw HCI socket that is closed afterwards.
    private static func withHCISocket<T>(
        _ body: (Int32) throws(TransportError) -> T
    ) throws(TransportError) -> T {
        let type = Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let socket = try syscall("socket") { Glibc.socket(cbz_af_bluetooth(), type, cbz_btproto_hci()) }
            .transportValue("socket")
        defer { closeDescriptor(socket) }
        return try body(socket)
    }
}
