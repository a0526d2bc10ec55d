// SPDX-License-Identifier: GPL-2.0-or-later
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTPTypes

/// The open connections of one listener, capped: when one more arrives past `maximum`, the
/// connection idle longest (connected but no request yet, or between requests) is closed to make
/// room; when every one has a request in progress (an event stream, a download) the new one is
/// closed at once. So idle clients, however many, cannot lock the API out: a client that sends
/// its request after connecting gets answered, and the daemon never holds more than `maximum`
/// descriptors per listener for long (the kernel's accept backlog never fills either, since
/// accepting goes on). Every HTTP listener of the daemon (the control socket, TCP, the web
/// dashboard) gets its own through ``channelConfiguration(maximum:idleTimeout:listener:logger:)``.
public final class ConnectionLimit: Sendable {
    /// What one open connection is doing.
    struct Entry {
        var channel: any Channel
        /// When it last became idle, in the table's own order (smaller is longer ago); nil while a
        /// request is in progress (a request's head arrived and its response has not ended).
        var idleSince: UInt64?
    }

    /// The open connections, and the idle ones by when they became idle. Finding the one idle
    /// longest takes amortised constant time: `oldest` only moves forward, over each tick of the
    /// clock once, so a burst of thousands of connections past the cap costs each new one the same
    /// small work (a scan of every connection per arrival held the event loop for milliseconds).
    struct Table {
        var entries: [ObjectIdentifier: Entry] = [:]
        var idle: [UInt64: ObjectIdentifier] = [:]
        /// No idle connection became idle before this tick.
        var oldest: UInt64 = 1
        var clock: UInt64 = 0
        var overflowing = false
        /// Connections closed to make room, for the log and tests.
        var evicted = 0

        /// `id` becomes idle now.
        mutating func markIdle(_ id: ObjectIdentifier) {
            guard entries[id] != nil else { return }
            markBusy(id)
            clock += 1
            entries[id]?.idleSince = clock
            idle[clock] = id
        }

        /// `id` is serving a request (or is gone): no longer a candidate to close.
        mutating func markBusy(_ id: ObjectIdentifier) {
            guard let since = entries[id]?.idleSince else { return }
            entries[id]?.idleSince = nil
            idle[since] = nil
            while oldest <= clock, idle[oldest] == nil { oldest += 1 }
        }

        /// The connection idle longest, if any is.
        var idleLongest: ObjectIdentifier? { idle[oldest] }

        mutating func remove(_ id: ObjectIdentifier) -> Entry? {
            markBusy(id)
            return entries.removeValue(forKey: id)
        }
    }

    /// How long a connection of any listener may send nothing (between requests, or within a
    /// request's head) before it is closed, unless configured otherwise.
    public static let defaultIdleTimeout: Duration = .seconds(30)

    /// How many connections the kernel queues for a listener before they are accepted. A request
    /// arriving right after a burst waits until every connection queued before it was accepted,
    /// set up and (past the cap) closed: with Hummingbird's 256, `soak-api`'s first request after
    /// 2 000 connections took 110–190 ms in a debug build (Docs/PERFORMANCE.md). A control API has
    /// a handful of clients; a flood past this waits in `connect` instead.
    public static let listenBacklog = 32

    /// Open connections allowed.
    let maximum: Int
    private let listener: String
    private let logger: Logger
    private let table = NIOLockedValueBox(Table())

    init(maximum: Int, listener: String, logger: Logger) {
        self.maximum = max(1, maximum)
        self.listener = listener
        self.logger = logger
    }

    /// The HTTP/1.1 channel of one listener with its limits: at most `maximum` open connections
    /// (a new ``ConnectionLimit``), and a connection that sends nothing for `idleTimeout` (between
    /// requests, or in the middle of a request's head) is closed, so idle or half-open clients
    /// cannot pile up until descriptors run out. A response in progress (an event stream) is
    /// never cut.
    public static func channelConfiguration(
        maximum: Int, idleTimeout: Duration, listener: String, logger: Logger
    ) -> HTTP1Channel.Configuration {
        ConnectionLimit(maximum: maximum, listener: listener, logger: logger).channelConfiguration(
            idleTimeout: idleTimeout)
    }

    /// The HTTP/1.1 channel configuration that reports to this limit.
    func channelConfiguration(idleTimeout: Duration) -> HTTP1Channel.Configuration {
        let (seconds, attoseconds) = idleTimeout.components
        return HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionLimitHandler(limit: self)],
            idleTimeout: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }

    /// Connections open now.
    var count: Int { table.withLockedValue { $0.entries.count } }
    /// Connections closed so far to stay within the cap.
    var evicted: Int { table.withLockedValue { $0.evicted } }

    /// Takes in a new connection; returns the connection to close (the idle-longest one, or this
    /// one when all are busy), nil within the cap.
    func opened(_ channel: any Channel) -> (any Channel)? {
        let (victim, firstOverflow) = table.withLockedValue { table -> ((any Channel)?, Bool) in
            let id = ObjectIdentifier(channel)
            table.entries[id] = Entry(channel: channel, idleSince: nil)
            table.markIdle(id)
            guard table.entries.count > maximum else {
                table.overflowing = false
                return (nil, false)
            }
            // Only the new connection is idle when every other one is serving a request.
            let victim = table.idleLongest ?? id
            let closing = table.remove(victim)?.channel
            table.evicted += 1
            defer { table.overflowing = true }
            return (closing, !table.overflowing)
        }
        if firstOverflow {
            logger.warning(
                "connection cap reached: closing the connection idle longest for each new one",
                metadata: ["api.listener": "\(listener)", "api.max_connections": "\(maximum)"])
        }
        return victim
    }

    /// A request's head arrived on `channel`.
    func requestBegan(_ channel: any Channel) {
        table.withLockedValue { $0.markBusy(ObjectIdentifier(channel)) }
    }

    /// `channel` wrote the end of a response.
    func responseEnded(_ channel: any Channel) {
        table.withLockedValue { $0.markIdle(ObjectIdentifier(channel)) }
    }

    /// `channel` closed.
    func closed(_ channel: any Channel) {
        _ = table.withLockedValue { $0.remove(ObjectIdentifier(channel)) }
    }
}

/// Reports one connection's requests and responses to its listener's `ConnectionLimit`; sits
/// after the HTTP codec, passing every part through unchanged.
final class ConnectionLimitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limit: ConnectionLimit

    init(limit: ConnectionLimit) {
        self.limit = limit
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        let limit = self.limit
        channel.closeFuture.whenComplete { _ in limit.closed(channel) }
        limit.opened(channel)?.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { limit.requestBegan(context.channel) }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { limit.responseEnded(context.channel) }
        context.write(data, promise: promise)
    }
}
