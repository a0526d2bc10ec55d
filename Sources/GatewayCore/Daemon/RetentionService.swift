// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GatewayConfig
import Logging
import ServiceLifecycle
import SessionStore

/// Applies `[retention]`: at start and then daily, deletes finished sessions stored longer ago
/// than `days` and the samples of sessions stored longer ago than `samples_days`. Open sessions
/// are never touched.
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

    /// One pass of the policy as of `now`: ages count from when a session entered the store.
    /// A pass that would take more than the policy's share deletes nothing and says how to
    /// proceed; the deleted sessions are logged by id (by the store).
    public func prune(now: Date) async {
        let passes: [(days: Int?, samplesOnly: Bool)] = [(policy.samplesDays, true), (policy.days, false)]
        for pass in passes {
            guard let days = pass.days else { continue }
            let options = SessionStore.PruneOptions(samplesOnly: pass.samplesOnly, maximumShare: policy.maximumShare)
            do {
                _ = try await store.prune(storedBefore: now.addingTimeInterval(-Double(days) * 86_400), options)
            } catch  where error.code == .invalidArgument {
                let command = "sportsensorctl prune --older-than \(days)d" + (pass.samplesOnly ? " --samples-only" : "")
                logger.warning(
                    "retention paused: \(error.message) (\(command) --force), or raise retention.max_share")
            } catch {
                logger.error("retention pass failed", metadata: ["error": "\(error)"])
            }
        }
    }
}
