// SPDX-License-Identifier: GPL-2.0-or-later

/// A connection that carries whole ATT PDUs, one per message, in both directions.
///
/// An L2CAP LE socket on the ATT fixed channel (CID 4) is the real bearer; an `AF_UNIX`
/// `SOCK_SEQPACKET` socket pair has the same message semantics and carries the tests and the
/// virtual sensor. The GATT client and the virtual sensor's GATT server speak only to this
/// protocol, so the same protocol logic runs over the radio and in memory.
///
/// Received PDUs leave a bearer one way: the handler given to ``deliver(to:)``, called on the
/// thread that read them. Where a task wants to await PDUs instead (the virtual sensor's server,
/// tests), ``receivedPDUs()`` puts that handler in front of an `AsyncThrowingStream`.
public protocol ATTBearer: Sendable {
    /// Sends one PDU. Throws when the link is gone.
    func send(_ pdu: [UInt8]) async throws
    /// Closes the link; the handler is then told the end (``ATTBearerInput/ended(_:)`` with nil).
    func close() async
    /// Hands every received PDU, in order, and then the end of the flow to `handler`, on the
    /// thread that reads the link, one call at a time; PDUs that arrived before the call are
    /// handed over first. Call it once: a bearer has one reader.
    func deliver(to handler: @escaping @Sendable (ATTBearerInput) -> Void)
}

/// What a bearer hands its handler (``ATTBearer/deliver(to:)``).
public enum ATTBearerInput: Sendable {
    /// One received PDU: a slice of the bearer's receive buffer, not a copy, so its indices are
    /// the buffer's (start at `startIndex`). Keeping it beyond the call is safe but makes the
    /// bearer copy its buffer; copy what is kept.
    case pdu(ArraySlice<UInt8>)
    /// The flow ended: nil when the peer or this side closed the link, the link's error
    /// otherwise. The last call.
    case ended((any Error)?)
}

extension ATTBearer {
    /// Installs the handler (``deliver(to:)``) and returns what it is handed as a stream a task
    /// can await: each PDU copied, then the end (finished, or thrown with the link's error).
    /// Unbounded, as the bearer's reader never waits; for the edges that await PDUs, not for the
    /// notification path.
    public func receivedPDUs() -> AsyncThrowingStream<[UInt8], any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self)
        deliver { input in
            switch input {
            case .pdu(let pdu): continuation.yield(Array(pdu))
            case .ended(let error): continuation.finish(throwing: error)
            }
        }
        return stream
    }
}
