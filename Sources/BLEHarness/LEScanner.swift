// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import BLEWire
import Logging

/// Scans for LE advertisers on a raw HCI socket, without bluetoothd.
///
/// ```swift
/// let adapter = try HCIAdapter.adapter(index: 0)
/// for try await discovery in LEScanner.scan(adapter: adapter) where discovery.isSDUSensor {
///     print(discovery.address, discovery.name ?? "?", discovery.rssi ?? 0)
/// }
/// ```
///
/// Scanning starts when iteration starts (each iteration is its own scan) and stops when the
/// consumer stops iterating, its task is cancelled, or the scan fails. In every case the
/// controller's scan is disabled again: the disable command is written synchronously, before the
/// socket is closed, from the stream's termination handler or the failing path. The kernel queues
/// written commands independently of the socket, so the disable reaches the controller even
/// though the socket closes right after.
///
/// The protocol is ``LEScanProcedure``; an ``HCIProcedureDriver`` (shared with ``LEAdvertiser``)
/// performs its actions. Needs
/// `CAP_NET_RAW` and `CAP_NET_ADMIN`; every failure is a ``TransportError`` whose message names
/// the fix.
public enum LEScanner {
    /// A scan of `adapter`, stamped with `ContinuousClock`. Nothing happens until iteration starts.
    ///
    /// - Parameters:
    ///   - adapter: the adapter to scan with, as ``HCIAdapter/list()`` returned it; a scan of an
    ///     adapter that was down then fails with `adapterDown` and the fix.
    ///   - configuration: active/passive, timing, duplicate policy.
    ///   - logger: where the scanner logs the command set used, fallbacks and dropped events.
    public static func scan(
        adapter: HCIAdapter,
        configuration: LEScanConfiguration = LEScanConfiguration(),
        logger: Logger = Logger(label: "sportsensord.scanner")
    ) -> LEScan<ContinuousClock> {
        LEScan(target: .adapter(adapter), configuration: configuration, clock: ContinuousClock(), logger: logger)
    }

    /// A scan of adapter `index` (0 for `hci0`), looked up when iteration starts.
    public static func scan(
        adapterIndex index: UInt16,
        configuration: LEScanConfiguration = LEScanConfiguration(),
        logger: Logger = Logger(label: "sportsensord.scanner")
    ) -> LEScan<ContinuousClock> {
        LEScan(target: .index(index), configuration: configuration, clock: ContinuousClock(), logger: logger)
    }

    /// A scan of `adapter` whose discoveries are stamped, and whose command timeouts are measured,
    /// on `clock`.
    public static func scan<C: Clock>(
        adapter: HCIAdapter,
        configuration: LEScanConfiguration = LEScanConfiguration(),
        clock: C,
        logger: Logger = Logger(label: "sportsensord.scanner")
    ) -> LEScan<C> where C.Duration == Duration {
        LEScan(target: .adapter(adapter), configuration: configuration, clock: clock, logger: logger)
    }

    /// The events the scanner's socket lets through.
    static let events: [HCIEventCode] = [.commandComplete, .commandStatus, .leMeta]
}

/// An LE scan as an `AsyncSequence` of ``LEDiscovery`` values; see ``LEScanner``.
///
/// Discoveries are buffered up to ``bufferSize``; when the consumer falls behind, the oldest are
/// dropped (a newer report of the same device carries a newer RSSI) and the drop is logged.
public struct LEScan<C: Clock>: AsyncSequence, Sendable where C.Duration == Duration {
    /// One sighting of an advertiser.
    public typealias Element = LEDiscovery<C.Instant>
    /// Every failure is a ``TransportError``.
    public typealias Failure = TransportError

    /// How many undelivered discoveries are kept before the oldest are dropped.
    public static var bufferSize: Int { 1024 }

    let target: HCIAdapterTarget
    let configuration: LEScanConfiguration
    let clock: C
    let logger: Logger

    /// Prepares a scan; nothing is opened until the first ``Iterator/next()``.
    public func makeAsyncIterator() -> Iterator {
        let (driver, stream) = HCIProcedureDriver.make(
            LEScanProcedure<C.Instant>(configuration: configuration), target: target, clock: clock, logger: logger,
            bufferSize: Self.bufferSize
        ) { procedure, packet, now in procedure.received(packet, at: now) }
        return Iterator(driver: driver, stream: stream.makeAsyncIterator())
    }

    /// Iterates one scan: the first call of ``next()`` opens the socket and starts scanning.
    public struct Iterator: AsyncIteratorProtocol {
        let driver: HCIProcedureDriver<LEScanProcedure<C.Instant>, C>
        var stream: AsyncThrowingStream<Element, any Error>.Iterator
        var started = false

        /// The next discovery; nil once the scan was stopped.
        ///
        /// - Throws: ``TransportError`` when the scan could not start or failed.
        public mutating func next() async throws(TransportError) -> Element? {
            try await HCIProcedureDriver.next(from: &stream, driver: driver, started: &started)
        }
    }
}

extension LEScanProcedure: HCIProcedure {
    static var events: [HCIEventCode] { LEScanner.events }

    static var names: HCIProcedureNames {
        HCIProcedureNames(
            procedure: "LE scan", command: "scan", activity: "scanning", elements: "discoveries",
            threadPrefix: "le-scan")
    }

    var isIdle: Bool { phase == .idle }
    var isFinished: Bool { phase == .finished }
    var commandTimeout: Duration { configuration.commandTimeout }

    static func step(for action: Action) -> HCIProcedureStep<LEDiscovery<Instant>> {
        switch action {
        case .send(let command): .send(command)
        case .started(let set): .log(.info, "LE scan running", ["hci.commandSet": "\(set)"])
        case .discovered(let discovery): .yield(discovery)
        case .note(let note): .log(.notice, "\(note)")
        case .finish(let error): .finish(error)
        }
    }
}
