// SPDX-License-Identifier: GPL-2.0-or-later

/// A connection that carries whole ATT PDUs, one per message, in both directions.
///
/// An L2CAP LE socket on the ATT fixed channel (CID 4) is the real bearer; an `AF_UNIX`
/// `SOCK_SEQPACKET` socket pair has the same message semantics and carries the tests and the
/// virtual sensor. The GATT client and the virtual sensor's GATT server speak only to this
/// protocol, so the same protocol logic runs over the radio and in memory.
public protocol ATTBearer: Sendable {
    /// Sends one PDU. Throws when the link is gone.
    func send(_ pdu: [UInt8]) async throws
    /// Waits for the next PDU. Returns nil once the peer has closed the link or `close()` was
    /// called; throws for a link failure.
    func receive() async throws -> [UInt8]?
    /// Closes the link; a pending `receive()` returns nil.
    func close() async
    /// Hands every PDU not yet received, in order, and then the end of the flow to `handler`, on
    /// the thread that reads the link, instead of to `receive()`; once installed, `receive()`
    /// must not be called. A bearer that reads on a thread of its own avoids a task switch per
    /// PDU this way.
    ///
    /// - Returns: false when the bearer cannot (the default): use `receive()`.
    func deliverSynchronously(to handler: @escaping @Sendable (ATTBearerInput) -> Void) -> Bool
}

/// What a bearer hands a synchronous handler (``ATTBearer/deliverSynchronously(to:)``).
public enum ATTBearerInput: Sendable {
    /// One received PDU: a slice of the bearer's receive buffer, not a copy, so its indices are
    /// the buffer's (start at `startIndex`). Keeping it beyond the call is safe but makes the
    /// bearer copy its buffer; copy what is kept.
    case pdu(ArraySlice<UInt8>)
    /// The flow ended: nil when the peer or this side closed the link (where `receive()` returns
    /// nil), the link's error otherwise. The last call.
    case ended((any Error)?)
}

extension ATTBearer {
    /// Bearers without a reading thread of their own deliver through `receive()` only.
    public func deliverSynchronously(to handler: @escaping @Sendable (ATTBearerInput) -> Void) -> Bool {
        false
    }
}
