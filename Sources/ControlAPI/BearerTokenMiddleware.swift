// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import GatewayCore
import Hummingbird

/// Requires `Authorization: Bearer <token>` on every request but `GET /metrics` (TCP only: on
/// the Unix socket the file's mode and group decide who may talk). A missing or wrong token
/// gets 401 with a `ControlErrorBody` naming the fix and `WWW-Authenticate: Bearer`.
struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The configured token's bytes.
    let token: [UInt8]

    /// Creates the middleware for `token`.
    init(token: String) {
        self.token = Array(token.utf8)
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if request.method == .get && request.uri.path == ControlRoute.metrics.template {
            return try await next(request, context)
        }
        guard let header = request.headers[.authorization] else {
            return Self.unauthorized("the request has no bearer token")
        }
        let prefix = "bearer "
        guard header.count > prefix.count, header.prefix(prefix.count).lowercased() == prefix else {
            return Self.unauthorized("the Authorization header is not 'Bearer <token>'")
        }
        let presented = Array(header.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces).utf8)
        guard Self.constantTimeEqual(presented, token) else {
            return Self.unauthorized("the bearer token is wrong")
        }
        return try await next(request, context)
    }

    /// True when `lhs` and `rhs` are equal, in a time that depends only on their lengths: every
    /// byte of the longer one is looked at whether or not an earlier byte differed.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: lhs.count ^ rhs.count) | (lhs.count == rhs.count ? 0 : 1)
        let length = max(lhs.count, rhs.count)
        for index in 0..<length {
            let left = index < lhs.count ? lhs[index] : 0
            let right = index < rhs.count ? rhs[index] : 0
            difference |= left ^ right
        }
        return difference == 0
    }

    /// 401 with a body that tells how to authenticate.
    static func unauthorized(_ problem: String) -> Response {
        var response = ControlResponses.error(
            status: .unauthorized,
            body: ControlErrorBody(
                code: ControlError.Code.unauthorized.name, error: problem,
                fix: "send 'Authorization: Bearer <token>' with the token from the daemon's configuration "
                    + "(api.token), or use the Unix socket"))
        response.headers[.wwwAuthenticate] = "Bearer"
        return response
    }
}
