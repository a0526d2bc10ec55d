// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import Logging

/// The kernel's adapters as they come and go: the list now, then the list again after every
/// mgmt Index Added, Index Removed or New Settings event (a USB dongle plugged or pulled, an
/// adapter powered on or off by `btmgmt`, `bluetoothctl power` or rfkill).
///
/// The mgmt socket only says *that* something changed; the list itself comes from the same
/// ioctls as ``HCIAdapter/list()``, so what the watch reports is always what `list()` reports.
/// Bursts of events (bluetoothd sets several settings while powering an adapter up) collapse
/// into one listing. Where the mgmt socket cannot be opened, the list is read every
/// ``pollInterval`` instead, with a notice.
public enum HCIAdapterWatch {
    /// How often the list is read when the mgmt socket is not available.
    public static let pollInterval: Duration = .seconds(5)

    /// The mgmt events after which the list is read again.
    static let triggers: Set<MgmtEventCode> = [.indexAdded, .indexRemoved, .newSettings]

    /// Whether a packet read from the mgmt socket means the adapters may have changed.
    static func isChange(_ packet: [UInt8]) -> Bool {
        guard let event = try? MgmtEventPacket(parsing: packet) else { return false }
        return triggers.contains(event.code)
    }

    /// The adapters now, then after every change, until the consumer stops iterating; ends with
    /// the error when the kernel has no Bluetooth.
    public static func changes(logger: Logger) -> AsyncThrowingStream<[HCIAdapter], any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: [HCIAdapter].self, bufferingPolicy: .bufferingNewest(1))
        // One pending "read the list again" at most: a burst of events is one listing.
        let (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let socket: HCISocket?
        do throws(TransportError) {
            socket = try HCISocket(
                channel: .control, label: "mgmt-adapters", logger: logger,
                onPacket: { packet in if isChange(packet) { wake.yield() } },
                onEnd: { error in
                    logger.warning(
                        "the mgmt socket failed: adapters are read every \(pollInterval)",
                        metadata: ["hci.error": "\(error)"])
                    wake.finish()
                })
        } catch {
            socket = nil
            logger.notice(
                "adapter changes are polled every \(pollInterval): the mgmt socket cannot be opened",
                metadata: ["hci.error": "\(error)"])
        }
        let watching = socket != nil
        let task = Task {
            do {
                continuation.yield(try await HCIAdapter.listOnDedicatedThread())
                if watching {
                    for await _ in wakeups { continuation.yield(try await HCIAdapter.listOnDedicatedThread()) }
                }
                while !Task.isCancelled {
                    try await Task.sleep(for: pollInterval)
                    continuation.yield(try await HCIAdapter.listOnDedicatedThread())
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { [socket] _ in
            task.cancel()
            wake.finish()
            socket?.close()
        }
        return stream
    }
}
