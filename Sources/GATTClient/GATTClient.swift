// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import Logging
import NIOConcurrencyHelpers

/// A GATT client over any `ATTBearer`: MTU exchange, discovery, reads, writes and notifications,
/// with the ATT rules enforced by `ATTClientStateMachine`.
///
/// The client owns the bearer. It stamps every received PDU with `clock.now` and feeds it to the
/// state machine on the bearer's reading thread (``ATTBearer/deliver(to:)``). A writer task sends PDUs in the order the state machine produced them (so reading
/// never waits for the bearer's flow control). Notifications go to the ``GATTNotificationSink``
/// given at init, on the reading thread, without a task switch, after the client released its
/// lock; so does the end of the link.
/// Each request is a transaction guarded by `transactionTimeout` on `clock`; when it expires the
/// link is closed for good, as the specification demands, and every later call fails at once.
///
/// ```swift
/// let client = GATTClient(bearer: bearer, notifications: sink, logger: logger)
/// try await client.exchangeMTU()
/// let accel = try await client.characteristic(SDUProfile.accelerometer, inService: SDUProfile.service)
/// try await client.enableNotifications(for: accel)  // sink.notified(_:) from now on
/// ```
///
/// Requests may be issued from several tasks at once; they are sent one at a time. Call
/// `close()` when done: until then the bearer's handler keeps the client alive.
public final class GATTClient<C: Clock>: Sendable where C.Duration == Duration {
    /// A value the peer pushed, stamped on this client's clock.
    public typealias Notification = GATTNotification<C.Instant>
    private typealias Action = ATTClientStateMachine.Action
    private typealias RequestID = ATTClientStateMachine.RequestID

    /// How long a request may wait for its response before the link is given up (30 s by
    /// default, the specification's value).
    public let transactionTimeout: Duration

    private let bearer: any ATTBearer
    private let clock: C
    let logger: Logger
    private let outgoing: AsyncStream<OutgoingPDU>.Continuation
    private let sink: (any GATTNotificationSink<C.Instant>)?
    private let state: NIOLockedValueBox<State>

    private struct OutgoingPDU: Sendable {
        var bytes: [UInt8]
        /// Resumed once the PDU is on the bearer (or failed), for callers that wait.
        var sent: CheckedContinuation<Void, any Error>?
    }

    private struct State {
        var machine = ATTClientStateMachine()
        var nextRequestID: UInt64 = 0
        var waiting: [RequestID: CheckedContinuation<ATTPDU, any Error>] = [:]
        var timers: [RequestID: Task<Void, Never>] = [:]
        var mtu: UInt16 = ATTExchangeMTURequest.minimumMTU
        /// The actions of the event being run: one buffer, reused, so a notification allocates
        /// nothing. Empty between events (it would hold slices of the last PDU).
        var actions: [Action] = []
        var closeTask: Task<Void, Never>?
        var writer: Task<Void, Never>?
    }

    private enum Effect {
        case resume(CheckedContinuation<ATTPDU, any Error>, Result<ATTPDU, any Error>)
        case cancel(Task<Void, Never>)
        case note(ATTClientStateMachine.Note)
        case finish(GATTError?)
        case notify(Notification)
    }

    /// Starts a client on `bearer`, which it now owns.
    ///
    /// - Parameters:
    ///   - clock: the clock for transaction timeouts and notification arrival instants.
    ///   - transactionTimeout: how long a request may go unanswered (30 s in the specification).
    ///   - notifications: where pushed values and the end of the link go; nil drops them.
    ///   - logger: carries the caller's metadata (`ble.address`); the client adds `att.opcode`.
    public init(
        bearer: any ATTBearer, clock: C, transactionTimeout: Duration = .seconds(30),
        notifications sink: (any GATTNotificationSink<C.Instant>)? = nil,
        logger: Logger = Logger(label: "sportsensord.gatt")
    ) {
        self.bearer = bearer
        self.clock = clock
        self.transactionTimeout = transactionTimeout
        self.sink = sink
        self.logger = logger
        let (outgoingStream, outgoing) = AsyncStream.makeStream(of: OutgoingPDU.self)
        self.outgoing = outgoing
        state = NIOLockedValueBox(State())
        let writer = Task { await self.writeLoop(outgoingStream) }
        state.withLockedValue { $0.writer = writer }
        // The bearer keeps the client alive until the flow ends.
        bearer.deliver { [self] input in received(input) }
    }

    // MARK: Status

    /// The ATT MTU in effect: 23 until `exchangeMTU` succeeds.
    public var mtu: UInt16 { state.withLockedValue { $0.mtu } }

    /// PDUs from the peer that could not be parsed.
    public var malformedPDUCount: Int { state.withLockedValue { $0.machine.counters.malformedPDUs } }

    /// Why the link was closed; nil while it is open.
    public var closedBecause: GATTError? { state.withLockedValue { $0.machine.closedBecause } }

    /// A snapshot of the counters and queue.
    public var statistics: GATTClientStatistics {
        state.withLockedValue { state in
            let counters = state.machine.counters
            var statistics = GATTClientStatistics()
            statistics.malformedPDUs = counters.malformedPDUs
            statistics.unsupportedRequestsAnswered = counters.unsupportedRequestsAnswered
            statistics.commandsIgnored = counters.commandsIgnored
            statistics.unexpectedPDUsIgnored = counters.unexpectedPDUsIgnored
            statistics.notificationsReceived = counters.notifications
            statistics.indicationsReceived = counters.indications
            statistics.queuedRequests = state.machine.queuedRequests
            statistics.hasOutstandingRequest = state.machine.hasOutstandingRequest
            statistics.mtu = state.mtu
            return statistics
        }
    }

    // MARK: Operations

    /// Exchanges MTUs (ATT_EXCHANGE_MTU_REQ) and returns the effective MTU, the smaller of
    /// `clientRxMTU` and the server's. Call once, first thing after connecting.
    @discardableResult
    public func exchangeMTU(clientRxMTU: UInt16 = 247) async throws -> UInt16 {
        guard clientRxMTU >= ATTExchangeMTURequest.minimumMTU else {
            throw GATTError(.invalidArgument, "client MTU \(clientRxMTU) is below the minimum 23: pass 23 or more")
        }
        let response = try await transact(ATTExchangeMTURequest(clientRxMTU: clientRxMTU))
        guard case .exchangeMTUResponse(let answer) = response else { throw Self.unexpected(response) }
        let effective = min(clientRxMTU, answer.serverRxMTU)
        state.withLockedValue { $0.mtu = effective }
        logger.debug("ATT MTU exchanged", metadata: ["att.mtu": "\(effective)"])
        return effective
    }

    /// Writes `value` to `handle` with a Write Command: no response, no transaction, not held
    /// behind an outstanding request. Returns once the PDU is on the bearer; the peer may still
    /// ignore it. `value` may be at most MTU − 3 bytes.
    public func writeWithoutResponse(handle: UInt16, value: [UInt8]) async throws {
        try checkFits(value, handle: handle)
        let pdu = ATTWriteCommand(handle: handle, value: value).bytes
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let failure: GATTError? = state.withLockedValue { state -> GATTError? in
                let actions: [Action]
                do throws(GATTError) {
                    actions = try state.machine.command(pdu)
                } catch {
                    return error
                }
                for case .send(let bytes) in actions {
                    if case .terminated = outgoing.yield(OutgoingPDU(bytes: bytes, sent: continuation)) {
                        return state.machine.closedBecause ?? GATTError(.disconnected, "the GATT client was closed")
                    }
                }
                return nil
            }
            if let failure { continuation.resume(throwing: failure) }
        }
    }

    /// Closes the link: pending requests fail with `.disconnected`, the sink's `linkEnded(nil)`
    /// is called, the bearer is closed. Returns once the bearer is closed and the writer task has
    /// ended. Safe to call more than once and after the link ended by itself.
    public func close() async {
        run { $0.machine.close() }
        let (closeTask, writer) = state.withLockedValue { ($0.closeTask, $0.writer) }
        await closeTask?.value
        await writer?.value
    }

    // MARK: Transactions

    /// Sends `request` when its turn comes and returns the response. Error Responses, timeouts and
    /// link loss throw `GATTError`; cancelling the caller throws `CancellationError` (a request
    /// already sent stays outstanding until answered, as ATT cannot cancel it).
    func transact(_ request: some ATTMessage) async throws -> ATTPDU {
        let pdu = request.bytes
        let id = state.withLockedValue { state in
            state.nextRequestID += 1
            return RequestID(state.nextRequestID)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ATTPDU, any Error>) in
                run { state in
                    // Checked under the lock the cancellation handler takes too.
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                        return []
                    }
                    state.waiting[id] = continuation
                    return state.machine.enqueue(pdu, id: id)
                }
            }
        } onCancel: {
            let continuation = state.withLockedValue { state in
                state.machine.cancel(id)
                return state.waiting.removeValue(forKey: id)
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    // MARK: I/O

    /// Runs one state machine event under the lock, performs the actions that must keep their
    /// order (sending) there too, and the rest after unlocking: completions, logging, and the
    /// sink's calls, so the sink runs with no lock held.
    private func run(_ event: (inout State) -> [Action]) {
        run(receivedAt: nil) { state, actions in actions += event(&state) }
    }

    /// ``run(_:)`` with the actions appended to the reused buffer (`State.actions`); a received
    /// PDU's values are stamped `receivedAt`.
    private func run(receivedAt: C.Instant?, _ event: (inout State, inout [Action]) -> Void) {
        // A notification for the sink is kept apart from `effects`, so handling one allocates no
        // effect array (an event delivers at most one).
        let (effects, notification) = state.withLockedValue { state -> ([Effect], Notification?) in
            var actions: [Action] = []
            swap(&actions, &state.actions)
            event(&state, &actions)
            var effects: [Effect] = []
            var notification: Notification?
            for action in actions {
                switch action {
                case .send(let pdu):
                    outgoing.yield(OutgoingPDU(bytes: pdu, sent: nil))
                case .startTimer(let id):
                    state.timers[id] = startTimer(id)
                case .stopTimer(let id):
                    if let timer = state.timers.removeValue(forKey: id) { effects.append(.cancel(timer)) }
                case .succeed(let id, let pdu):
                    if let waiter = state.waiting.removeValue(forKey: id) {
                        effects.append(.resume(waiter, .success(pdu)))
                    }
                case .fail(let id, let error):
                    if let waiter = state.waiting.removeValue(forKey: id) {
                        effects.append(.resume(waiter, .failure(error)))
                    }
                case .deliver(let handle, let value, let isIndication):
                    guard sink != nil else { break }
                    let pushed = Notification(
                        handle: handle, value: value, isIndication: isIndication, receivedAt: receivedAt ?? clock.now)
                    // PDUs are read one at a time, so delivering after unlocking keeps the order.
                    if notification == nil {
                        notification = pushed
                    } else {
                        effects.append(.notify(pushed))
                    }
                case .note(let note):
                    effects.append(.note(note))
                case .finishNotifications(let error):
                    effects.append(.finish(error))
                case .closeBearer:
                    outgoing.finish()
                    state.closeTask = Task { [bearer] in await bearer.close() }
                }
            }
            // Emptied, its capacity kept: no slice of this PDU outlives the event.
            actions.removeAll(keepingCapacity: true)
            state.actions = actions
            return (effects, notification)
        }
        if let notification { sink?.notified(notification) }
        for effect in effects {
            switch effect {
            case .resume(let waiter, let result): waiter.resume(with: result)
            case .cancel(let timer): timer.cancel()
            case .note(let note): log(note)
            case .notify(let notification): sink?.notified(notification)
            case .finish(let error):
                if let error {
                    logger.warning("GATT link closed", metadata: ["gatt.reason": "\(error)"])
                } else {
                    logger.debug("GATT link closed by this side")
                }
                sink?.linkEnded(error)
            }
        }
    }

    private func startTimer(_ id: RequestID) -> Task<Void, Never> {
        let deadline = clock.now.advanced(by: transactionTimeout)
        return Task {
            do {
                try await clock.sleep(until: deadline, tolerance: nil)
            } catch {
                return
            }
            run { $0.machine.transactionTimedOut(id) }
        }
    }

    /// One input from the bearer, on its reading thread.
    @_specialize(where C == ContinuousClock)
    private func received(_ input: ATTBearerInput) {
        switch input {
        case .pdu(let pdu):
            let now = clock.now
            run(receivedAt: now) { state, actions in state.machine.received(pdu, into: &actions) }
        case .ended(let error):
            run { $0.machine.bearerEnded(error: error) }
        }
    }

    private func writeLoop(_ stream: AsyncStream<OutgoingPDU>) async {
        for await pdu in stream {
            // After a close (a transaction timeout above all) no further PDU may reach the peer.
            if let reason = state.withLockedValue({ $0.machine.closedBecause }) {
                pdu.sent?.resume(throwing: reason)
                continue
            }
            do {
                try await bearer.send(pdu.bytes)
                pdu.sent?.resume()
            } catch {
                pdu.sent?.resume(throwing: GATTError(.disconnected, "sending on the link failed", cause: error))
                run { $0.machine.bearerEnded(error: error) }
            }
        }
    }

    private func log(_ note: ATTClientStateMachine.Note) {
        switch note {
        case .malformedPDU(let pdu, let error):
            logger.warning(
                "malformed ATT PDU dropped",
                metadata: ["att.pdu": "\(Self.hex(pdu.prefix(32)))", "att.error": "\(error)"])
        case .answeredUnsupportedRequest(let opcode):
            logger.info("peer request answered with Request Not Supported", metadata: ["att.opcode": "\(opcode)"])
        case .ignoredCommand(let opcode):
            logger.debug("peer command ignored", metadata: ["att.opcode": "\(opcode)"])
        case .ignoredUnexpected(let opcode):
            logger.notice("unexpected ATT PDU ignored", metadata: ["att.opcode": "\(opcode)"])
        }
    }

    // MARK: Helpers

    static func unexpected(_ response: ATTPDU) -> GATTError {
        GATTError(.protocolViolation, "unexpected response \(response.opcode)", requestOpcode: response.opcode)
    }

    static func hex(_ handle: UInt16) -> String {
        let digits = String(handle, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }
}

extension GATTClient where C == ContinuousClock {
    /// Starts a client on `bearer` that times transactions and stamps notifications with
    /// `ContinuousClock`.
    public convenience init(
        bearer: any ATTBearer, transactionTimeout: Duration = .seconds(30),
        notifications sink: (any GATTNotificationSink<ContinuousClock.Instant>)? = nil,
        logger: Logger = Logger(label: "sportsensord.gatt")
    ) {
        self.init(
            bearer: bearer, clock: ContinuousClock(), transactionTimeout: transactionTimeout,
            notifications: sink, logger: logger)
    }
}
