// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import Logging
import Synchronization

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
/// The protocol is ``LEScanProcedure``; this type only performs its actions. Needs
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

    enum Target: Sendable {
        case adapter(HCIAdapter)
        case index(UInt16)
    }

    let target: Target
    let configuration: LEScanConfiguration
    let clock: C
    let logger: Logger

    /// Prepares a scan; nothing is opened until the first ``Iterator/next()``.
    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncThrowingStream<Element, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(Self.bufferSize))
        let session = LEScanSession(
            target: target, configuration: configuration, clock: clock, logger: logger, continuation: continuation)
        continuation.onTermination = { _ in session.stop() }
        return Iterator(session: session, stream: stream.makeAsyncIterator())
    }

    /// Iterates one scan: the first call of ``next()`` opens the socket and starts scanning.
    public struct Iterator: AsyncIteratorProtocol {
        let session: LEScanSession<C>
        var stream: AsyncThrowingStream<Element, any Error>.Iterator
        var started = false

        /// The next discovery; nil once the scan was stopped.
        ///
        /// - Throws: ``TransportError`` when the scan could not start or failed.
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
                throw TransportError(code: .system, message: "the scan ended unexpectedly: \(error)")
            }
        }
    }
}

/// Performs the actions of one ``LEScanProcedure`` on one ``HCISocket``. Every procedure event and
/// the writes it causes happen under one lock, so commands go out in the order the procedure
/// produced them; the stream is fed and finished outside the lock.
final class LEScanSession<C: Clock>: Sendable where C.Duration == Duration {
    typealias Element = LEDiscovery<C.Instant>

    private struct State {
        var procedure: LEScanProcedure<C.Instant>
        var socket: HCISocket?
        var timer: Task<Void, Never>?
        var droppedCount = 0
    }

    /// What must happen once the lock is released.
    private struct Outcome {
        var discoveries: [Element] = []
        var finish: TransportError??
        var socket: HCISocket?
    }

    private let target: LEScan<C>.Target
    private let clock: C
    private let logger: Logger
    private let continuation: AsyncThrowingStream<Element, any Error>.Continuation
    private let state: Mutex<State>

    init(
        target: LEScan<C>.Target, configuration: LEScanConfiguration, clock: C, logger: Logger,
        continuation: AsyncThrowingStream<Element, any Error>.Continuation
    ) {
        self.target = target
        self.clock = clock
        self.logger = logger
        self.continuation = continuation
        state = Mutex(State(procedure: LEScanProcedure(configuration: configuration)))
    }

    /// Checks the adapter, opens the socket and sends the first command. Failures end the stream.
    func start() {
        let adapter: HCIAdapter
        let socket: HCISocket
        do throws(TransportError) {
            switch target {
            case .adapter(let given): adapter = given
            case .index(let index): adapter = try HCIAdapter.adapter(index: index)
            }
            guard adapter.isUp else {
                throw TransportError(
                    code: .adapterDown,
                    message: "\(adapter.name) is down: bring it up with `btmgmt --index \(adapter.index) power on` "
                        + "or `hciconfig \(adapter.name) up`, and check `rfkill list` for a blocked radio"
                )
            }
            socket = try HCISocket(
                adapterIndex: adapter.index, events: LEScanner.events, label: "le-scan-\(adapter.name)",
                logger: logger,
                onPacket: { [weak self] packet in self?.received(packet) },
                onEnd: { [weak self] error in self?.transportFailed(error) }
            )
        } catch {
            continuation.finish(throwing: error)
            return
        }
        let outcome = state.withLock { state in
            guard state.procedure.phase == .idle else {
                // Stopped before the socket was open: nothing was sent.
                return Outcome(socket: socket)
            }
            state.socket = socket
            return perform(state.procedure.start(), in: &state)
        }
        deliver(outcome)
        logger.debug("scanning", metadata: ["hci.adapter": "\(adapter.name)"])
    }

    /// The consumer stopped iterating or was cancelled.
    func stop() {
        deliver(state.withLock { state in perform(state.procedure.stop(), in: &state) })
    }

    private func received(_ packet: [UInt8]) {
        let now = clock.now
        deliver(state.withLock { state in perform(state.procedure.received(packet, at: now), in: &state) })
    }

    private func transportFailed(_ error: TransportError) {
        deliver(state.withLock { state in perform(state.procedure.transportFailed(error), in: &state) })
    }

    private func commandTimedOut(_ opcode: HCIOpcode) {
        deliver(state.withLock { state in perform(state.procedure.commandTimedOut(opcode), in: &state) })
    }

    /// Performs actions with the lock held: writes commands in order, arms the command timer,
    /// and collects what must be delivered after the lock is released.
    private func perform(_ actions: [LEScanProcedure<C.Instant>.Action], in state: inout State) -> Outcome {
        var outcome = Outcome()
        var queue = actions[...]
        while let action = queue.popFirst() {
            switch action {
            case .send(let command):
                var bytes: [UInt8] = [HCIPacketType.command.rawValue]
                command.encode(into: &bytes)
                let isDisable = state.procedure.phase == .finished
                do throws(TransportError) {
                    guard let socket = state.socket else {
                        throw TransportError(code: .closed, message: "the HCI socket is not open")
                    }
                    try socket.write(bytes)
                    if !isDisable { armTimer(for: command.opcode, in: &state) }
                } catch {
                    if isDisable {
                        logger.warning(
                            """
                            could not write the scan disable command: the controller may still be scanning; \
                            `btmgmt power off; btmgmt power on` resets it
                            """,
                            metadata: ["hci.error": "\(error)"])
                    } else {
                        queue.append(contentsOf: state.procedure.transportFailed(error))
                    }
                }
            case .started(let set):
                logger.info("LE scan running", metadata: ["hci.commandSet": "\(set)"])
            case .discovered(let discovery):
                outcome.discoveries.append(discovery)
            case .note(let note):
                logger.notice("\(note)")
            case .finish(let error):
                outcome.finish = .some(error)
                outcome.socket = state.socket
                state.socket = nil
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

    /// Feeds the stream, then ends it and closes the socket if the procedure finished.
    private func deliver(_ outcome: Outcome) {
        for discovery in outcome.discoveries {
            if case .dropped = continuation.yield(discovery) {
                let dropped = state.withLock { state in
                    state.droppedCount += 1
                    return state.droppedCount
                }
                if dropped == 1 || dropped % 1000 == 0 {
                    logger.warning(
                        "the scan consumer is falling behind: dropped the oldest discoveries",
                        metadata: ["scan.dropped": "\(dropped)"])
                }
            }
        }
        outcome.socket?.close()
        if let finish = outcome.finish {
            if let error = finish {
                logger.error("LE scan failed", metadata: ["hci.error": "\(error)"])
                continuation.finish(throwing: error)
            } else {
                continuation.finish()
            }
        }
    }
}
