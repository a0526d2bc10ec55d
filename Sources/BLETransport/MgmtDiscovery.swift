// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import Logging

/// Discovers LE devices through the kernel's management interface: the gateway's scanner.
///
/// ```swift
/// for try await discovery in MgmtDiscovery.discover(adapterIndex: 0) where discovery.isSDUSensor {
///     print(discovery.address, discovery.name ?? "?", discovery.rssi ?? 0)
/// }
/// ```
///
/// Yields the same ``LEDiscovery`` values as the raw ``LEScanner``, but asks the kernel to scan
/// instead of driving the controller behind its back, so it works beside bluetoothd, the
/// kernel's background scan and its connection scans: when another program already discovers,
/// its results are reported and the gateway's own discovery starts when it ends
/// (``MgmtDiscoveryProcedure`` has the details). Discovery starts when iteration starts and stops
/// (only if this iteration started it) when the consumer stops iterating, its task is cancelled,
/// or it fails.
///
/// Needs `CAP_NET_ADMIN` (the kernel sends Device Found only to trusted mgmt sockets); every
/// failure is a ``TransportError`` whose message names the fix.
public enum MgmtDiscovery {
    /// A discovery on adapter `index` (0 for `hci0`), stamped with `ContinuousClock`.
    public static func discover(
        adapterIndex index: UInt16,
        configuration: MgmtDiscoveryConfiguration = MgmtDiscoveryConfiguration(),
        logger: Logger = Logger(label: "sportsensord.discovery")
    ) -> MgmtDiscoveryScan<ContinuousClock> {
        MgmtDiscoveryScan(adapterIndex: index, configuration: configuration, clock: ContinuousClock(), logger: logger)
    }

    /// A discovery whose results are stamped, and whose timers run, on `clock`.
    public static func discover<C: Clock>(
        adapterIndex index: UInt16,
        configuration: MgmtDiscoveryConfiguration = MgmtDiscoveryConfiguration(),
        clock: C,
        logger: Logger = Logger(label: "sportsensord.discovery")
    ) -> MgmtDiscoveryScan<C> where C.Duration == Duration {
        MgmtDiscoveryScan(adapterIndex: index, configuration: configuration, clock: clock, logger: logger)
    }
}

/// A discovery as an `AsyncSequence` of ``LEDiscovery`` values; see ``MgmtDiscovery``.
///
/// Discoveries are buffered up to ``bufferSize``; when the consumer falls behind, the oldest are
/// dropped and the drop is logged.
public struct MgmtDiscoveryScan<C: Clock>: AsyncSequence, Sendable where C.Duration == Duration {
    /// One sighting of a device.
    public typealias Element = LEDiscovery<C.Instant>
    /// Every failure is a ``TransportError``.
    public typealias Failure = TransportError

    /// How many undelivered discoveries are kept before the oldest are dropped.
    public static var bufferSize: Int { 1024 }

    let adapterIndex: UInt16
    let configuration: MgmtDiscoveryConfiguration
    let clock: C
    let logger: Logger

    /// Prepares a discovery; nothing is opened until the first ``Iterator/next()``.
    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncThrowingStream<Element, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(Self.bufferSize))
        let session = MgmtDiscoverySession(
            procedure: MgmtDiscoveryProcedure(adapterIndex: adapterIndex, configuration: configuration), clock: clock,
            logger: logger, continuation: continuation)
        continuation.onTermination = { _ in session.stop() }
        return Iterator(session: session, stream: stream.makeAsyncIterator())
    }

    /// Iterates one discovery: the first call of ``next()`` opens the socket and starts it.
    public struct Iterator: AsyncIteratorProtocol {
        let session: MgmtDiscoverySession<C>
        var stream: AsyncThrowingStream<Element, any Error>.Iterator
        var started = false

        /// The next discovery; nil once discovery was stopped.
        ///
        /// - Throws: ``TransportError`` when discovery could not start or failed.
        public mutating func next() async throws(TransportError) -> Element? {
            if !started {
                started = true
                session.start()
            }
            do {
                return try await stream.next()
            } catch let error as TransportError {
                throw error
            } catch {
                throw TransportError(code: .system, message: "the discovery ended unexpectedly: \(error)")
            }
        }
    }
}
