// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GatewayTesting
import SystemCalls
import Testing

@testable import BLETransport

/// Read Controller Information for `doctor`: the replies decoded, and the driver against a fake
/// kernel on the other end of a scripted control socket.
@Suite("mgmt controller query")
struct MgmtControllerQueryTests {
    /// btvirt's hci0: 00:AA:01:00:00:23, Bluetooth 5.0, supports BR/EDR and LE, powered with LE on.
    static let info =
        [UInt8](hex: "230000 01aa00 09 f105 ff0e0000 81020000 000000") + Array("BlueZ".utf8)
        + [UInt8](repeating: 0, count: 249 - 5 + 11)

    static func complete(index: String, status: String, parameters: [UInt8] = []) -> [UInt8] {
        let length = UInt16(3 + parameters.count)
        return [UInt8](hex: "0100 \(index)") + [UInt8(length & 0xFF), UInt8(length >> 8)]
            + [UInt8](hex: "0400 \(status)") + parameters
    }

    @Test("replies: Command Complete with the information, failures by status, other packets ignored")
    func replies() throws {
        let success = try #require(
            MgmtControllerQuery.reply(to: Self.complete(index: "0100", status: "00", parameters: Self.info)))
        #expect(success.index == 1)
        let info = try success.answer.get()
        #expect(info.supportedSettings.contains(.lowEnergy) && info.currentSettings.contains(.lowEnergy))
        #expect(info.bluetoothVersion == 9)

        let denied = try #require(MgmtControllerQuery.reply(to: [UInt8](hex: "0200 0000 0300 0400 14")))
        guard case .failure(let error) = denied.answer else {
            Issue.record("Permission Denied must fail")
            return
        }
        #expect(error.code == .permissionDenied && error.message.contains("btmgmt --index 0 info"))

        let gone = try #require(MgmtControllerQuery.reply(to: Self.complete(index: "0200", status: "11")))
        #expect((try? gone.answer.get()) == nil && gone.index == 2)

        let short = try #require(
            MgmtControllerQuery.reply(to: Self.complete(index: "0000", status: "00", parameters: [0x23])))
        if case .failure(let error) = short.answer { #expect(error.code == .invalidPDU) } else { Issue.record("short") }

        // Discovering, a Start Discovery answer, a success Command Status, junk: not replies.
        #expect(MgmtControllerQuery.reply(to: [UInt8](hex: "1300 0000 0200 06 01")) == nil)
        #expect(MgmtControllerQuery.reply(to: [UInt8](hex: "0100 0000 0400 2300 00 06")) == nil)
        #expect(MgmtControllerQuery.reply(to: [UInt8](hex: "0200 0000 0300 0400 00")) == nil)
        #expect(MgmtControllerQuery.reply(to: [0x01]) == nil)
    }

    @Test("one socket, one command per controller, answers matched by index")
    func readInformation() async throws {
        let kernel = try FakeHCIController()
        let script = SyscallScript(["socket": [.returns(Int(kernel.hostDescriptor))], "bind": [.returns(0)]])
        let query = Task {
            try await SyscallScript.$current.withValue(script) {
                try await MgmtControllerQuery.readInformation(indices: [1, 0, 2], clock: ManualClock())
            }
        }
        #expect(try await kernel.nextPacket() == [UInt8](hex: "0400 0000 0000"))
        #expect(try await kernel.nextPacket() == [UInt8](hex: "0400 0100 0000"))
        #expect(try await kernel.nextPacket() == [UInt8](hex: "0400 0200 0000"))
        try kernel.send([UInt8](hex: "1300 0000 0200 06 01"))
        try kernel.send(Self.complete(index: "0100", status: "00", parameters: Self.info))
        try kernel.send([UInt8](hex: "0200 0000 0300 0400 14"))
        try kernel.send(Self.complete(index: "0200", status: "11"))
        let answers = try await query.value
        #expect(try answers[1]?.get().bluetoothVersion == 9)
        guard case .failure(let denied) = answers[0], case .failure(let gone) = answers[2] else {
            Issue.record("hci0 was refused and hci2 is gone: \(answers)")
            return
        }
        #expect(denied.code == .permissionDenied)
        #expect(gone.code == .noSuchAdapter)
        #expect(try await kernel.nextPacket() == nil)
    }

    @Test("a controller that never answers times out on the clock")
    func silentController() async throws {
        let kernel = try FakeHCIController()
        let script = SyscallScript(["socket": [.returns(Int(kernel.hostDescriptor))], "bind": [.returns(0)]])
        let clock = ManualClock()
        let query = Task {
            try await SyscallScript.$current.withValue(script) {
                try await MgmtControllerQuery.readInformation(indices: [0], timeout: .seconds(2), clock: clock)
            }
        }
        #expect(try await kernel.nextPacket() == [UInt8](hex: "0400 0000 0000"))
        try await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(2))
        let answers = try await query.value
        guard case .failure(let silent) = answers[0] else {
            Issue.record("hci0 never answered: \(answers)")
            return
        }
        #expect(silent.code == .timedOut)
    }

    @Test("no controllers: no socket opened")
    func noControllers() async throws {
        let script = SyscallScript([:])
        let answers = try await SyscallScript.$current.withValue(script) {
            try await MgmtControllerQuery.readInformation(indices: [])
        }
        #expect(answers.isEmpty && script.calls.isEmpty)
    }
}
