// SPDX-License-Identifier: GPL-2.0-or-later

/// What a dashboard account may do.
public enum DashboardRole: String, Codable, Hashable, Sendable, CaseIterable {
    /// Everything: start and stop sessions, pair sensors, see history.
    case coach
    /// Read-only: the board on the hall's TV, history and downloads; never a state change.
    case viewer

    /// True when the role may change the gateway's state (start, stop, pair).
    public var mayChangeState: Bool { self == .coach }
}

/// One dashboard account as the users file keeps it: the name, the role and the bcrypt hash of
/// the password (never the password).
public struct DashboardUser: Codable, Hashable, Sendable {
    /// The login name.
    public var name: String
    /// What the account may do.
    public var role: DashboardRole
    /// `$2b$…`, from `Bcrypt.hash`.
    public var passwordHash: String

    /// Creates an account record.
    public init(name: String, role: DashboardRole, passwordHash: String) {
        self.name = name
        self.role = role
        self.passwordHash = passwordHash
    }

    private enum CodingKeys: String, CodingKey {
        case name, role
        case passwordHash = "password_hash"
    }
}

/// The accounts, by name, with the rules every change follows.
public struct DashboardUserList: Hashable, Sendable {
    /// The accounts in the order they were added.
    public private(set) var users: [DashboardUser]

    /// The shortest password `users add` and `users passwd` accept.
    public static let minimumPasswordLength = 8

    /// A list of `users`.
    public init(users: [DashboardUser] = []) {
        self.users = users
    }

    /// The account named `name`, if any.
    public func user(named name: String) -> DashboardUser? {
        users.first { $0.name == name }
    }

    /// Adds an account.
    ///
    /// - Throws: ``DashboardUsersError`` when the name is taken or not a valid login name.
    public mutating func add(_ user: DashboardUser) throws(DashboardUsersError) {
        try Self.checkName(user.name)
        guard self.user(named: user.name) == nil else {
            throw DashboardUsersError(
                .exists,
                "a user named '\(user.name)' exists: use `sportsensorctl users passwd \(user.name)` "
                    + "to change the password, or remove it first to change the role")
        }
        users.append(user)
    }

    /// Removes the account named `name`.
    public mutating func remove(named name: String) throws(DashboardUsersError) {
        guard let index = users.firstIndex(where: { $0.name == name }) else {
            throw Self.noSuchUser(name)
        }
        users.remove(at: index)
    }

    /// Replaces the password hash of `name`.
    public mutating func setPasswordHash(_ hash: String, of name: String) throws(DashboardUsersError) {
        guard let index = users.firstIndex(where: { $0.name == name }) else {
            throw Self.noSuchUser(name)
        }
        users[index].passwordHash = hash
    }

    /// Checks a new password's length; the hash is made by the caller.
    public static func checkPassword(_ password: String) throws(DashboardUsersError) {
        guard password.count >= minimumPasswordLength else {
            throw DashboardUsersError(
                .weakPassword,
                "the password has \(password.count) characters: give at least \(minimumPasswordLength)")
        }
        // bcrypt reads at most 72 bytes; a longer password would be cut without a word.
        guard password.utf8.count <= 72 else {
            throw DashboardUsersError(
                .weakPassword, "the password is longer than 72 bytes, which bcrypt cuts: give a shorter one")
        }
    }

    /// Login names: 1–32 letters, digits, `.`, `_`, `-`, starting with a letter or digit.
    public static func checkName(_ name: String) throws(DashboardUsersError) {
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)))
                || scalar == "." || scalar == "_" || scalar == "-"
        }
        guard (1...32).contains(name.count), allowed, let first = name.unicodeScalars.first,
            first.properties.isAlphabetic || ("0"..."9").contains(first)
        else {
            throw DashboardUsersError(
                .invalidName,
                "'\(name)' is not a login name: use 1–32 letters, digits, '.', '_' or '-', starting with a "
                    + "letter or digit")
        }
    }

    static func noSuchUser(_ name: String) -> DashboardUsersError {
        DashboardUsersError(.notFound, "there is no user named '\(name)': `sportsensorctl users list` shows them")
    }
}
