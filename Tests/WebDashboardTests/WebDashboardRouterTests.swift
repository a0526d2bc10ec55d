// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import DashboardUsers
import Foundation
import GatewayTesting
import Hummingbird
import HummingbirdTesting
import Testing

@testable import WebDashboard

/// The dashboard's listener in process: logins, roles, CSRF, pages and assets, over the fake gateway.
@Suite("Web dashboard routes")
struct WebDashboardRouterTests {
    static let token = "script-token-0123456789abcdef"

    /// A users file with a coach and a viewer (cheap bcrypt cost: the check is the same).
    static func usersFile() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("web-\(UUID().uuidString)").path
        let file = DashboardUsersFile(stateDirectory: directory)
        try file.save(
            DashboardUserList(users: [
                DashboardUser(name: "coach", role: .coach, passwordHash: DashboardPassword.hash("coach-pass", cost: 4)),
                DashboardUser(name: "tv", role: .viewer, passwordHash: DashboardPassword.hash("viewer-pass", cost: 4)),
            ]))
        return file.path
    }

    static func app(_ services: GatewayServices, usersFile: String) throws -> some ApplicationProtocol {
        let server = WebServer(
            services: services,
            configuration: WebServerConfiguration(host: "127.0.0.1", port: 0, usersFile: usersFile, bearerToken: token))
        return Application(router: try server.router())
    }

    /// Logs in; returns the cookie header value and the page's CSRF token.
    static func login(
        _ client: some TestClientProtocol, _ name: String, _ password: String
    ) async throws -> (
        cookie: String, csrf: String
    ) {
        let response = try await client.execute(
            uri: "/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
            body: ByteBuffer(string: "username=\(name)&password=\(password)"))
        #expect(response.status == .seeOther)
        let setCookie = try #require(response.headers[.setCookie])
        #expect(setCookie.contains("HttpOnly"))
        #expect(setCookie.contains("SameSite=Strict"))
        let cookie = String(setCookie.split(separator: ";")[0])
        let board = try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie])
        #expect(board.status == .ok)
        let html = String(buffer: board.body)
        let match = try #require(html.firstMatch(of: /name="csrf-token" content="([0-9a-f]+)"/))
        return (cookie, String(match.1))
    }

    @Test(
        "without a login: pages redirect to /login, the API answers 401 with a fix, the login page and assets are open")
    func anonymous() async throws {
        let control = FakeGatewayControl()
        try await Self.app(control.services, usersFile: try Self.usersFile()).test(.router) { client in
            let board = try await client.execute(uri: "/", method: .get)
            #expect(board.status == .seeOther)
            #expect(board.headers[.location] == "/login")
            let api = try await client.execute(uri: "/v1/sessions", method: .get)
            #expect(api.status == .unauthorized)
            #expect(String(buffer: api.body).contains("log in at"))
            let login = try await client.execute(uri: "/login", method: .get)
            #expect(login.status == .ok)
            #expect(String(buffer: login.body).contains(#"action="/login""#))
            let css = try await client.execute(uri: "/assets/dashboard.css", method: .get)
            #expect(css.status == .ok)
            #expect(css.headers[.contentType] == "text/css; charset=utf-8")
            let script = try await client.execute(uri: "/assets/board.js", method: .get)
            #expect(String(buffer: script.body).contains("EventSource"))
            let missing = try await client.execute(uri: "/assets/nothing.js", method: .get)
            #expect(missing.status == .notFound)
        }
        #expect(control.calls.isEmpty)
    }

    @Test("a wrong password is refused with 401 and sets no cookie; five failures throttle the address")
    func wrongPassword() async throws {
        try await Self.app(FakeGatewayControl().services, usersFile: try Self.usersFile()).test(.router) { client in
            for _ in 0..<5 {
                let refused = try await client.execute(
                    uri: "/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: "username=coach&password=wrong"))
                #expect(refused.status == .unauthorized)
                #expect(refused.headers[.setCookie] == nil)
                #expect(String(buffer: refused.body).contains("Wrong user name or password"))
            }
            let throttled = try await client.execute(
                uri: "/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "username=coach&password=coach-pass"))
            #expect(throttled.status == .tooManyRequests)
            #expect(throttled.headers[.retryAfter] != nil)
        }
    }

    @Test("a coach starts and stops with the CSRF token; without it, or from another origin, 403")
    func coach() async throws {
        let control = FakeGatewayControl()
        try await Self.app(control.services, usersFile: try Self.usersFile()).test(.router) { client in
            let (cookie, csrf) = try await Self.login(client, "coach", "coach-pass")
            let body = ByteBuffer(string: #"{"sensor":"virtual-1","profile":"jump"}"#)
            let forged = try await client.execute(
                uri: "/v1/sessions", method: .post, headers: [.cookie: cookie, .contentType: "application/json"],
                body: body)
            #expect(forged.status == .forbidden)
            let otherOrigin = try await client.execute(
                uri: "/v1/sessions", method: .post,
                headers: [
                    .cookie: cookie, .contentType: "application/json", WebAuthentication.csrfHeader: csrf,
                    .origin: "http://evil.example",
                ], body: body)
            #expect(otherOrigin.status == .forbidden)
            let started = try await client.execute(
                uri: "/v1/sessions", method: .post,
                headers: [.cookie: cookie, .contentType: "application/json", WebAuthentication.csrfHeader: csrf],
                body: body)
            #expect(started.status == .created)
            let stopped = try await client.execute(
                uri: "/v1/sessions/abc/stop", method: .post,
                headers: [.cookie: cookie, WebAuthentication.csrfHeader: csrf])
            #expect(stopped.status == .ok)
            let logout = try await client.execute(
                uri: "/logout?csrf=\(csrf)", method: .post, headers: [.cookie: cookie])
            #expect(logout.status == .seeOther)
            let after = try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie])
            #expect(after.status == .seeOther)
        }
        #expect(control.calls.contains(.startSession(StartSessionRequest(sensor: "virtual-1", profile: "jump"))))
        #expect(control.calls.contains(.stopSession(id: "abc")))
    }

    @Test("a viewer reads the board and history but every state change answers 403; its board has no controls")
    func viewer() async throws {
        let control = FakeGatewayControl()
        try await Self.app(control.services, usersFile: try Self.usersFile()).test(.router) { client in
            let (cookie, csrf) = try await Self.login(client, "tv", "viewer-pass")
            let board = try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie])
            #expect(!String(buffer: board.body).contains(#"data-action="start""#))
            #expect(!String(buffer: board.body).contains("pair-open"))
            for (method, uri) in [
                (HTTPRequest.Method.post, "/v1/sessions"), (.post, "/v1/sessions/abc/stop"), (.post, "/v1/scan"),
                (.delete, "/v1/sensors/virtual-1"),
            ] {
                let answer = try await client.execute(
                    uri: uri, method: method, headers: [.cookie: cookie, WebAuthentication.csrfHeader: csrf],
                    body: ByteBuffer(string: "{}"))
                #expect(answer.status == .forbidden, "\(method) \(uri)")
                #expect(String(buffer: answer.body).contains("\"forbidden\""))
            }
            let sessions = try await client.execute(uri: "/v1/sessions", method: .get, headers: [.cookie: cookie])
            #expect(sessions.status == .ok)
            let history = try await client.execute(uri: "/sessions", method: .get, headers: [.cookie: cookie])
            #expect(history.status == .ok)
        }
        #expect(!control.calls.contains { if case .stopSession = $0 { true } else { false } })
        #expect(!control.calls.contains { if case .startSession = $0 { true } else { false } })
    }

    @Test("scripts keep the bearer token on this listener; a wrong token is 401")
    func bearerToken() async throws {
        try await Self.app(FakeGatewayControl().services, usersFile: try Self.usersFile()).test(.router) { client in
            let right = try await client.execute(
                uri: "/v1/status", method: .get, headers: [.authorization: "Bearer \(Self.token)"])
            #expect(right.status == .ok)
            let wrong = try await client.execute(
                uri: "/v1/status", method: .get, headers: [.authorization: "Bearer \(Self.token)x"])
            #expect(wrong.status == .unauthorized)
        }
    }

    @Test("history pages render: the list with downloads, a session with three SVG charts, the leaderboard")
    func history() async throws {
        let control = FakeGatewayControl()
        try await Self.app(control.services, usersFile: try Self.usersFile()).test(.router) { client in
            let (cookie, _) = try await Self.login(client, "tv", "viewer-pass")
            let session = FakeGatewayControl.Fixtures.session
            let list = String(
                buffer: try await client.execute(uri: "/sessions", method: .get, headers: [.cookie: cookie]).body)
            #expect(list.contains(#"data-session="\#(session.id)""#))
            let csv = try await client.execute(uri: "/sessions.csv", method: .get, headers: [.cookie: cookie])
            #expect(String(buffer: csv.body).hasPrefix("session_id,started_at"))
            #expect(String(buffer: csv.body).contains(session.id))
            let page = try await client.execute(
                uri: "/sessions/\(session.id)", method: .get, headers: [.cookie: cookie])
            #expect(page.status == .ok)
            #expect(String(buffer: page.body).components(separatedBy: "<svg class=\"chart\"").count - 1 >= 2)
            let events = try await client.execute(
                uri: "/sessions/\(session.id)/events.csv", method: .get, headers: [.cookie: cookie])
            #expect(
                String(buffer: events.body).split(separator: "\n").count == FakeGatewayControl.Fixtures.events.count + 1
            )
            let board = try await client.execute(uri: "/leaderboard?days=all", method: .get, headers: [.cookie: cookie])
            #expect(board.status == .ok)
        }
    }
}

@Suite("Web dashboard TLS")
struct WebDashboardTLSTests {
    @Test("a missing certificate or key stops the listener with the keys to fix, before it binds")
    func missingCertificate() async throws {
        let server = WebServer(
            services: FakeGatewayControl().services,
            configuration: WebServerConfiguration(
                host: "127.0.0.1", port: 0, tls: (certificate: "/nonexistent/web.pem", key: "/nonexistent/web.key"),
                usersFile: "/nonexistent/users.json"))
        let error = await #expect(throws: WebServerError.self) { try await server.run() }
        #expect(error?.message.contains("web.tls_cert, web.tls_key") == true)
        #expect(error?.message.contains("/nonexistent/web.pem") == true)
    }
}
