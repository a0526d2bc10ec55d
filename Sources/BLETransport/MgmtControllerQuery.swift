// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import Logging

/// Reads controllers' settings (Read Controller Information) through the kernel's management
/// interface, for `doctor`.
///
/// Linux answers Read Controller Information on a control socket without `CAP_NET_ADMIN` (the
/// command is flagged `HCI_MGMT_UNTRUSTED` in net/bluetooth/mgmt.c); kernels before the
/// untrusted interface (4.4 and older) refuse the bind itself, and that is what
/// ``readInformation(indices:timeout:clock:logger:)`` throws.
public enum MgmtControllerQuery {
    /// One controller's answer: its information, or why it has none.
    public typealias Answer = Result<MgmtControllerInfo, TransportError>

    /// The controller and answer a packet read from the control socket carries, nil for any other
    /// packet (events about other things, replies to other commands).
    public static func reply(to packet: [UInt8]) -> (index: UInt16, answer: Answer)? {
        guard let event = try? MgmtEventPacket(parsing: packet) else { return nil }
        let index = event.index.rawValue
        switch event.code {
        case .commandComplete:
            guard let complete = try? MgmtCommandCompleteEvent(event), complete.command == .readControllerInfo
            else { return nil }
            guard complete.status == .success else {
                return (index, .failure(error(for: complete.status, index: index)))
            }
            do throws(WireError) {
                return (index, .success(try MgmtControllerInfo(parsing: complete.returnParameters)))
            } catch {
                return (
                    index,
                    .failure(
                        TransportError(
                            code: .invalidPDU,
                            message: "hci\(index): the kernel's controller information is malformed: \(error)")
                    )
                )
            }
        case .commandStatus:
            guard let status = try? MgmtCommandStatusEvent(event), status.command == .readControllerInfo,
                status.status != .success
            else { return nil }
            return (index, .failure(error(for: status.status, index: index)))
        default:
            return nil
        }
    }

    /// What a failed Read Controller Information means, with the fix.
    static func error(for status: MgmtStatus, index: UInt16) -> TransportError {
        switch status {
        case .permissionDenied:
            return TransportError(
                code: .permissionDenied,
                message: "hci\(index): the kernel reads controller settings only for CAP_NET_ADMIN here: run it as "
                    + "root, or read them with `sudo btmgmt --index \(index) info`")
        case .invalidIndex:
            return TransportError(code: .noSuchAdapter, message: "hci\(index) went away while being read")
        default:
            return TransportError(
                code: .system,
                message: "hci\(index): Read Controller Information failed with \(status): check `dmesg` and "
                    + "`btmgmt --index \(index) info`")
        }
    }

    /// Asks the kernel for each controller's information on one control socket and collects the
    /// replies; a controller that does not answer within `timeout` gets a `timedOut` failure.
    ///
    /// - Throws: ``TransportError`` when the control socket cannot be opened (`noBluetoothSupport`,
    ///   `permissionDenied` on kernels without the untrusted interface) or a command cannot be
    ///   written.
    public static func readInformation<C: Clock>(
        indices: [UInt16], timeout: Duration = .seconds(2), clock: C = ContinuousClock(),
        logger: Logger = Logger(label: "sportsensor.mgmt-query")
    ) async throws(TransportError) -> [UInt16: Answer] where C.Duration == Duration {
        let wanted = Set(indices)
        guard !wanted.isEmpty else { return [:] }
        let (packets, continuation) = AsyncStream<[UInt8]>.makeStream()
        let socket = try HCISocket(
            channel: .control, label: "mgmt-query", logger: logger,
            onPacket: { continuation.yield($0) }, onEnd: { _ in continuation.finish() })
        do throws(TransportError) {
            for index in wanted.sorted() {
                let command = MgmtCommandPacket(code: .readControllerInfo, index: MgmtControllerIndex(rawValue: index))
                try socket.write(command.bytes)
            }
        } catch {
            socket.close()
            await socket.waitForExit()
            throw error
        }
        let deadline = Task {
            try? await clock.sleep(for: timeout)
            continuation.finish()
        }
        var answers: [UInt16: Answer] = [:]
        for await packet in packets {
            if let (index, answer) = reply(to: packet), wanted.contains(index), answers[index] == nil {
                answers[index] = answer
            }
            if answers.count == wanted.count { break }
        }
        deadline.cancel()
        socket.close()
        await socket.waitForExit()
        for index in wanted where answers[index] == nil {
            answers[index] = .failure(
                TransportError(
                    code: .timedOut,
                    message: "hci\(index) did not answer Read Controller Information within \(timeout): check `dmesg`"))
        }
        return answers
    }
}
