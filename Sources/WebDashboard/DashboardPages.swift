// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import Hummingbird

/// The board, the login and logout, and the static assets.
struct DashboardPages: Sendable {
    let authentication: WebAuthentication
    let templates: DashboardTemplates

    func addRoutes(to router: Router<WebRequestContext>) {
        router.get(RouterPath(DashboardPaths.board)) { _, context -> Response in
            var values = layoutValues(context, title: "Live board", section: "board")
            values["trustFlags"] = Self.trustFlags
            return templates.page("board", values)
        }
        router.get(RouterPath(DashboardPaths.login)) { request, _ -> Response in
            if authentication.identity(of: request) != nil {
                return Response(status: .seeOther, headers: [.location: DashboardPaths.board])
            }
            return templates.page("login", ["title": "Log in"])
        }
        router.post(RouterPath(DashboardPaths.login)) { request, context -> Response in
            try await login(request, context: context)
        }
        router.post(RouterPath(DashboardPaths.logout)) { request, _ -> Response in
            if let id = WebAuthentication.cookie(WebAuthentication.cookieName, in: request) {
                authentication.logout(sessionID: id)
            }
            var headers: HTTPFields = [.location: DashboardPaths.login]
            headers[.setCookie] = authentication.clearedCookie
            return Response(status: .seeOther, headers: headers)
        }
        router.get(RouterPath(DashboardPaths.assets + "{file}")) { _, context -> Response in
            let name = try context.parameters.require("file")
            guard let asset = DashboardTemplates.assets[name] else { throw HTTPError(.notFound) }
            return Response(
                status: .ok,
                headers: [.contentType: asset.type, .cacheControl: "no-cache", .xContentTypeOptions: "nosniff"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
        }
    }

    /// The quality flags the board shows on a live event, per event type, as JSON for the page:
    /// `{"hit":["rate_too_low","sample_gap"],…}` (`QualityFlag.shownToCoach(for:)`).
    static let trustFlags: String = {
        let members = EventKind.allCases.map { kind in
            "\"\(kind.rawValue)\":["
                + QualityFlag.shownToCoach(for: kind).flags.map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]"
        }
        return "{" + members.joined(separator: ",") + "}"
    }()

    struct LoginForm: Decodable {
        var username: String
        var password: String
    }

    func login(_ request: Request, context: WebRequestContext) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: context.maxUploadSize)
        let form = try? URLEncodedFormDecoder().decode(LoginForm.self, from: String(buffer: body))
        guard WebAuthMiddleware.sameOrigin(request) else {
            return templates.page(
                "login", ["title": "Log in", "error": "The login did not come from this dashboard's page: reload it."],
                status: .forbidden)
        }
        guard let form, !form.username.isEmpty else {
            return templates.page(
                "login", ["title": "Log in", "error": "Give your user name and password."], status: .badRequest)
        }
        switch await authentication.login(name: form.username, password: form.password, client: context.clientAddress)
        {
        case .success(let sessionID):
            var headers: HTTPFields = [.location: DashboardPaths.board]
            headers[.setCookie] = authentication.sessionCookie(sessionID)
            return Response(status: .seeOther, headers: headers)
        case .refused:
            let noUsers = authentication.users.users.users.isEmpty
            return templates.page(
                "login",
                [
                    "title": "Log in", "username": form.username,
                    "error": noUsers
                        ? "The dashboard has no users yet: add one with `sportsensorctl users add NAME --role coach`."
                        : "Wrong user name or password.",
                ], status: .unauthorized)
        case .throttled(let seconds):
            var response = templates.page(
                "login",
                [
                    "title": "Log in", "username": form.username,
                    "error": "Too many failed logins from this address: try again in \(seconds) s.",
                ], status: .tooManyRequests)
            response.headers[.retryAfter] = "\(seconds)"
            return response
        }
    }

    /// What every page's layout shows: who is logged in, may they change things, the CSRF token.
    func layoutValues(_ context: WebRequestContext, title: String, section: String) -> [String: Any] {
        DashboardPages.layoutValues(context, title: title, section: section)
    }

    static func layoutValues(_ context: WebRequestContext, title: String, section: String) -> [String: Any] {
        let identity = context.identity
        return [
            "title": title, "user": identity?.name ?? "", "role": identity?.role.rawValue ?? "viewer",
            "isCoach": identity?.role.mayChangeState == true, "csrf": identity?.csrfToken ?? "",
            "profiles": DetectionProfile.allCases.map(\.rawValue),
            "nav_\(section)": true,
        ]
    }
}
