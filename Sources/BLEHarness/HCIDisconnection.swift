// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import BLEWire
import Logging

/// Ends an LE or BR/EDR link from this side with HCI Disconnect, on a raw HCI socket.
///
/// This is what a peripheral that walks away does to its central: the central sees the link end
/// with the given reason at once, unlike closing an ATT socket, after which the kernel keeps the
/// link up for a few seconds in case another channel wants it. Needs `CAP_NET_RAW` and
/// `CAP_NET_ADMIN`.
public enum HCIDisconnection {
    /// Sends Disconnect for `handle` on `adapter` and waits for the controller to accept it
    /// (Command Status); the link is gone shortly after, with Disconnection Complete.
    ///
    /// - Throws: ``TransportError``: the socket's errors (`permissionDenied`...),
    ///   `controllerRefused` with the status when the controller rejects it (0x02 Unknown
    ///   Connection Identifier: the link is already gone), `controllerNotResponding` after
    ///   `timeout`.
    public static func disconnect(
        handle: UInt16,
        reason: HCIErrorCode = .remoteUserTerminated,
        adapter: HCIAdapter,
        timeout: Duration = .seconds(3),
        logger: Logger = Logger(label: "sportsensord.transport")
    ) async throws(TransportError) {
        let (answers, sink) = AsyncStream.makeStream(of: HCIErrorCode.self, bufferingPolicy: .bufferingNewest(4))
        let socket = try HCISocket(
            adapterIndex: adapter.index, events: [.commandStatus], label: "hci-disconnect-\(adapter.name)",
            logger: logger,
            onPacket: { packet in
                guard packet.first == HCIPacketType.event.rawValue,
                    let event = try? HCIEventPacket(parsing: packet.dropFirst()),
                    let status = try? HCICommandStatusEvent(event), status.opcode == .disconnect
                else { return }
                sink.yield(status.status)
            },
            onEnd: { _ in sink.finish() }
        )
        defer { socket.close() }
        var bytes: [UInt8] = [HCIPacketType.command.rawValue]
        HCIDisconnectCommand(connectionHandle: handle, reason: reason).encode(into: &bytes)
        try socket.write(bytes)
        let timer = Task {
            try? await Task.sleep(for: timeout)
            sink.finish()
        }
        defer { timer.cancel() }
        var iterator = answers.makeAsyncIterator()
        guard let status = await iterator.next() else {
            throw TransportError.notAnswered(.disconnect, named: "Disconnect")
        }
        guard status == .success else {
            throw TransportError.refused(
                .disconnect, named: "Disconnect of handle \(handle)", status: status,
                fix: "the link may already be gone (`hcitool con` lists the links)")
        }
        logger.info("disconnected", metadata: ["hci.handle": "\(handle)", "hci.reason": "\(reason)"])
    }
}
