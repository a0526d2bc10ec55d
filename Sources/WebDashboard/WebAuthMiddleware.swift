// SPDX-License-Identifier: GPL-2.0-or-later
import ControlAPI
import ControlProtocol
import HTTPTypes
import Hummingbird

/// Who may do what on the dashboard's listener.
///
/// - The login page, its form post and the static assets are open; everything else needs a
///   session cookie or the API's bearer token. Without one, a page redirects to `/login` and an
///   API call gets 401.
/// - A state change (any method but GET and HEAD) from a browser session must carry the session's
///   CSRF token (`X-CSRF-Token`, or a `csrf` form field for the logout form) and, when the browser
///   sends `Origin`, come from this site; with `SameSite=Strict` cookies that is two locks.
/// - A viewer changes nothing: every state change but logout answers 403.
struct WebAuthMiddleware: RouterMiddleware {
    typealias Context = WebRequestContext

    let authentication: WebAuthentication

    /// Paths anyone may fetch.
    static func isOpen(_ request: Request) -> Bool {
        let path = request.uri.path
        return path == DashboardPaths.login || path.hasPrefix(DashboardPaths.assets)
    }

    /// True for paths answered as JSON (the API and the metrics).
    static func isAPI(_ path: String) -> Bool {
        path.hasPrefix("/v1/") || path == ControlRoute.metrics.template
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if Self.isOpen(request) { return try await next(request, context) }
        guard let identity = authentication.identity(of: request) else {
            if Self.isAPI(request.uri.path) {
                var response = ControlResponses.error(
                    status: .unauthorized,
                    body: ControlErrorBody(
                        code: ControlError.Code.unauthorized.name, error: "not logged in",
                        fix: "log in at /login, or send 'Authorization: Bearer <api.token>'"))
                response.headers[.wwwAuthenticate] = "Bearer"
                return response
            }
            return Response(status: .seeOther, headers: [.location: DashboardPaths.login])
        }
        var context = context
        context.identity = identity
        guard request.method != .get, request.method != .head else { return try await next(request, context) }

        if let expected = identity.csrfToken {
            let presented =
                request.headers[WebAuthentication.csrfHeader] ?? request.uri.queryParameters["csrf"].map(String.init)
            guard let presented, WebAuthentication.constantTimeEqual(Array(presented.utf8), Array(expected.utf8)),
                Self.sameOrigin(request)
            else {
                return forbidden(
                    request, "the request did not come from this dashboard's page (CSRF check)",
                    fix: "reload the page and try again")
            }
        }
        if request.uri.path != DashboardPaths.logout, !identity.role.mayChangeState {
            return forbidden(
                request, "the \(identity.role.rawValue) account '\(identity.name)' may not change anything",
                fix: "log in as a coach to start or stop sessions and pair sensors")
        }
        return try await next(request, context)
    }

    /// True unless the browser says the request came from another origin.
    static func sameOrigin(_ request: Request) -> Bool {
        guard let origin = request.headers[.origin] else { return true }
        guard let host = request.head.authority else { return false }
        return origin == "http://\(host)" || origin == "https://\(host)"
    }

    func forbidden(_ request: Request, _ problem: String, fix: String) -> Response {
        if Self.isAPI(request.uri.path) {
            return ControlResponses.error(
                status: .forbidden,
                body: ControlErrorBody(code: ControlError.Code.forbidden.name, error: problem, fix: fix))
        }
        return Response(
            status: .forbidden, headers: [.contentType: "text/plain; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: "403 Forbidden: \(problem): \(fix)\n")))
    }
}

/// The dashboard's own paths (the API keeps `ControlRoute`'s).
enum DashboardPaths {
    static let board = "/"
    static let login = "/login"
    static let logout = "/logout"
    static let assets = "/assets/"
    static let sessions = "/sessions"
    static let leaderboard = "/leaderboard"
    static let athletes = "/athletes"
}
