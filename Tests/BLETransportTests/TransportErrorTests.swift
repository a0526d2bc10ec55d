// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import BLEWire
import SystemPackage
import Testing

@Suite("TransportError mapping")
struct TransportErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var errno: Errno
        var code: TransportError.Code
        /// Words of the fix the message must name.
        var fix: [String]
        var testDescription: String { "\(errno.rawValue) → \(code)" }
    }

    static let cases: [Case] = [
        Case(
            errno: .addressFamilyNotSupported, code: .noBluetoothSupport,
            fix: ["AF_BLUETOOTH", "`bluetooth` module", "CONFIG_BT"]),
        Case(errno: .protocolNotSupported, code: .noBluetoothSupport, fix: ["CONFIG_BT"]),
        Case(
            errno: .notPermitted, code: .permissionDenied,
            fix: ["CAP_NET_RAW", "CAP_NET_ADMIN", "root", "AmbientCapabilities"]),
        Case(
            errno: .permissionDenied, code: .permissionDenied,
            fix: ["CAP_NET_RAW", "CAP_NET_ADMIN", "AmbientCapabilities"]),
        Case(
            errno: .operationNotSupportedByDevice, code: .noSuchAdapter,
            fix: ["no such Bluetooth adapter", "btmgmt info"]),
        Case(errno: .networkDown, code: .adapterDown, fix: ["btmgmt power on", "hciconfig hci0 up"]),
        Case(errno: .resourceBusy, code: .adapterBusy, fix: ["another program", "bluetoothctl scan off"]),
        Case(errno: .connectionRefused, code: .connectionRefused, fix: ["refused", "another gateway"]),
        Case(errno: .timedOut, code: .timedOut, fix: ["did not answer", "switched on"]),
        Case(errno: .noRouteToHost, code: .hostUnreachable, fix: ["unreachable", "advertising", "address type"]),
        Case(errno: .socketNotConnected, code: .linkLost, fix: ["link was lost", "in range"]),
        Case(errno: .connectionReset, code: .linkLost, fix: ["link was lost", "in range"]),
        Case(errno: .brokenPipe, code: .linkLost, fix: ["link was lost"]),
        Case(errno: .tooManyOpenFiles, code: .tooManyOpenFiles, fix: ["ulimit -n", "LimitNOFILE"]),
        Case(errno: .tooManyOpenFilesInSystem, code: .tooManyOpenFiles, fix: ["LimitNOFILE"]),
        Case(errno: .messageTooLong, code: .invalidPDU, fix: ["MTU"]),
    ]

    @Test("each errno maps to its code and a message naming the fix", arguments: cases)
    func mapping(_ testCase: Case) {
        let error = TransportError(syscall: "connect", errno: testCase.errno)
        #expect(error.code == testCase.code)
        #expect(error.errno == testCase.errno)
        #expect(error.syscall == "connect")
        for word in testCase.fix {
            #expect(error.message.contains(word), "\(error.message) should mention \(word)")
        }
    }

    @Test("an unknown errno falls back to the system's text and names the call")
    func fallback() {
        let error = TransportError(syscall: "ioctl", errno: .ioError)
        #expect(error.code == .system)
        #expect(error.message.contains("ioctl failed"))
        #expect(error.message.contains(Errno.ioError.description))
        #expect(error.message.contains("dmesg"))
    }

    @Test("the description is the code and message, then the call and the errno number")
    func description() {
        let error = TransportError(syscall: "socket", errno: .addressFamilyNotSupported)
        #expect(error.description.hasPrefix("noBluetoothSupport: " + error.message + " [socket: "))
        #expect(error.description.hasSuffix("(errno \(Errno.addressFamilyNotSupported.rawValue))]"))
        let plain = TransportError(code: .closed, message: "the bearer was closed")
        #expect(plain.description == "closed: the bearer was closed")
        var refused = TransportError(code: .controllerRefused, message: "refused")
        refused.hciCommand = .leSetScanEnable
        refused.hciStatus = .commandDisallowed
        #expect(
            refused.description == "controllerRefused: refused [HCI command 0x200C: \(HCIErrorCode.commandDisallowed)]")
    }

    @Test("a failed Result converts to the mapped error")
    func resultConversion() {
        let failed: Result<Int32, Errno> = .failure(.networkDown)
        #expect(throws: TransportError(syscall: "bind", errno: .networkDown)) {
            try failed.transportValue("bind")
        }
        let succeeded: Result<Int32, Errno> = .success(3)
        #expect((try? succeeded.transportValue("bind")) == 3)
    }
}
