// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire

/// The client side of the Attribute Protocol as pure logic: events in, actions out, no I/O.
///
/// `GATTClient` feeds it every request, every received PDU, timer expiry and link loss, and
/// performs the actions it returns (send a PDU, arm or stop the transaction timer, complete a
/// request, deliver a notification, close the bearer): a notification is an action like any
/// other. The rules it enforces (Core Vol 3 Part F
/// 3.3.2 and 3.4):
///
/// - **One outstanding request.** A request is sent only when no other is awaiting its response;
///   further requests queue and go out one at a time, in order.
/// - **Responses complete the outstanding request.** The response opcode must be the request's
///   opcode + 1, or an Error Response naming the request's opcode. Anything else (a different
///   response, or a response with no request outstanding) is a *protocol violation*: the request
///   fails with `.protocolViolation` and the link is closed, because a response that may still be
///   on its way could otherwise be taken as the answer to the next request. A response that has
///   the right opcode but cannot be parsed completes the request with `.malformedResponse` and
///   keeps the link: the transaction is over, the server sent its one answer.
/// - **Notifications are delivered; indications are delivered and confirmed** with
///   ATT_HANDLE_VALUE_CFM (a malformed indication is still confirmed, so the server is not left
///   waiting for its own 30 s timeout).
/// - **The peer's requests are answered.** The sensor may act as a GATT client too. This side
///   serves no attributes, so every request (Exchange MTU, Read, Write, an unmodelled one, a
///   malformed one) gets an Error Response *Request Not Supported*, with the request's handle
///   where it carries one and 0 otherwise. An undefined opcode without the command flag is
///   answered the same way (handle 0). Commands are ignored, as the specification demands.
///   Without an answer the peer's transaction would stall until its timeout and it would
///   disconnect.
/// - **Malformed PDUs never stop the client.** They are counted (`counters.malformedPDUs`) and
///   reported as `.note(.malformedPDU)` for logging.
/// - **Transaction timeout is final.** When the outstanding request times out (30 s), no further
///   ATT PDU may be sent on this bearer: every pending request fails with `.timeout`, the
///   notification stream ends with the same error, and the bearer is closed. Every later request
///   fails at once.
public struct ATTClientStateMachine: Sendable {
    /// Identifies one request from enqueue to completion. The I/O layer chooses it (unique per
    /// state machine) so it can refer to the request before the state machine has seen it.
    public struct RequestID: Hashable, Sendable, CustomStringConvertible {
        /// The identifier.
        public var rawValue: UInt64

        /// Wraps an identifier.
        public init(_ rawValue: UInt64) {
            self.rawValue = rawValue
        }

        /// `#7`.
        public var description: String { "#\(rawValue)" }
    }

    /// Something the state machine noticed that the I/O layer should log; nothing to perform.
    public enum Note: Hashable, Sendable {
        /// A PDU that could not be parsed (counted in `counters.malformedPDUs`).
        case malformedPDU([UInt8], WireError)
        /// A request from the peer answered with *Request Not Supported*.
        case answeredUnsupportedRequest(ATTOpcode)
        /// A command from the peer, ignored.
        case ignoredCommand(ATTOpcode)
        /// A PDU that has no place on the client side (a stray confirmation, a Multiple Handle
        /// Value Notification that was never enabled), ignored.
        case ignoredUnexpected(ATTOpcode)
    }

    /// What the I/O layer must do, in order.
    public enum Action: Sendable {
        /// Send this PDU on the bearer.
        case send([UInt8])
        /// The request was just sent: start its transaction timer; when it expires call
        /// `transactionTimedOut(_:)` with this ID.
        case startTimer(RequestID)
        /// The request is complete: stop its timer.
        case stopTimer(RequestID)
        /// The request succeeded with this response (never an Error Response).
        case succeed(RequestID, ATTPDU)
        /// The request failed.
        case fail(RequestID, GATTError)
        /// Deliver a value the peer pushed: a slice of the received PDU. For an indication the
        /// confirmation follows as a separate `.send`.
        case deliver(handle: UInt16, value: ArraySlice<UInt8>, isIndication: Bool)
        /// Log this; nothing else to do.
        case note(Note)
        /// End the notification stream: normally for nil, with the error otherwise.
        case finishNotifications(GATTError?)
        /// Close the bearer. Comes once, after every other consequence of closing.
        case closeBearer
    }

    /// Running totals of what the peer sent besides responses.
    public struct Counters: Hashable, Sendable {
        /// PDUs that could not be parsed.
        public var malformedPDUs = 0
        /// Requests from the peer answered with *Request Not Supported*.
        public var unsupportedRequestsAnswered = 0
        /// Commands from the peer, ignored.
        public var commandsIgnored = 0
        /// Other PDUs ignored (stray confirmations and the like).
        public var unexpectedPDUsIgnored = 0
        /// Notifications delivered.
        public var notifications = 0
        /// Indications delivered (and confirmed).
        public var indications = 0

        /// All zero.
        public init() {}
    }

    private struct Request {
        var id: RequestID
        var pdu: [UInt8]
        var opcode: ATTOpcode { ATTOpcode(rawValue: pdu[0]) }
        var handle: UInt16? { ATTClientStateMachine.handle(of: pdu) }
    }

    private var outstanding: Request?
    private var queue: [Request] = []
    private var closeReason: GATTError?

    /// What the peer has sent so far besides responses.
    public private(set) var counters = Counters()

    /// A state machine for a freshly connected bearer.
    public init() {}

    /// Requests waiting behind the outstanding one.
    public var queuedRequests: Int { queue.count }

    /// True while a request awaits its response.
    public var hasOutstandingRequest: Bool { outstanding != nil }

    /// Why the link was closed, once it has been; nil while it is open.
    public var closedBecause: GATTError? { closeReason }

    /// True once the link has been closed for any reason; no PDU is sent after that.
    public var isClosed: Bool { closeReason != nil }

    // MARK: Events from the local side

    /// A request to send: it goes out now when nothing is outstanding, else it queues. `pdu` must
    /// be a whole request PDU (its opcode one of `ATTOpcode.requests`).
    public mutating func enqueue(_ pdu: [UInt8], id: RequestID) -> [Action] {
        if let closeReason { return [.fail(id, Self.about(pdu, closeReason))] }
        guard let first = pdu.first, ATTOpcode(rawValue: first).isRequest else {
            let opcode = pdu.first.map { ATTOpcode(rawValue: $0).description } ?? "none"
            return [
                .fail(
                    id,
                    GATTError(
                        .invalidArgument, "only ATT requests can be sent as transactions (opcode \(opcode))"))
            ]
        }
        let request = Request(id: id, pdu: pdu)
        guard outstanding == nil else {
            queue.append(request)
            return []
        }
        outstanding = request
        return [.send(pdu), .startTimer(id)]
    }

    /// The caller gave up on a request. A queued request is dropped and never sent; an outstanding
    /// one stays outstanding (ATT cannot cancel it) and its response is still consumed, its
    /// completion action then refers to an ID nobody waits for.
    public mutating func cancel(_ id: RequestID) {
        queue.removeAll { $0.id == id }
    }

    /// A command (Write Command and the like) to send now; commands are not transactions and do
    /// not wait behind requests. Throws the close reason once the link is closed.
    public func command(_ pdu: [UInt8]) throws(GATTError) -> [Action] {
        if let closeReason { throw Self.about(pdu, closeReason) }
        guard let first = pdu.first, ATTOpcode(rawValue: first).isCommand else {
            throw GATTError(.invalidArgument, "only ATT commands can be sent without a transaction")
        }
        return [.send(pdu)]
    }

    /// The local side closes the link: pending requests fail with `.disconnected`, the
    /// notification stream finishes normally, the bearer is closed.
    public mutating func close() -> [Action] {
        shutDown(GATTError(.disconnected, "the GATT client was closed"), notificationError: nil)
    }

    // MARK: Events from the link

    /// The transaction timer of `id` expired. Ignored unless `id` is still outstanding.
    public mutating func transactionTimedOut(_ id: RequestID) -> [Action] {
        guard closeReason == nil, let outstanding, outstanding.id == id else { return [] }
        let error = GATTError.timeout(requestOpcode: outstanding.opcode, handle: outstanding.handle)
        return shutDown(error, notificationError: error)
    }

    /// The bearer ended: `error` is nil when the peer closed it, else the link failure. Pending
    /// requests fail with `.disconnected`; the notification stream ends with the same error.
    public mutating func bearerEnded(error: (any Error)?) -> [Action] {
        guard closeReason == nil else { return [] }
        let reason = GATTError(
            .disconnected,
            error == nil
                ? "the sensor closed the link: check that it is charged and in range, then reconnect"
                : "the link to the sensor failed: check that it is charged and in range, then reconnect",
            cause: error)
        return shutDown(reason, notificationError: reason)
    }

    /// A PDU arrived from the peer: its actions are appended to `actions`, a buffer the caller
    /// reuses, so a notification (read in place, its value a slice of `pdu`) allocates nothing.
    /// Never traps, whatever the bytes.
    public mutating func received(_ pdu: ArraySlice<UInt8>, into actions: inout [Action]) {
        guard closeReason == nil else { return }
        if pdu.first == ATTOpcode.handleValueNotification.rawValue,
            let notification = try? ATTHandleValueNotification.Slice(parsing: pdu)
        {
            counters.notifications += 1
            actions.append(.deliver(handle: notification.handle, value: notification.value, isIndication: false))
            return
        }
        actions += received(Array(pdu))
    }

    /// Any PDU but a well-formed notification.
    private mutating func received(_ pdu: [UInt8]) -> [Action] {
        guard closeReason == nil else { return [] }
        let parsed: ATTPDU
        do {
            parsed = try ATTPDU(parsing: pdu)
        } catch {
            return unparsable(pdu, error)
        }
        switch parsed {
        case .handleValueNotification(let notification):
            counters.notifications += 1
            return [.deliver(handle: notification.handle, value: notification.value[...], isIndication: false)]
        case .handleValueIndication(let indication):
            counters.indications += 1
            return [
                .deliver(handle: indication.handle, value: indication.value[...], isIndication: true),
                .send(ATTHandleValueConfirmation().bytes),
            ]
        case .errorResponse(let response):
            return responded(parsed, errorResponse: response)
        case let other where other.opcode.isResponse:
            return responded(other, errorResponse: nil)
        case let other where other.opcode.isRequest:
            return answerUnsupported(other.opcode, handle: Self.handle(of: pdu) ?? 0)
        case let other where other.opcode.isCommand:
            counters.commandsIgnored += 1
            return [.note(.ignoredCommand(other.opcode))]
        case let other:
            counters.unexpectedPDUsIgnored += 1
            return [.note(.ignoredUnexpected(other.opcode))]
        }
    }

    // MARK: Internals

    private mutating func unparsable(_ pdu: [UInt8], _ error: WireError) -> [Action] {
        guard let first = pdu.first else {
            counters.malformedPDUs += 1
            return [.note(.malformedPDU(pdu, error))]
        }
        let opcode = ATTOpcode(rawValue: first)
        if opcode.isCommand {
            counters.commandsIgnored += 1
            // An undefined command is not malformed, just unknown; both are ignored.
            guard error.code != .wrongOpcode else { return [.note(.ignoredCommand(opcode))] }
            counters.malformedPDUs += 1
            return [.note(.malformedPDU(pdu, error))]
        }
        if error.code == .wrongOpcode {
            // `ATTPDU` reports an opcode the specification does not define this way; it has no
            // command flag (checked above), so the peer waits for an answer.
            return answerUnsupported(opcode, handle: 0)
        }
        counters.malformedPDUs += 1
        var actions: [Action] = [.note(.malformedPDU(pdu, error))]
        if opcode.isRequest {
            actions += answerUnsupported(opcode, handle: Self.handle(of: pdu) ?? 0)
        } else if opcode == .handleValueIndication {
            actions.append(.send(ATTHandleValueConfirmation().bytes))
        } else if opcode.isResponse, let outstanding,
            opcode == .errorResponse || opcode.rawValue == outstanding.opcode.rawValue &+ 1
        {
            let failure = GATTError(
                .malformedResponse, "the sensor's response could not be parsed: \(error.message)",
                requestOpcode: outstanding.opcode, handle: outstanding.handle, cause: error)
            actions += complete(.fail(outstanding.id, failure))
        }
        return actions
    }

    private mutating func answerUnsupported(_ opcode: ATTOpcode, handle: UInt16) -> [Action] {
        counters.unsupportedRequestsAnswered += 1
        let answer = ATTErrorResponse(requestOpcode: opcode, handle: handle, error: .requestNotSupported)
        return [.note(.answeredUnsupportedRequest(opcode)), .send(answer.bytes)]
    }

    private mutating func responded(_ pdu: ATTPDU, errorResponse: ATTErrorResponse?) -> [Action] {
        guard let outstanding else {
            let error = GATTError(
                .protocolViolation,
                "the sensor sent \(pdu.opcode) with no request outstanding: reconnect; if it repeats, "
                    + "the sensor firmware is faulty")
            return shutDown(error, notificationError: error)
        }
        if let errorResponse, errorResponse.requestOpcode == outstanding.opcode {
            return complete(.fail(outstanding.id, GATTError.attError(errorResponse)))
        }
        if errorResponse == nil && pdu.opcode.rawValue == outstanding.opcode.rawValue &+ 1 {
            return complete(.succeed(outstanding.id, pdu))
        }
        let answered = errorResponse.map { "an Error Response for \($0.requestOpcode)" } ?? "\(pdu.opcode)"
        let error = GATTError(
            .protocolViolation,
            "the sensor answered \(outstanding.opcode) with \(answered): the link was closed; reconnect, and if it "
                + "repeats, the sensor firmware is faulty",
            requestOpcode: outstanding.opcode, handle: outstanding.handle)
        return shutDown(error, notificationError: error)
    }

    /// Completes the outstanding request with `completion` and sends the next queued one.
    private mutating func complete(_ completion: Action) -> [Action] {
        guard let finished = outstanding else { return [] }
        var actions: [Action] = [.stopTimer(finished.id), completion]
        outstanding = nil
        if !queue.isEmpty {
            let next = queue.removeFirst()
            outstanding = next
            actions += [.send(next.pdu), .startTimer(next.id)]
        }
        return actions
    }

    private mutating func shutDown(_ reason: GATTError, notificationError: GATTError?) -> [Action] {
        guard closeReason == nil else { return [] }
        closeReason = reason
        var actions: [Action] = []
        if let outstanding {
            actions.append(.stopTimer(outstanding.id))
            actions.append(.fail(outstanding.id, Self.about(outstanding.pdu, reason)))
        }
        for request in queue { actions.append(.fail(request.id, Self.about(request.pdu, reason))) }
        outstanding = nil
        queue = []
        actions.append(.finishNotifications(notificationError))
        actions.append(.closeBearer)
        return actions
    }

    /// `reason`, naming the request `pdu` unless it already names one.
    private static func about(_ pdu: [UInt8], _ reason: GATTError) -> GATTError {
        var error = reason
        if error.requestOpcode == nil, let first = pdu.first {
            error.requestOpcode = ATTOpcode(rawValue: first)
            error.handle = handle(of: pdu)
        }
        return error
    }

    /// The attribute handle a request or command names: its handle, or the start of its range.
    static func handle(of pdu: [UInt8]) -> UInt16? {
        guard pdu.count >= 3 else { return nil }
        switch ATTOpcode(rawValue: pdu[0]) {
        case .readRequest, .readBlobRequest, .writeRequest, .writeCommand, .prepareWriteRequest,
            .findInformationRequest, .findByTypeValueRequest, .readByTypeRequest, .readByGroupTypeRequest,
            .signedWriteCommand:
            return UInt16(pdu[1]) | UInt16(pdu[2]) << 8
        default:
            return nil
        }
    }
}
