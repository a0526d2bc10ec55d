// SPDX-License-Identifier: GPL-2.0-or-later

/// A snapshot of what a `GATTClient` has seen and done, for logs, metrics and tests.
public struct GATTClientStatistics: Hashable, Sendable {
    /// PDUs from the peer that could not be parsed (dropped, never fatal).
    public var malformedPDUs = 0
    /// Requests from the peer answered with *Request Not Supported*.
    public var unsupportedRequestsAnswered = 0
    /// Commands from the peer, ignored.
    public var commandsIgnored = 0
    /// Other PDUs from the peer that have no place on the client side, ignored.
    public var unexpectedPDUsIgnored = 0
    /// Notifications received.
    public var notificationsReceived = 0
    /// Indications received (each confirmed).
    public var indicationsReceived = 0
    /// Requests waiting behind the outstanding one.
    public var queuedRequests = 0
    /// True while a request awaits its response.
    public var hasOutstandingRequest = false
    /// The ATT MTU in effect (23 until `exchangeMTU` succeeds).
    public var mtu: UInt16 = 23

    /// All zero, MTU 23.
    public init() {}
}
