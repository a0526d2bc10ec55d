// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GatewayConfig
import HTTPTypes
import Hummingbird

/// Which address a request comes from, for the failed-login throttle: the TCP peer, unless the
/// peer is one of `[web] trusted_proxies`; then the rightmost `X-Forwarded-For` hop that is not a
/// trusted proxy. Each proxy appends the address it got the request from, so the hops right of the
/// first untrusted one were written by trusted proxies and everything left of it by the client,
/// which is never believed. From any other peer the header is ignored. Pure.
struct ClientAddressResolver: Sendable {
    /// The header a proxy appends the client's address to.
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    /// Hops read at most, from the right (a chain of proxies is short).
    static let maximumHops = 16

    let trustedProxies: [IPAddressRange]

    func isTrusted(_ address: [UInt8]) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }

    /// The client's address in canonical form, for a request from `peer` carrying the
    /// `X-Forwarded-For` values `forwardedFor` (in order).
    func client(peer: String, forwardedFor: [String]) -> String {
        guard let peerBytes = IPAddressRange.address(peer) else { return peer }
        var client = IPAddressRange.text(peerBytes)
        guard isTrusted(peerBytes) else { return client }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in hops.reversed().prefix(Self.maximumHops) {
            // What is not an address ("unknown", a port, garbage) ends the walk at the last trusted
            // hop: counting it would let the text choose the throttle's key.
            guard let bytes = IPAddressRange.address(hop) else { return client }
            client = IPAddressRange.text(bytes)
            if !isTrusted(bytes) { return client }
        }
        return client
    }
}

/// Sets each request's ``WebRequestContext/clientAddress`` with the resolver.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = WebRequestContext

    let resolver: ClientAddressResolver

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard !resolver.trustedProxies.isEmpty else { return try await next(request, context) }
        var context = context
        context.clientAddress = resolver.client(
            peer: context.peerAddress, forwardedFor: request.headers[values: ClientAddressResolver.forwardedFor])
        return try await next(request, context)
    }
}
