// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import BLEWire
import Logging
import NIOConcurrencyHelpers

/// A pure host–controller procedure as ``HCIProcedureDriver`` runs it: ``LEScanProcedure`` and
/// ``LEAdvertisingProcedure`` conform in the files of their drivers.
protocol HCIProcedure: Sendable {
    /// What the procedure asks the driver to do.
    associatedtype Action: Sendable
    /// What the driver's stream yields.
    associatedtype Element: Sendable

    /// The event codes the procedure's raw HCI socket lets through.
    static var events: [HCIEventCode] { get }
    /// How the procedure is named in log lines, messages and thread names.
    static var names: HCIProcedureNames { get }

    /// True until ``start()`` ran.
    var isIdle: Bool { get }
    /// True once the procedure is over: a command it still asks for is the final disable.
    var isFinished: Bool { get }
    /// How long a command may wait for its answer.
    var commandTimeout: Duration { get }

    /// Starts the exchange.
    mutating func start() -> [Action]
    /// The consumer stopped: disable what was enabled, then finish.
    mutating func stop() -> [Action]
    /// The command `opcode` got no answer in time.
    mutating func commandTimedOut(_ opcode: HCIOpcode) -> [Action]
    /// The socket failed.
    mutating func transportFailed(_ error: TransportError) -> [Action]

    /// What the driver does for `action`.
    static func step(for action: Action) -> HCIProcedureStep<Element>
}

/// How an ``HCIProcedure`` is named.
struct HCIProcedureNames: Sendable {
    /// `LE scan`: starts log lines.
    var procedure: String
    /// `scan`: the procedure's final command is its "scan disable command".
    var command: String
    /// `scanning`: what the controller may go on doing when the disable cannot be written.
    var activity: String
    /// `discoveries`: what the stream carries.
    var elements: String
    /// `le-scan`: the I/O thread is named `le-scan-hci0`.
    var threadPrefix: String
}

/// One thing the driver does for one action of a procedure.
enum HCIProcedureStep<Element> {
    /// Write this command; unless the procedure has finished, arm its timeout.
    case send(HCICommandPacket)
    /// Hand this to the consumer.
    case yield(Element)
    /// Write a log line; nothing else changes.
    case log(Logger.Level, Logger.Message, Logger.Metadata = [:])
    /// Close the socket and end the stream, with this error if the procedure failed.
    case finish(TransportError?)
}

/// The adapter a procedure runs on: given, or looked up by index when it starts.
enum HCIAdapterTarget: Sendable {
    case adapter(HCIAdapter)
    case index(UInt16)

    func resolve() throws(TransportError) -> HCIAdapter {
        switch self {
        case .adapter(let adapter): adapter
        case .index(let index): try HCIAdapter.adapter(index: index)
        }
    }
}

/// Performs the actions of one ``HCIProcedure`` on one ``HCISocket`` and feeds the consumer's
/// stream: what ``LEScanner`` and ``LEAdvertiser`` run on.
///
/// Every procedure event and the writes it causes happen under one lock, so commands go out in
/// the order the procedure produced them; the stream is fed and finished outside the lock. Each
/// command has a timeout on `C`. When the procedure finishes, the socket is closed after its
/// final command (the disable) was written: the kernel queues written commands on the adapter,
/// so the disable reaches the controller even though the socket closes right after.
final class HCIProcedureDriver<Procedure: HCIProcedure, C: Clock>: Sendable where C.Duration == Duration {
    typealias Element = Procedure.Element
    typealias Stream = AsyncThrowingStream<Element, any Error>
    /// Feeds one packet read from the socket, stamped with the clock's reading, to the procedure.
    typealias PacketEvent = @Sendable (inout Procedure, [UInt8], C.Instant) -> [Procedure.Action]
    /// An event of the procedure that recurs on the clock (the advertiser's restarts).
    typealias Periodic = (interval: Duration, event: @Sendable (inout Procedure) -> [Procedure.Action])

    private struct State {
        var procedure: Procedure
        var socket: HCISocket?
        var timer: Task<Void, Never>?
        var ticker: Task<Void, Never>?
        var droppedCount = 0
    }

    /// What must happen once the lock is released.
    private struct Outcome {
        var elements: [Element] = []
        var finish: TransportError??
        var socket: HCISocket?
        var ticker: Task<Void, Never>?
    }

    private let target: HCIAdapterTarget
    private let clock: C
    private let logger: Logger
    private let continuation: Stream.Continuation
    private let packetEvent: PacketEvent
    private let periodic: Periodic?
    private let state: NIOLockedValueBox<State>

    /// A driver for `procedure` and the stream it feeds, which keeps the newest `bufferSize`
    /// elements when the consumer lags. Nothing is opened until ``start()``; the stream's end
    /// (the consumer stopped iterating or was cancelled) stops the procedure.
    static func make(
        _ procedure: Procedure, target: HCIAdapterTarget, clock: C, logger: Logger, bufferSize: Int,
        periodic: Periodic? = nil, packetEvent: @escaping PacketEvent
    ) -> (HCIProcedureDriver, Stream) {
        let (stream, continuation) = Stream.makeStream(bufferingPolicy: .bufferingNewest(bufferSize))
        let driver = HCIProcedureDriver(
            procedure, target: target, clock: clock, logger: logger, continuation: continuation, periodic: periodic,
            packetEvent: packetEvent)
        continuation.onTermination = { _ in driver.stop() }
        return (driver, stream)
    }

    private init(
        _ procedure: Procedure, target: HCIAdapterTarget, clock: C, logger: Logger,
        continuation: Stream.Continuation, periodic: Periodic?, packetEvent: @escaping PacketEvent
    ) {
        self.target = target
        self.clock = clock
        self.logger = logger
        self.continuation = continuation
        self.periodic = periodic
        self.packetEvent = packetEvent
        state = NIOLockedValueBox(State(procedure: procedure))
    }

    /// The next element of `stream`, starting the procedure on the first call (`started`).
    static func next(
        from stream: inout Stream.Iterator, driver: HCIProcedureDriver, started: inout Bool
    ) async throws(TransportError) -> Element? {
        if !started {
            started = true
            driver.start()
        }
        do {
            return try await stream.next()
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError(
                code: .system, message: "the \(Procedure.names.procedure) ended unexpectedly: \(error)")
        }
    }

    /// Checks the adapter, opens the socket and sends the first command. Failures end the stream.
    func start() {
        let adapter: HCIAdapter
        let socket: HCISocket
        do throws(TransportError) {
            adapter = try target.resolve()
            guard adapter.isUp else {
                throw TransportError(
                    code: .adapterDown,
                    message: "\(adapter.name) is down: bring it up with `btmgmt --index \(adapter.index) power on` "
                        + "or `hciconfig \(adapter.name) up`, and check `rfkill list` for a blocked radio"
                )
            }
            socket = try HCISocket(
                adapterIndex: adapter.index, events: Procedure.events,
                label: "\(Procedure.names.threadPrefix)-\(adapter.name)", logger: logger,
                onPacket: { [weak self] packet in self?.received(packet) },
                onEnd: { [weak self] error in self?.handle { $0.transportFailed(error) } }
            )
        } catch {
            continuation.finish(throwing: error)
            return
        }
        let outcome = state.withLockedValue { state in
            guard state.procedure.isIdle else {
                // Stopped before the socket was open: nothing was sent.
                return Outcome(socket: socket)
            }
            state.socket = socket
            let outcome = perform(state.procedure.start(), in: &state)
            if !state.procedure.isFinished, let periodic {
                state.ticker = recur(every: periodic.interval, periodic.event)
            }
            return outcome
        }
        deliver(outcome)
        logger.debug("\(Procedure.names.procedure) started", metadata: ["hci.adapter": "\(adapter.name)"])
    }

    /// The consumer stopped iterating or was cancelled.
    func stop() {
        handle { $0.stop() }
    }

    private func received(_ packet: [UInt8]) {
        let now = clock.now
        handle { packetEvent(&$0, packet, now) }
    }

    /// Runs one event of the procedure and performs its actions under the lock, then delivers.
    private func handle(_ event: (inout Procedure) -> [Procedure.Action]) {
        deliver(state.withLockedValue { state in perform(event(&state.procedure), in: &state) })
    }

    /// Performs actions with the lock held: writes commands in order, arms the command timer,
    /// and collects what must be delivered after the lock is released.
    private func perform(_ actions: [Procedure.Action], in state: inout State) -> Outcome {
        var outcome = Outcome()
        var queue = actions[...]
        while let action = queue.popFirst() {
            switch Procedure.step(for: action) {
            case .send(let command):
                var bytes: [UInt8] = [HCIPacketType.command.rawValue]
                command.encode(into: &bytes)
                let isFinal = state.procedure.isFinished
                do throws(TransportError) {
                    guard let socket = state.socket else {
                        throw TransportError(code: .closed, message: "the HCI socket is not open")
                    }
                    try socket.write(bytes)
                    if !isFinal { armTimer(for: command.opcode, in: &state) }
                } catch {
                    if isFinal {
                        let names = Procedure.names
                        logger.warning(
                            """
                            could not write the \(names.command) disable command: the controller may still be \
                            \(names.activity); `btmgmt power off; btmgmt power on` resets it
                            """,
                            metadata: ["hci.error": "\(error)"])
                    } else {
                        queue.append(contentsOf: state.procedure.transportFailed(error))
                    }
                }
            case .yield(let element):
                outcome.elements.append(element)
            case .log(let level, let message, let metadata):
                logger.log(level: level, message, metadata: metadata)
            case .finish(let error):
                outcome.finish = .some(error)
                outcome.socket = state.socket
                outcome.ticker = state.ticker
                state.socket = nil
                state.ticker = nil
                state.timer?.cancel()
                state.timer = nil
            }
        }
        return outcome
    }

    private func armTimer(for opcode: HCIOpcode, in state: inout State) {
        state.timer?.cancel()
        let timeout = state.procedure.commandTimeout
        let clock = self.clock
        state.timer = Task { [weak self] in
            do {
                try await clock.sleep(for: timeout)
            } catch {
                return
            }
            self?.handle { $0.commandTimedOut(opcode) }
        }
    }

    private func recur(
        every interval: Duration, _ event: @escaping @Sendable (inout Procedure) -> [Procedure.Action]
    ) -> Task<Void, Never> {
        let clock = self.clock
        return Task { [weak self] in
            while true {
                do {
                    try await clock.sleep(for: interval)
                } catch {
                    return
                }
                guard let self else { return }
                self.handle(event)
            }
        }
    }

    /// Feeds the stream, then ends it and closes the socket if the procedure finished.
    private func deliver(_ outcome: Outcome) {
        for element in outcome.elements {
            if case .dropped = continuation.yield(element) {
                let dropped = state.withLockedValue { state in
                    state.droppedCount += 1
                    return state.droppedCount
                }
                if dropped == 1 || dropped % 1000 == 0 {
                    logger.warning(
                        "the consumer is falling behind: dropped the oldest \(Procedure.names.elements)",
                        metadata: ["hci.dropped": "\(dropped)"])
                }
            }
        }
        outcome.ticker?.cancel()
        outcome.socket?.close()
        if let finish = outcome.finish {
            if let error = finish {
                logger.error("\(Procedure.names.procedure) failed", metadata: ["hci.error": "\(error)"])
                continuation.finish(throwing: error)
            } else {
                continuation.finish()
            }
        }
    }
}
