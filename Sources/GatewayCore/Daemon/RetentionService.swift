// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GatewayConfig
import Logging
import ServiceLifecycle
import SessionStore

/// Applies `[retention]`: at start and then daily, deletes finished sessions older than `days`
/// and the samples of sessions older than `samples_days`. Open sessions are never touched.
public struct RetentionService<C: Clock>: Service where C.Duration == Duration {
    private let store: SessionStore
    private let policy: RetentionPolicy
    private let clock: C
    private let interval: Duration
    private let logger: Logger

    /// A service pruning `store` by `policy` every `interval` (a day by default).
    public init(
        store: SessionStore, policy: RetentionPolicy, clock: C, interval: Duration = .seconds(86_400),
        logger: Logger = Logger(label: "sportsensord.retention")
    ) {
        self.store = store
        self.policy = policy
        self.clock = clock
        self.interval = interval
        self.logger = logger
    }

    /// Prunes once now, then every `interval`, until graceful shutdown.
    public func run() async throws {
        guard policy.days != nil || policy.samplesDays != nil else {
            try? await gracefulShutdown()
            return
        }
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await prune(now: Date())
                do { try await clock.sleep(for: interval) } catch { return }
            }
        }
    }

    /// One pass of the policy as of `now`.
    public func prune(now: Date) async {
        do {
            if let days = policy.samplesDays {
                let result = try await store.prune(
                    olderThan: now.addingTimeInterval(-Double(days) * 86_400), samplesOnly: true)
                if result.chunksDeleted > 0 {
                    logger.info("retention: samples deleted", metadata: ["store.samples": "\(result.samplesDeleted)"])
                }
            }
            if let days = policy.days {
                let result = try await store.prune(olderThan: now.addingTimeInterval(-Double(days) * 86_400))
                if result.sessionsDeleted > 0 {
                    logger.info(
                        "retention: sessions deleted", metadata: ["store.sessions": "\(result.sessionsDeleted)"])
                }
            }
        } catch {
            logger.error("retention pass failed", metadata: ["error": "\(error)"])
        }
    }
}
