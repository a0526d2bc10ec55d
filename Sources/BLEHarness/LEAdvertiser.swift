// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import BLEWire
import Logging

/// Advertises on an adapter with legacy LE advertising over a raw HCI socket, without
/// bluetoothd: the peripheral side of a virtual sensor on a real (or `btvirt`) controller.
///
/// ```swift
/// let adapter = try HCIAdapter.adapter(index: 1)
/// for try await event in LEAdvertiser.advertise(adapter: adapter, configuration: .sduSensor(name: name)) {
///     print(event)  // advertising, connected(peer), disconnected(reason), ...
/// }
/// ```
///
/// Advertising starts when iteration starts and stops (LE Set Advertising Enable 0x00, written
/// before the socket closes) when the consumer stops iterating, its task is cancelled, or a
/// command fails. After a central disconnects, advertising is enabled again. Combine it with an
/// ``L2CAPListener`` on the same adapter to accept the centrals it attracts.
///
/// The protocol is ``LEAdvertisingProcedure``; an ``HCIProcedureDriver`` (shared with
/// ``LEScanner``) performs its actions. Needs
/// `CAP_NET_RAW` and `CAP_NET_ADMIN`; every failure is a ``TransportError`` whose message names
/// the fix.
public enum LEAdvertiser {
    /// Advertising on `adapter`, with command timeouts and restarts on `ContinuousClock`.
    public static func advertise(
        adapter: HCIAdapter,
        configuration: LEAdvertisingConfiguration,
        logger: Logger = Logger(label: "sportsensord.advertiser")
    ) -> LEAdvertising<ContinuousClock> {
        LEAdvertising(adapter: adapter, configuration: configuration, clock: ContinuousClock(), logger: logger)
    }

    /// Advertising on `adapter`, with command timeouts and restarts on `clock`.
    public static func advertise<C: Clock>(
        adapter: HCIAdapter,
        configuration: LEAdvertisingConfiguration,
        clock: C,
        logger: Logger = Logger(label: "sportsensord.advertiser")
    ) -> LEAdvertising<C> where C.Duration == Duration {
        LEAdvertising(adapter: adapter, configuration: configuration, clock: clock, logger: logger)
    }

    /// The events the advertiser's socket lets through.
    static let events: [HCIEventCode] = [.commandComplete, .commandStatus, .leMeta, .disconnectionComplete]
}

/// What happened to an advertiser.
public enum LEAdvertisingEvent: Sendable, Hashable, CustomStringConvertible {
    /// The controller advertises (at first, and again after each disconnection).
    case advertising
    /// A central connected; the controller stopped advertising.
    case connected(peer: BluetoothAddress, handle: UInt16)
    /// The central's link ended.
    case disconnected(handle: UInt16, reason: HCIErrorCode)

    /// One line for a log.
    public var description: String {
        switch self {
        case .advertising: "advertising"
        case .connected(let peer, let handle): "connected to \(peer) (handle \(handle))"
        case .disconnected(let handle, let reason): "disconnected (handle \(handle), \(reason))"
        }
    }
}

/// Advertising as an `AsyncSequence` of ``LEAdvertisingEvent`` values; see ``LEAdvertiser``.
public struct LEAdvertising<C: Clock>: AsyncSequence, Sendable where C.Duration == Duration {
    /// One change of the advertiser's state.
    public typealias Element = LEAdvertisingEvent
    /// Every failure is a ``TransportError``.
    public typealias Failure = TransportError

    let adapter: HCIAdapter
    let configuration: LEAdvertisingConfiguration
    let clock: C
    let logger: Logger

    /// Prepares advertising; nothing is opened until the first ``Iterator/next()``.
    public func makeAsyncIterator() -> Iterator {
        let (driver, stream) = HCIProcedureDriver.make(
            LEAdvertisingProcedure(configuration: configuration), target: .adapter(adapter), clock: clock,
            logger: logger, bufferSize: 256,
            periodic: configuration.restartInterval.map { interval in (interval, { $0.restartDue() }) }
        ) { procedure, packet, _ in procedure.received(packet) }
        return Iterator(driver: driver, stream: stream.makeAsyncIterator())
    }

    /// Iterates one advertising run: the first call of ``next()`` opens the socket.
    public struct Iterator: AsyncIteratorProtocol {
        let driver: HCIProcedureDriver<LEAdvertisingProcedure, C>
        var stream: AsyncThrowingStream<Element, any Error>.Iterator
        var started = false

        /// The next event; nil once advertising was stopped.
        ///
        /// - Throws: ``TransportError`` when advertising could not start or failed.
        public mutating func next() async throws(TransportError) -> Element? {
            try await HCIProcedureDriver.next(from: &stream, driver: driver, started: &started)
        }
    }
}

extension LEAdvertisingProcedure: HCIProcedure {
    static var events: [HCIEventCode] { LEAdvertiser.events }

    static var names: HCIProcedureNames {
        HCIProcedureNames(
            procedure: "LE advertising", command: "advertising", activity: "advertising",
            elements: "advertising events", threadPrefix: "le-adv")
    }

    var isIdle: Bool { phase == .idle }
    var isFinished: Bool { phase == .finished }
    var commandTimeout: Duration { configuration.commandTimeout }

    static func step(for action: Action) -> HCIProcedureStep<LEAdvertisingEvent> {
        switch action {
        case .send(let command): .send(command)
        case .advertising: .yield(.advertising)
        case .connected(let peer, let handle): .yield(.connected(peer: peer, handle: handle))
        case .disconnected(let handle, let reason): .yield(.disconnected(handle: handle, reason: reason))
        case .note(let note): .log(.notice, "\(note)")
        case .finish(let error): .finish(error)
        }
    }
}
