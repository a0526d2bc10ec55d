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
    /// The peer's IP address (the reverse proxy's, behind one).
    public let clientAddress: String

    /// A context for a request arriving on `source`'s channel.
    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// Form posts are small (a login), JSON bodies go through the API's own limit.
    public var maxUploadSize: Int { 64 * 1024 }
}
