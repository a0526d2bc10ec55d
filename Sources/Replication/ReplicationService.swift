// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import ServiceLifecycle
import SessionStore

/// Sends the store's outbox to the central PostgreSQL, oldest first, in batches: read a batch,
/// write it in one PostgreSQL transaction, then acknowledge it in the store. A crash between the
/// two sends the batch again, which the central side absorbs (`CentralWriter`).
///
/// It never holds up recording: the outbox is filled by the store's own transactions, and this
/// service only reads and trims it. With PostgreSQL away it retries with backoff while the outbox
/// grows; at `alarmFraction` of the bound it logs a warning and raises the alarm gauge, at the
/// bound it stops queueing (local data stays whole) and, once the outbox has drained, queues the
/// whole store again (a resync).
public final class ReplicationService<C: Clock>: Service, Sendable where C.Duration == Duration {
    /// The settings in force.
    public let settings: ReplicationSettings
    private let store: SessionStore
    private let clock: C
    private let logger: Logger
    private let pollInterval: Duration
    private let backoff: ReplicationBackoff
    private let onStatus: @Sendable (ReplicationStatus) -> Void
    private let current: NIOLockedValueBox<ReplicationStatus>

    /// Creates the service; `onStatus` sees every status change (the metrics).
    public init(
        settings: ReplicationSettings, store: SessionStore, clock: C, pollInterval: Duration = .milliseconds(500),
        logger: Logger, onStatus: @escaping @Sendable (ReplicationStatus) -> Void = { _ in }
    ) {
        self.settings = settings
        self.store = store
        self.clock = clock
        self.pollInterval = pollInterval
        var logger = logger
        logger[metadataKey: "replication.gateway"] = "\(settings.gatewayID)"
        self.logger = logger
        let spread = Double(settings.gatewayID.utf8.reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFFFF }) / 65_536
        self.backoff = ReplicationBackoff(spread: spread)
        self.onStatus = onStatus
        self.current = NIOLockedValueBox(
            ReplicationStatus(
                gatewayID: settings.gatewayID, target: settings.url.redacted, outboxLimit: settings.maxOutboxItems))
    }

    /// The status now.
    public var status: ReplicationStatus { current.withLockedValue { $0 } }

    private func update(_ change: (inout ReplicationStatus) -> Void) {
        let status = current.withLockedValue { status in
            change(&status)
            return status
        }
        onStatus(status)
    }

    /// Runs until cancelled or graceful shutdown.
    public func run() async throws {
        let identity: ReplicationIdentity
        do {
            identity = try await store.enableReplication(gatewayID: settings.gatewayID, samples: settings.samples)
        } catch {
            logger.error("cannot enable replication in the store: \(error.message)")
            throw error
        }
        logger.info(
            "replicating to \(settings.url.redacted)",
            metadata: [
                "replication.samples": "\(settings.samples)", "replication.outboxLimit": "\(settings.maxOutboxItems)",
            ])
        await cancelWhenGracefulShutdown { [self] in
            await loop(identity)
        }
        update { $0.state = .stopped }
    }

    private func loop(_ identity: ReplicationIdentity) async {
        var connection: PostgresConnection?
        var failures = 0
        var alarmed = false
        while !Task.isCancelled {
            do {
                alarmed = try await watchBound(alarmed: alarmed)
                if connection == nil {
                    connection = try await CentralConnection.open(
                        settings.url, gatewayID: settings.gatewayID, instanceID: identity.instanceID, logger: logger)
                    if failures > 0 { logger.notice("connected to the central database again") }
                    update { $0.state = .replicating }
                }
                guard let open = connection else { continue }
                // A connection the server closed while idle fails here, not in a query that waits.
                if open.isClosed {
                    throw ReplicationError(
                        .unreachable,
                        "cannot reach PostgreSQL at \(settings.url.redacted): the server closed the connection",
                        fix: "check the server runs; replication reconnects with backoff")
                }
                let sent = try await sendBatch(open)
                failures = 0
                if !sent { try await clock.sleep(for: pollInterval) }
            } catch is CancellationError {
                break
            } catch {
                if Task.isCancelled { break }
                let replicationError =
                    (error as? StoreError).map {
                        ReplicationError(
                            .store, "cannot read the replication outbox: \($0.message)",
                            fix: "see the store's error; replication retries with backoff", cause: $0)
                    } ?? CentralConnection.describe(error, url: settings.url)
                failures += 1
                if let open = connection {
                    // Not awaited: closing a connection whose server vanished must not hold the loop.
                    Task { try? await open.close() }
                    connection = nil
                }
                let refused = [.gatewayIDClash, .newerSchema, .refused].contains(replicationError.code)
                // Each new error once (a server going down fails the open connection, then every
                // connect), and a refusal again now and then.
                let repeated = status.lastError == replicationError.message
                if !repeated || refused && failures % 20 == 1 {
                    logger.error(
                        "\(replicationError.message)",
                        metadata: [
                            "replication.error": "\(replicationError.code)", "replication.failures": "\(failures)",
                        ])
                }
                update {
                    $0.state = refused ? .refused : .backingOff
                    $0.lastError = replicationError.message
                    $0.lastErrorCode = "\(replicationError.code)"
                }
                do { try await clock.sleep(for: backoff.delay(afterFailures: failures)) } catch { break }
            }
        }
        if let connection { try? await connection.close() }
    }

    /// Sends one batch; false when the outbox was empty.
    private func sendBatch(_ connection: PostgresConnection) async throws -> Bool {
        guard let batch = try await store.outboxBatch(maxItems: settings.batchItems, maxSamples: settings.batchSamples)
        else {
            update { $0.state = .replicating }
            return false
        }
        let writer = CentralWriter(gatewayID: settings.gatewayID)
        let (logger, clock) = (self.logger, self.clock)
        // A server that vanishes mid-batch may leave a query unanswered, and postgres-nio may then
        // never resume it (seen when PostgreSQL stopped during a batch: the service hung for good).
        // So the batch is awaited for at most 60 s and never past that: the connection is closed
        // and the batch retried on a new one, without waiting for the abandoned query.
        let counts = try await Self.bounded(.seconds(60), clock: clock, connection: connection) {
            try await writer.write(batch, on: connection, logger: logger)
        }
        try await store.acknowledgeOutbox(through: batch.lastSequence)
        let hadError = status.lastError != nil
        update {
            $0.state = .replicating
            $0.sentItems += Int64(batch.items.count)
            $0.sentSamples += Int64(counts.samples)
            $0.lastSuccess = Date()
            $0.lastError = nil
            $0.lastErrorCode = nil
        }
        if hadError { logger.notice("replication caught up with its errors: batches are going through again") }
        logger.debug(
            "batch replicated",
            metadata: [
                "replication.items": "\(batch.items.count)", "replication.rows": "\(counts.rows)",
                "replication.samples": "\(counts.samples)", "replication.through": "\(batch.lastSequence)",
            ])
        return true
    }

    /// `operation`'s result, or after `limit` an `unreachable` error (closing `connection`), whichever
    /// comes first; an operation still running then is cancelled and left to end on its own.
    static func bounded<T: Sendable>(
        _ limit: Duration, clock: C, connection: PostgresConnection,
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let (results, sink) = AsyncStream<Result<T, any Error>>.makeStream()
        let work = Task {
            do { sink.yield(.success(try await operation())) } catch { sink.yield(.failure(error)) }
        }
        let timer = Task {
            guard (try? await clock.sleep(for: limit)) != nil else { return }
            sink.yield(
                .failure(
                    ReplicationError(
                        .unreachable, "PostgreSQL did not answer a batch within \(limit)",
                        fix: "check the server and the network; replication reconnects with backoff")))
        }
        defer {
            timer.cancel()
            sink.finish()
        }
        return try await withTaskCancellationHandler {
            for await result in results {
                if case .failure = result {
                    work.cancel()
                    Task { try? await connection.close() }
                }
                return try result.get()
            }
            throw CancellationError()
        } onCancel: {
            work.cancel()
            sink.finish()
        }
    }

    /// Measures the outbox, raises or clears the alarm, stops queueing at the bound and resyncs
    /// once a stopped outbox has drained. Returns whether the alarm is on.
    private func watchBound(alarmed: Bool) async throws -> Bool {
        var outbox = try await store.outboxStatus()
        let limit = settings.maxOutboxItems
        if outbox.queueing, outbox.count >= limit {
            try await store.stopQueueing()
            outbox.queueing = false
            logger.critical(
                """
                replication outbox full (\(outbox.count) of \(limit) items): changes are no longer queued; local \
                data is kept and the whole store is queued again once the central database has taken the backlog
                """,
                metadata: ["replication.outbox": "\(outbox.count)"])
        } else if !outbox.queueing, outbox.count == 0 {
            try await store.resyncReplication()
            outbox = try await store.outboxStatus()
            logger.notice("replication outbox drained: queued the whole store again (resync)")
        }
        let alarm = !outbox.queueing || Double(outbox.count) >= settings.alarmFraction * Double(limit)
        if alarm, !alarmed {
            logger.warning(
                """
                replication outbox at \(outbox.count) of \(limit) items: the central database is not keeping up or \
                is unreachable; at the bound changes stop being queued (see sportsensorctl replication status)
                """)
        }
        let now = Date()
        update {
            $0.outboxItems = outbox.count
            $0.queueing = outbox.queueing
            $0.alarm = alarm
            $0.lagSeconds = outbox.oldestQueuedAt.map { max(0, now.timeIntervalSince($0)) } ?? 0
        }
        return alarm
    }
}
