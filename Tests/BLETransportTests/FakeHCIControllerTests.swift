// SPDX-License-Identifier: GPL-2.0-or-later
import GatewayTesting
import Glibc
import Testing

@Suite("Fake HCI controller")
struct FakeHCIControllerTests {
    /// The advertiser's tests cancel while the controller's last answer may still be unread by
    /// the host: the kernel then reports ECONNRESET once, ahead of the host's final disable, and
    /// the fake must read on to it instead of taking the reset for the end.
    @Test("a host that closes with an event unread: its last command is still read, then the end")
    func closeWithUnreadEvent() async throws {
        let controller = try FakeHCIController()
        let complete: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x0A, 0x20, 0x00]
        let disable: [UInt8] = [0x01, 0x0A, 0x20, 0x01, 0x00]
        try controller.send(complete)
        let written = disable.withUnsafeBytes { Glibc.send(controller.hostDescriptor, $0.baseAddress, $0.count, 0) }
        try #require(written == disable.count)
        try #require(Glibc.close(controller.hostDescriptor) == 0)
        let last = try await controller.nextPacket()
        let end = try await controller.nextPacket()
        #expect(last == disable)
        #expect(end == nil)
    }
}
