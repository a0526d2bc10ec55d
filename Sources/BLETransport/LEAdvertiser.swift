// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import Logging
import Synchronization

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
/// The protocol is ``LEAdvertisingProcedure``; this type only performs its actions. Needs
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
        let (stream, continuation) = AsyncThrowingStream<Element, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(256))
        let session = LEAdvertisingSession(
            adapter: adapter, configuration: configuration, clock: clock, logger: logger, continuation: continuation)
        continuation.onTermination = { _ in session.stop() }
        return Iterator(session: session, stream: stream.makeAsyncIterator())
    }

    /// Iterates one advertising run: the first call of ``next()`` opens the socket.
    public struct Iterator: AsyncIteratorProtocol {
        let session: LEAdvertisingSession<C>
        var stream: AsyncThrowingStream<Element, any Error>.Iterator
        var started = false

        /// The next event; nil once advertising was stopped.
        ///
        /// - Throws: ``TransportError`` when advertising could not start or failed.
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
                throw TransportError(code: .system, message: "advertising ended unexpectedly: \(error)")
            }
        }
    }
}

/// Performs the actions of one ``LEAdvertisingProcedure`` on one ``HCISocket``, under one lock
/// per event so commands go out in order; the stream is fed outside the lock.
final class LEAdvertisingSession<C: Clock>: Sendable where C.Duration == Duration {
    private struct State {
        var procedure: LEAdvertisingProcedure
        var socket: HCISocket?
        var timer: Task<Void, Never>?
        var restarter: Task<Void, Never>?
    }

    private struct Outcome {
        var events: [LEAdvertisingEvent] = []
        var finish: TransportError??
        var socket: HCISocket?
        var restarter: Task<Void, Never>?
    }

    private let adapter: HCIAdapter
    private let clock: C
    private let logger: Logger
    private let continuation: AsyncThrowingStream<LEAdvertisingEvent, any Error>.Continuation
    private let state: Mutex<State>

    init(
        adapter: HCIAdapter, configuration: LEAdvertisingConfiguration, clock: C, logger: Logger,
        continuation: AsyncThrowingStream<LEAdvertisingEvent, any Error>.Continuation
    ) {
        self.adapter = adapter
        self.clock = clock
        self.logger = logger
        self.continuation = continuation
        state = Mutex(State(procedure: LEAdvertisingProcedure(configuration: configuration)))
    }

    /// Checks the adapter, opens the socket and sends the first command. Failures end the stream.
    func start() {
        let socket: HCISocket
        do throws(TransportError) {
            guard adapter.isUp else {
                throw TransportError(
                    code: .adapterDown,
                    message: "\(adapter.name) is down: bring it up with `btmgmt --index \(adapter.index) power on` "
                        + "or `hciconfig \(adapter.name) up`, and check `rfkill list` for a blocked radio"
                )
            }
            socket = try HCISocket(
                adapterIndex: adapter.index, events: LEAdvertiser.events, label: "le-adv-\(adapter.name)",
                logger: logger,
                onPacket: { [weak self] packet in self?.received(packet) },
                onEnd: { [weak self] error in self?.transportFailed(error) }
            )
        } catch {
            continuation.finish(throwing: error)
            return
        }
        let outcome = state.withLock { state in
            guard state.procedure.phase == .idle else { return Outcome(socket: socket) }
            state.socket = socket
            var outcome = perform(state.procedure.start(), in: &state)
            if state.procedure.phase != .finished, let interval = state.procedure.configuration.restartInterval {
                state.restarter = restartLoop(every: interval)
            }
            if state.procedure.phase == .finished {
                outcome.restarter = state.restarter
                state.restarter = nil
            }
            return outcome
        }
        deliver(outcome)
    }

    /// The consumer stopped iterating or was cancelled.
    func stop() {
        deliver(state.withLock { state in perform(state.procedure.stop(), in: &state) })
    }

    private func received(_ packet: [UInt8]) {
        deliver(state.withLock { state in perform(state.procedure.received(packet), in: &state) })
    }

    private func transportFailed(_ error: TransportError) {
        deliver(state.withLock { state in perform(state.procedure.transportFailed(error), in: &state) })
    }

    private func commandTimedOut(_ opcode: HCIOpcode) {
        deliver(state.withLock { state in perform(state.procedure.commandTimedOut(opcode), in: &state) })
    }

    private func restartDue() {
        deliver(state.withLock { state in perform(state.procedure.restartDue(), in: &state) })
    }

    private func restartLoop(every interval: Duration) -> Task<Void, Never> {
        let clock = self.clock
        return Task { [weak self] in
            while true {
                do {
                    try await clock.sleep(for: interval)
                } catch {
                    return
                }
                guard let self else { return }
                self.restartDue()
            }
        }
    }

    private func perform(_ actions: [LEAdvertisingProcedure.Action], in state: inout State) -> Outcome {
        var outcome = Outcome()
        var queue = actions[...]
        while let action = queue.popFirst() {
            switch action {
            case .send(let command):
                var bytes: [UInt8] = [HCIPacketType.command.rawValue]
                command.encode(into: &bytes)
                let isFinal = state.procedure.phase == .finished
                do throws(TransportError) {
                    guard let socket = state.socket else {
                        throw TransportError(code: .closed, message: "the HCI socket is not open")
                    }
                    try socket.write(bytes)
                    if !isFinal { armTimer(for: command.opcode, in: &state) }
                } catch {
                    if isFinal {
                        logger.warning(
                            """
                            could not write the advertising disable command: the controller may still be \
                            advertising; `btmgmt power off; btmgmt power on` resets it
                            """,
                            metadata: ["hci.error": "\(error)"])
                    } else {
                        queue.append(contentsOf: state.procedure.transportFailed(error))
                    }
                }
            case .advertising:
                outcome.events.append(.advertising)
            case .connected(let peer, let handle):
                outcome.events.append(.connected(peer: peer, handle: handle))
            case .disconnected(let handle, let reason):
                outcome.events.append(.disconnected(handle: handle, reason: reason))
            case .note(let note):
                logger.notice("\(note)")
            case .finish(let error):
                outcome.finish = .some(error)
                outcome.socket = state.socket
                outcome.restarter = state.restarter
                state.socket = nil
                state.restarter = nil
                state.timer?.cancel()
                state.timer = nil
            }
        }
        return outcome
    }

    private func armTimer(for opcode: HCIOpcode, in state: inout State) {
        state.timer?.cancel()
        let timeout = state.procedure.configuration.commandTimeout
        let clock = self.clock
        state.timer = Task { [weak self] in
            do {
                try await clock.sleep(for: timeout)
            } catch {
                return
            }
            self?.commandTimedOut(opcode)
        }
    }

    private func deliver(_ outcome: Outcome) {
        for event in outcome.events { continuation.yield(event) }
        outcome.restarter?.cancel()
        outcome.socket?.close()
        if let finish = outcome.finish {
            if let error = finish {
                logger.error("LE advertising failed", metadata: ["hci.error": "\(error)"])
                continuation.finish(throwing: error)
            } else {
                continuation.finish()
            }
        }
    }
}
