// SPDX-License-Identifier: GPL-2.0-or-later
import NIOConcurrencyHelpers
import SystemPackage

/// Who may still send on a socket and who performs its one `close(2)`, for a socket whose sends
/// run outside its lock (``ReactorSocket``, ``PolledSocket``).
///
/// A send is admitted and counted under the lock, then calls `send(2)` unlocked; the reader (the
/// reactor or the socket's thread) claims the close when it stops. A close claimed while sends are
/// in flight is deferred to the last of them, so the descriptor is never closed, and its number
/// reused, under a send that still holds it. Every method runs under the owner's lock and says
/// what the caller must do after unlocking.
struct SocketCloseState: Sendable {
    /// Until the close is claimed (by the reader, or by the last send in flight).
    private(set) var isOpen = true
    /// ``requestClose()`` was called: nothing more is sent or delivered.
    private(set) var isClosing = false
    /// Sends past their check and not yet back from `send(2)`.
    private(set) var sendsInFlight = 0
    /// The reader claimed the close while sends were in flight: the last one closes.
    private(set) var closeDeferred = false

    /// Whether received data is still delivered and endings still reported.
    var isDelivering: Bool { isOpen && !isClosing }

    /// Admits one send. Returns false once the socket is closing or closed: the caller sends nothing.
    mutating func admitSend() -> Bool {
        guard isOpen && !isClosing && !closeDeferred else { return false }
        sendsInFlight += 1
        return true
    }

    /// An admitted send returned. Returns true when the caller must now close the descriptor.
    mutating func sendReturned() -> Bool {
        precondition(sendsInFlight > 0, "a send returned that was never admitted")
        sendsInFlight -= 1
        guard sendsInFlight == 0 && closeDeferred else { return false }
        closeDeferred = false
        isOpen = false
        return true
    }

    /// A close was asked for. Returns true for the first request, whose caller wakes the reader.
    mutating func requestClose() -> Bool {
        guard isOpen && !isClosing else { return false }
        isClosing = true
        return true
    }

    /// The reader stopped and claims the close. Returns true when the caller must close now;
    /// with sends in flight the last of them closes instead.
    mutating func claimClose() -> Bool {
        guard isOpen && !closeDeferred else { return false }
        guard sendsInFlight == 0 else {
            closeDeferred = true
            return false
        }
        isOpen = false
        return true
    }
}

extension NIOLockedValueBox where Value == SocketCloseState {
    /// One send as both sockets make it: admitted and counted under the lock, `send` called after
    /// unlocking, then `close` (the descriptor's one `close(2)`) when this was the last send of a
    /// deferred close.
    ///
    /// - Returns: what `send` returned; nil when the socket is closing or closed and nothing was sent.
    func sendAdmitted(
        _ send: () -> Result<Int, Errno>, thenClose close: () -> Void
    ) -> Result<Int, Errno>? {
        guard withLockedValue({ $0.admitSend() }) else { return nil }
        let result = send()
        if withLockedValue({ $0.sendReturned() }) { close() }
        return result
    }
}
