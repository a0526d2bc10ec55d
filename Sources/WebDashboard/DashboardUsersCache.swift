// SPDX-License-Identifier: GPL-2.0-or-later
import DashboardUsers
import Foundation
import Logging
import NIOConcurrencyHelpers

/// The users file as the daemon sees it: read again whenever its modification time or size
/// changes, so `sportsensorctl users …` takes effect without a restart (a removed account's
/// sessions end with its next request).
final class DashboardUsersCache: Sendable {
    private struct Stamp: Hashable, Sendable {
        var modified: Date
        var size: Int
        var inode: Int
    }

    private struct Snapshot: Sendable {
        var stamp: Stamp?
        var list = DashboardUserList()
    }

    let file: DashboardUsersFile
    let logger: Logger
    private let snapshot = NIOLockedValueBox(Snapshot())

    init(file: DashboardUsersFile, logger: Logger) {
        self.file = file
        self.logger = logger
    }

    /// The accounts now; none (nobody can log in) when the file is missing or unreadable, which is
    /// logged once per change of the file.
    var users: DashboardUserList {
        let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
        let stamp = Stamp(
            modified: attributes?[.modificationDate] as? Date ?? Date.distantPast,
            size: attributes?[.size] as? Int ?? -1, inode: attributes?[.systemFileNumber] as? Int ?? -1)
        if let cached = snapshot.withLockedValue({ $0.stamp == stamp ? $0.list : nil }) { return cached }
        let list: DashboardUserList
        do {
            list = try file.load()
            if list.users.isEmpty {
                logger.notice(
                    "the dashboard has no users: add one with `sportsensorctl users add NAME --role coach`",
                    metadata: ["web.users_file": "\(file.path)"])
            }
        } catch {
            logger.error("cannot read the dashboard's users: \(error)", metadata: ["web.users_file": "\(file.path)"])
            list = DashboardUserList()
        }
        snapshot.withLockedValue { $0 = Snapshot(stamp: stamp, list: list) }
        return list
    }
}
