// SPDX-License-Identifier: GPL-2.0-or-later
import DashboardUsers
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers

/// The dashboard's logins: the users file, the logged-in sessions, the failed-login throttle and
/// the API's bearer token (scripts keep using it on this listener, as a coach).
final class WebAuthentication: Sendable {
    /// The session cookie's name.
    static let cookieName = "sportsensord_session"
    /// The header a page's state change carries its CSRF token in.
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    let users: DashboardUsersCache
    let bearerToken: [UInt8]?
    /// True behind TLS: the cookie gets `Secure`.
    let secureCookies: Bool
    let lifetime: TimeInterval
    private let sessions: NIOLockedValueBox<WebSessionTable>
    private let throttle = NIOLockedValueBox(LoginThrottle())
    let now: @Sendable () -> Date

    init(
        users: DashboardUsersCache, bearerToken: String?, secureCookies: Bool, lifetime: TimeInterval,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.users = users
        self.bearerToken = bearerToken.flatMap { $0.isEmpty ? nil : Array($0.utf8) }
        self.secureCookies = secureCookies
        self.lifetime = lifetime
        self.sessions = NIOLockedValueBox(WebSessionTable(lifetime: lifetime))
        self.now = now
    }

    /// The outcome of a login attempt.
    enum LoginOutcome: Equatable {
        /// Logged in: the session id for the cookie.
        case success(sessionID: String)
        /// Wrong name or password.
        case refused
        /// Too many failures from this address: wait this many seconds.
        case throttled(retryAfter: Int)
    }

    /// Checks `name` and `password`; bcrypt runs off the cooperative pool.
    func login(name: String, password: String, client: String) async -> LoginOutcome {
        if let wait = throttle.withLockedValue({ $0.retryAfter(client: client, now: now()) }) {
            return .throttled(retryAfter: Int(wait.rounded(.up)))
        }
        let user = users.users.user(named: name)
        // An unknown name costs a bcrypt too, so timing does not tell which names exist.
        let hash = user?.passwordHash ?? Self.decoyHash
        let matches = await Self.offPool { DashboardPassword.verify(password, hash: hash) }
        guard let user, matches else {
            throttle.withLockedValue { $0.failed(client: client, now: now()) }
            return .refused
        }
        throttle.withLockedValue { $0.succeeded(client: client) }
        let opened = sessions.withLockedValue { $0.open(user: user, now: now()) }
        return .success(sessionID: opened.id)
    }

    /// Ends the session `id`.
    func logout(sessionID: String) {
        sessions.withLockedValue { $0.close(id: sessionID) }
    }

    /// Who `request` is: a live session's cookie, or the API's bearer token.
    func identity(of request: Request) -> WebIdentity? {
        if let header = request.headers[.authorization], let bearerToken {
            let prefix = "bearer "
            guard header.count > prefix.count, header.prefix(prefix.count).lowercased() == prefix else { return nil }
            let presented = Array(header.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces).utf8)
            return Self.constantTimeEqual(presented, bearerToken)
                ? WebIdentity(name: "api-token", role: .coach, csrfToken: nil) : nil
        }
        guard let id = Self.cookie(Self.cookieName, in: request) else { return nil }
        let users = users.users
        return sessions.withLockedValue { $0.identity(id: id, users: users, now: now()) }
    }

    /// The `Set-Cookie` value that logs in with `sessionID`.
    func sessionCookie(_ sessionID: String) -> String {
        "\(Self.cookieName)=\(sessionID); Path=/; HttpOnly; SameSite=Strict; Max-Age=\(Int(lifetime))"
            + (secureCookies ? "; Secure" : "")
    }

    /// The `Set-Cookie` value that clears the session cookie.
    var clearedCookie: String {
        "\(Self.cookieName)=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0" + (secureCookies ? "; Secure" : "")
    }

    /// The value of cookie `name` in `request`'s `Cookie` headers.
    static func cookie(_ name: String, in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    return String(parts[1]).trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    /// True when the byte strings are equal, in a time that depends on their lengths only.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference: UInt8 = lhs.count == rhs.count ? 0 : 1
        for index in 0..<max(lhs.count, rhs.count) {
            difference |= (index < lhs.count ? lhs[index] : 0) ^ (index < rhs.count ? rhs[index] : 0)
        }
        return difference == 0
    }

    /// A valid bcrypt hash of a password nobody knows (cost 11, like real ones), compared against
    /// when the name is unknown.
    static let decoyHash = DashboardPassword.hash(WebSessionTable.randomToken())

    /// Runs `work` (bcrypt: tens of milliseconds to a second) on a thread of its own.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }
}
