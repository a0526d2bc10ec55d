// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import Logging
import NIOConcurrencyHelpers

/// Reports the parameters of every LE link of one adapter as the controller settles them: a raw
/// HCI socket filtered to LE Meta and Disconnection Complete events, read by its own thread,
/// each packet handed to an ``LELinkParameterTracker``. It only listens: it sends nothing, so it
/// disturbs neither the kernel nor bluetoothd.
///
/// mgmt does not expose a link's connection interval, and neither does the L2CAP socket; the
/// controller's LE Connection Complete and LE Connection Update Complete events do, and the kernel
/// copies them to raw HCI sockets whose process has `CAP_NET_RAW` (without it the kernel's
/// security filter drops LE Meta events, and nothing is reported).
public final class LELinkParameterMonitor: Sendable {
    private let socket: HCISocket

    private init(socket: HCISocket) {
        self.socket = socket
    }

    /// Starts listening on adapter `index`; `onReport` runs on the monitor's thread. The monitor
    /// runs until ``close()``.
    ///
    /// - Throws: ``TransportError`` when the socket cannot be opened.
    public static func start(
        adapterIndex index: UInt16, logger: Logger,
        onReport: @escaping @Sendable (LELinkParameterTracker.Report) -> Void
    ) throws(TransportError) -> LELinkParameterMonitor {
        let tracker = NIOLockedValueBox(LELinkParameterTracker())
        let socket = try HCISocket(
            adapterIndex: index, events: [.leMeta, .disconnectionComplete], label: "le-link-hci\(index)",
            logger: logger,
            onPacket: { packet in
                if let report = tracker.withLockedValue({ $0.received(packet) }) { onReport(report) }
            },
            onEnd: { error in
                logger.notice("stopped following LE link parameters", metadata: ["hci.error": "\(error)"])
            })
        return LELinkParameterMonitor(socket: socket)
    }

    /// Stops listening.
    public func close() {
        socket.close()
    }
}
