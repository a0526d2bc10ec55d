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
}
