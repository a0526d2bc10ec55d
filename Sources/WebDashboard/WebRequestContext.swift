// SPDX-License-Identifier: GPL-2.0-or-later
import Hummingbird
import NIOCore

/// A request on the dashboard's listener: Hummingbird's core context, who is asking (set by
/// ``WebAuthMiddleware``) and the client's address (for the login throttle).
public struct WebRequestContext: RequestContext {
    /// Hummingbird's storage.
    public var coreContext: CoreRequestContextStorage
    /// The logged-in account or the bearer token's script; nil before authentication.
    public var identity: WebIdentity?
    /// The TCP peer's IP address (the reverse proxy's, behind one).
    public let peerAddress: String
    /// The client's address, what the login throttle counts by: the peer's, or the one a trusted
    /// proxy's `X-Forwarded-For` names (set by ``ClientAddressMiddleware``).
    public var clientAddress: String

    /// A context for a request arriving on `source`'s channel.
    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
        clientAddress = peerAddress
    }

    /// Form posts are small (a login), JSON bodies go through the API's own limit.
    public var maxUploadSize: Int { 64 * 1024 }
}
