// SPDX-License-Identifier: GPL-2.0-or-later
import DashboardUsers
import Foundation

/// Who a request is: a logged-in dashboard account, or a script with the API's bearer token.
public struct WebIdentity: Hashable, Sendable {
    /// The account's name; `api-token` for the bearer token.
    public var name: String
    /// What it may do (the bearer token acts as a coach).
    public var role: DashboardRole
    /// The session's CSRF token, which every state change from the page must echo; nil for the
    /// bearer token (a script, not a browser: no ambient cookie to forge).
    public var csrfToken: String?
}

/// The logged-in browsers: an opaque random session id (the cookie) to the account, its role, a
/// CSRF token and an expiry. Kept in memory: a daemon restart logs everyone out, which is also
/// what a stolen cookie should suffer. Time is passed in.
struct WebSessionTable: Sendable {
    struct Entry: Hashable, Sendable {
        var user: String
        var role: DashboardRole
        /// The hash the password had at login: a new password (`users passwd`) ends the session.
        var passwordHash: String
        var csrfToken: String
        var expires: Date
    }

    /// How long a login lasts.
    let lifetime: TimeInterval
    /// The most sessions kept; the oldest go first past it (a login loop cannot fill memory).
    let capacity: Int
    private(set) var entries: [String: Entry] = [:]

    init(lifetime: TimeInterval, capacity: Int = 256) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// A new session for `user`; returns its id (the cookie's value) and entry.
    mutating func open(user: DashboardUser, now: Date) -> (id: String, entry: Entry) {
        removeExpired(now: now)
        while entries.count >= capacity, let oldest = entries.min(by: { $0.value.expires < $1.value.expires }) {
            entries.removeValue(forKey: oldest.key)
        }
        let id = Self.randomToken()
        let entry = Entry(
            user: user.name, role: user.role, passwordHash: user.passwordHash, csrfToken: Self.randomToken(),
            expires: now.addingTimeInterval(lifetime))
        entries[id] = entry
        return (id, entry)
    }

    /// The session `id`'s entry when it has not expired and its account still exists with the
    /// same password and role (`users` is the users file as it is now).
    mutating func identity(id: String, users: DashboardUserList, now: Date) -> WebIdentity? {
        guard let entry = entries[id] else { return nil }
        guard entry.expires > now, let user = users.user(named: entry.user), user.passwordHash == entry.passwordHash,
            user.role == entry.role
        else {
            entries.removeValue(forKey: id)
            return nil
        }
        return WebIdentity(name: entry.user, role: entry.role, csrfToken: entry.csrfToken)
    }

    /// Ends session `id` (logout).
    mutating func close(id: String) {
        entries.removeValue(forKey: id)
    }

    private mutating func removeExpired(now: Date) {
        entries = entries.filter { $0.value.expires > now }
    }

    /// 32 random bytes as hex, from the system's CSPRNG.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}

/// Failed logins, rate-limited per client address: after `allowedFailures` failures within
/// `window`, that address must wait until the window has passed since its first failure; a
/// success clears its record. Time is passed in.
struct LoginThrottle: Sendable {
    struct Record: Hashable, Sendable {
        var failures: Int
        var since: Date
    }

    let allowedFailures: Int
    let window: TimeInterval
    private(set) var records: [String: Record] = [:]

    init(allowedFailures: Int = 5, window: TimeInterval = 60) {
        self.allowedFailures = allowedFailures
        self.window = window
    }

    /// Seconds `client` must still wait before trying again; nil when it may try now.
    func retryAfter(client: String, now: Date) -> TimeInterval? {
        guard let record = records[client], record.failures >= allowedFailures else { return nil }
        let remaining = record.since.addingTimeInterval(window).timeIntervalSince(now)
        return remaining > 0 ? remaining : nil
    }

    /// Counts a failed login from `client`.
    mutating func failed(client: String, now: Date) {
        if records.count > 4096 { records = records.filter { $0.value.since.addingTimeInterval(window) > now } }
        if let record = records[client], record.since.addingTimeInterval(window) > now {
            records[client] = Record(failures: record.failures + 1, since: record.since)
        } else {
            records[client] = Record(failures: 1, since: now)
        }
    }

    /// A successful login from `client` clears its failures.
    mutating func succeeded(client: String) {
        records.removeValue(forKey: client)
    }
}
