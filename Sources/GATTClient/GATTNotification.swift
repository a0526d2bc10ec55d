// SPDX-License-Identifier: GPL-2.0-or-later

/// A characteristic value the peer pushed: a notification or an indication (already confirmed by
/// the client), stamped with the instant the PDU was read from the bearer.
///
/// The value is a slice of the received PDU, not a copy, so handing one over allocates nothing.
/// Keeping it beyond the sink's call is safe but makes the bearer copy its receive buffer:
/// keep ``owned`` instead.
public struct GATTNotification<Instant: InstantProtocol>: Hashable, Sendable {
    /// The characteristic value handle the value belongs to.
    public var handle: UInt16
    /// The value bytes, exactly as received: a slice of the PDU (its indices are the PDU's).
    public var value: ArraySlice<UInt8>
    /// True for an indication (confirmed), false for a notification.
    public var isIndication: Bool
    /// When the PDU was read from the bearer, on the client's clock. Sensor clock recovery
    /// relates these arrival instants to the sample counter.
    public var receivedAt: Instant

    /// A value pushed for `handle`, received at `receivedAt`.
    public init(handle: UInt16, value: ArraySlice<UInt8>, isIndication: Bool, receivedAt: Instant) {
        self.handle = handle
        self.value = value
        self.isIndication = isIndication
        self.receivedAt = receivedAt
    }

    /// The same notification with its value copied out of the PDU, to keep.
    public var owned: GATTNotification {
        GATTNotification(handle: handle, value: Array(value)[...], isIndication: isIndication, receivedAt: receivedAt)
    }
}

/// Where a `GATTClient` hands what the peer pushes: the one way notifications leave the client.
///
/// The client calls the sink on the thread that read the PDU (the bearer's reactor thread, or
/// a loopback bearer's sender), after it released its lock, in arrival order and never twice at
/// once. A sink must not block.
public protocol GATTNotificationSink<Instant>: AnyObject, Sendable {
    /// The clock instant notifications are stamped with.
    associatedtype Instant: InstantProtocol

    /// One notification or indication. Its value is a slice of the PDU: copy what is kept
    /// (``GATTNotification/owned``).
    func notified(_ notification: GATTNotification<Instant>)

    /// The link ended: nil when this side closed it (`close()`), the reason otherwise
    /// (`.disconnected`, `.timeout`, `.protocolViolation`). The last call.
    func linkEnded(_ error: GATTError?)
}
