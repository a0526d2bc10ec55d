// SPDX-License-Identifier: GPL-2.0-or-later

/// A characteristic value the peer pushed: a notification or an indication (already confirmed by
/// the client), stamped with the instant the PDU was read from the bearer.
public struct GATTNotification<Instant: InstantProtocol>: Hashable, Sendable {
    /// The characteristic value handle the value belongs to.
    public var handle: UInt16
    /// The value bytes, exactly as received.
    public var value: [UInt8]
    /// True for an indication (confirmed), false for a notification.
    public var isIndication: Bool
    /// When the PDU was read from the bearer, on the client's clock. Sensor clock recovery
    /// relates these arrival instants to the sample counter.
    public var receivedAt: Instant

    /// A value pushed for `handle`, received at `receivedAt`.
    public init(handle: UInt16, value: [UInt8], isIndication: Bool, receivedAt: Instant) {
        self.handle = handle
        self.value = value
        self.isIndication = isIndication
        self.receivedAt = receivedAt
    }
}

/// A pushed value as a synchronous handler gets it (``GATTClient/handleNotifications(with:)``):
/// the value is a slice of the received PDU, not a copy, so handing one over allocates nothing.
/// Keeping the slice beyond the call is safe but makes the bearer copy its receive buffer; keep
/// ``owned`` instead.
public struct GATTNotificationSlice<Instant: InstantProtocol>: Sendable {
    /// The characteristic value handle the value belongs to.
    public var handle: UInt16
    /// The value bytes, exactly as received: a slice of the PDU.
    public var value: ArraySlice<UInt8>
    /// True for an indication (confirmed), false for a notification.
    public var isIndication: Bool
    /// When the PDU was read from the bearer, on the client's clock.
    public var receivedAt: Instant

    /// A value pushed for `handle`, received at `receivedAt`.
    public init(handle: UInt16, value: ArraySlice<UInt8>, isIndication: Bool, receivedAt: Instant) {
        self.handle = handle
        self.value = value
        self.isIndication = isIndication
        self.receivedAt = receivedAt
    }

    /// The same value, viewing `notification`'s bytes.
    public init(_ notification: GATTNotification<Instant>) {
        self.init(
            handle: notification.handle, value: notification.value[...], isIndication: notification.isIndication,
            receivedAt: notification.receivedAt)
    }

    /// The notification with its value copied out, to keep.
    public var owned: GATTNotification<Instant> {
        GATTNotification(handle: handle, value: Array(value), isIndication: isIndication, receivedAt: receivedAt)
    }
}
