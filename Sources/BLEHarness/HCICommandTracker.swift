// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import BLEWire

/// What every host–controller procedure (``LEScanProcedure``, ``LEAdvertisingProcedure``) does
/// with commands and events, kept once: it remembers the one command whose answer it waits for,
/// parses what a raw HCI socket delivers (counting malformed events), and picks the answer to
/// that command out of the events of every program on the adapter.
///
/// Pure, like the procedures that hold it.
struct HCICommandTracker: Sendable {
    /// The answer to the awaited command.
    struct Answer: Sendable {
        /// The command answered.
        var opcode: HCIOpcode
        /// Its status: `success` unless the controller refused it.
        var status: HCIErrorCode
        /// The Command Complete event, whose return parameters some commands need; nil when a
        /// failing Command Status answered.
        var complete: HCICommandCompleteEvent?
    }

    /// What one packet read from the socket is.
    enum Packet {
        /// An HCI event.
        case event(HCIEventPacket)
        /// An event that did not parse; the note says why (it was counted).
        case malformed(note: String)
    }

    /// The opcode of the command whose answer is awaited, if any.
    private(set) var pendingCommand: HCIOpcode?
    /// HCI events that could not be parsed (counted, dropped).
    private(set) var malformedEventCount = 0

    /// Awaits the answer to `packet` from now on.
    mutating func sending(_ packet: HCICommandPacket) {
        pendingCommand = packet.opcode
    }

    /// Awaits nothing any more.
    mutating func clear() {
        pendingCommand = nil
    }

    /// One packet read from a raw HCI socket (the H4 type byte, then the packet); nil for
    /// anything but an event packet.
    mutating func parse(_ bytes: [UInt8]) -> Packet? {
        guard bytes.first == HCIPacketType.event.rawValue else { return nil }
        do throws(WireError) {
            return .event(try HCIEventPacket(parsing: bytes.dropFirst()))
        } catch {
            malformedEventCount += 1
            return .malformed(note: "dropped a malformed HCI event: \(error)")
        }
    }

    /// The answer to the awaited command if `event` is one: its Command Complete, or a failing
    /// Command Status (a successful one only says the command started). The command is then no
    /// longer awaited. Answers to other programs' commands are nil.
    mutating func answer(in event: HCIEventPacket) throws(WireError) -> Answer? {
        switch event.eventCode {
        case .commandComplete:
            let complete = try HCICommandCompleteEvent(event)
            guard complete.opcode == pendingCommand else { return nil }
            pendingCommand = nil
            return Answer(opcode: complete.opcode, status: complete.status ?? .success, complete: complete)
        case .commandStatus:
            let status = try HCICommandStatusEvent(event)
            guard status.opcode == pendingCommand, status.status != .success else { return nil }
            pendingCommand = nil
            return Answer(opcode: status.opcode, status: status.status, complete: nil)
        default:
            return nil
        }
    }

    /// Counts an event whose parameters did not parse and returns the note to log.
    mutating func malformed(_ event: HCIEventPacket, _ error: WireError) -> String {
        malformedEventCount += 1
        return "dropped a malformed HCI event \(event.eventCode): \(error)"
    }
}

extension TransportError {
    /// The controller answered `command` (called `name` in the message, e.g. `LE Set Scan Enable
    /// (0x200C)`) with the failing `status`; the message ends with `fix`.
    static func refused(
        _ command: HCIOpcode, named name: String, status: HCIErrorCode, code: Code = .controllerRefused,
        fix: String
    ) -> TransportError {
        var error = TransportError(code: code, message: "the controller refused \(name) with \(status): \(fix)")
        error.hciCommand = command
        error.hciStatus = status
        return error
    }

    /// The controller did not answer `command` (called `name` in the message) in time.
    static func notAnswered(_ command: HCIOpcode, named name: String) -> TransportError {
        var error = TransportError(
            code: .controllerNotResponding,
            message: "the controller did not answer \(name): it may be hung or removed: reset it "
                + "(`btmgmt power off; btmgmt power on`, or replug it) and check the kernel log (`dmesg`)"
        )
        error.hciCommand = command
        return error
    }
}
