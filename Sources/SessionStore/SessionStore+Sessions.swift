// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import Detection
import Foundation
import GRDB
import Logging
import SDUSensor
import StoreFormats

/// A row of `sessions`.
struct SessionRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "sessions"
    /// The sensor a session was recorded from.
    static let sensor = belongsTo(SensorRow.self, using: ForeignKey([Columns.sensorAddress]))

    enum CodingKeys: String, CodingKey {
        case id
        case sensorAddress = "sensor_address"
        case athleteID = "athlete_id"
        case profile
        case profileParameters = "profile_parameters"
        case startedAt = "started_at"
        case endedAt = "ended_at"
        case endReason = "end_reason"
        case sampleRate = "sample_rate"
        case receivedCount = "received_count"
        case lostCount = "lost_count"
        case malformedCount = "malformed_count"
        case storedAt = "stored_at"
        case unsavedSamples = "unsaved_samples"
    }

    /// The columns.
    enum Columns {
        static let id = Column(CodingKeys.id)
        static let sensorAddress = Column(CodingKeys.sensorAddress)
        static let athleteID = Column(CodingKeys.athleteID)
        static let profile = Column(CodingKeys.profile)
        static let profileParameters = Column(CodingKeys.profileParameters)
        static let startedAt = Column(CodingKeys.startedAt)
        static let endedAt = Column(CodingKeys.endedAt)
        static let endReason = Column(CodingKeys.endReason)
        static let sampleRate = Column(CodingKeys.sampleRate)
        static let receivedCount = Column(CodingKeys.receivedCount)
        static let lostCount = Column(CodingKeys.lostCount)
        static let malformedCount = Column(CodingKeys.malformedCount)
        static let storedAt = Column(CodingKeys.storedAt)
        static let unsavedSamples = Column(CodingKeys.unsavedSamples)
    }

    /// Lower-case UUID text.
    var id: String
    var sensorAddress: String?
    var athleteID: Int64?
    var profile: String
    /// `DetectionSettings` as JSON (`StoredSettings`).
    var profileParameters: String
    var startedAt: Date
    var endedAt: Date?
    var endReason: String?
    var sampleRate: Double?
    var receivedCount: Int64
    var lostCount: Int64
    var malformedCount: Int64
    /// When the session entered this store (what retention counts from); nil in a store older
    /// than schema v3 that is read without migrating.
    var storedAt: Date?
    /// Samples received that the store could not keep; nil in a store older than schema v9 that is
    /// read without migrating.
    var unsavedSamples: Int64?

    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .timeIntervalSince1970
    }

    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .timeIntervalSince1970
    }

    init(_ record: SessionRecord) {
        id = record.idText
        sensorAddress = record.sensor?.description
        athleteID = record.athleteID
        profile = record.profile
        profileParameters = record.settings.map(StoredSettings.text) ?? "{}"
        startedAt = record.startedAt
        endedAt = record.endedAt
        endReason = record.endReason?.rawValue
        sampleRate = record.counts.sampleRate
        receivedCount = record.counts.received
        lostCount = record.counts.lost
        malformedCount = record.counts.malformed
        storedAt = Date()
        unsavedSamples = record.unsavedSamples
    }

    /// The session, its sensor's address of `sensorKind`; nil for an id that is not a UUID.
    func record(sensorKind: BluetoothAddress.Kind) -> SessionRecord? {
        guard let uuid = UUID(uuidString: id) else { return nil }
        return SessionRecord(
            id: uuid, sensor: sensorAddress.flatMap { BluetoothAddress(string: $0, kind: sensorKind) },
            athleteID: athleteID, profile: profile,
            settings: StoredSettings.settings(profile: profile, text: profileParameters), startedAt: startedAt,
            endedAt: endedAt, endReason: endReason.map(SessionEndReason.init(rawValue:)),
            counts: SessionCounts(
                received: receivedCount, lost: lostCount, malformed: malformedCount, sampleRate: sampleRate),
            unsavedSamples: unsavedSamples ?? 0)
    }

    /// Sessions with their sensor's address type, which the `sessions` table does not repeat.
    static func withSensorKind() -> QueryInterfaceRequest<SessionRow> {
        all().annotated(withOptional: sensor.select(SensorRow.Columns.addressType.forKey(sensorKindKey)))
    }

    static let sensorKindKey = "sensor_address_type"

    /// The records a request made with `withSensorKind()` finds.
    static func records(_ request: QueryInterfaceRequest<SessionRow>, _ db: Database) throws -> [SessionRecord] {
        try Row.fetchAll(db, request).compactMap { row in
            try SessionRow(row: row).record(sensorKind: SensorRow.kind(row[sensorKindKey]))
        }
    }

    /// Sets the stream counters (and the rate, when known) of session `id`.
    static func update(_ counts: SessionCounts, session id: String, _ db: Database) throws {
        var assignments = [
            Columns.receivedCount.set(to: counts.received), Columns.lostCount.set(to: counts.lost),
            Columns.malformedCount.set(to: counts.malformed),
        ]
        if let rate = counts.sampleRate { assignments.append(Columns.sampleRate.set(to: rate)) }
        try filter(key: id).updateAll(db, assignments)
    }

    /// Ends session `id`, with the samples it received that the store could not keep.
    static func close(
        session id: String, endedAt: Date, reason: SessionEndReason, unsavedSamples: Int64, _ db: Database
    ) throws {
        try filter(key: id).updateAll(
            db, Columns.endedAt.set(to: endedAt.timeIntervalSince1970), Columns.endReason.set(to: reason.rawValue),
            Columns.unsavedSamples.set(to: unsavedSamples))
    }

    /// Inserts the session, and its sensor's row when the sensor is new (known from its sessions,
    /// not paired).
    static func insert(_ record: SessionRecord, _ db: Database) throws {
        if let sensor = record.sensor {
            try SensorRow(SensorRecord(address: sensor, paired: false)).insert(db, onConflict: .ignore)
        }
        try SessionRow(record).insert(db)
    }
}

extension SessionStore {
    /// Creates an open session (and the sensor's row, when the sensor is new).
    public func createSession(_ new: NewSession) async throws(StoreError) -> SessionRecord {
        let record = SessionRecord(
            id: new.id, sensor: new.sensor, athleteID: new.athleteID, profile: new.settings.profile.rawValue,
            settings: new.settings, startedAt: new.startedAt, endedAt: nil, endReason: nil, counts: SessionCounts())
        try await write("creating a session") { db in try SessionRow.insert(record, db) }
        return record
    }

    /// Stores a whole finished session in one transaction (import, or a re-analysis saved as new).
    public func importSession(
        _ new: NewSession, samples: [IndexedSample], events: [EventRecord], counts: SessionCounts? = nil,
        endedAt: Date? = nil, reason: SessionEndReason = .imported, chunkLength: Int = 8192
    ) async throws(StoreError) -> SessionRecord {
        let duration = max(samples.last?.t ?? 0, events.map(\.t).max() ?? 0)
        let record = SessionRecord(
            id: new.id, sensor: new.sensor, athleteID: new.athleteID, profile: new.settings.profile.rawValue,
            settings: new.settings, startedAt: new.startedAt,
            endedAt: endedAt ?? new.startedAt.addingTimeInterval(duration), endReason: reason,
            counts: counts ?? SessionCounts(received: Int64(samples.count)))
        try await write("importing a session") { db in
            try SessionRow.insert(record, db)
            var chunk: Int64 = 0
            var start = 0
            while start < samples.count {
                let end = min(start + max(chunkLength, 1), samples.count)
                try ChunkRow.write(Array(samples[start..<end]), number: chunk, session: record.idText, db)
                chunk += 1
                start = end
            }
            try EventRow.insert(events, session: record.idText, db)
        }
        return record
    }

    /// Replaces a session's events. A session still recording is refused: its recorder numbers
    /// the events it adds.
    public func replaceEvents(of id: UUID, with events: [EventRecord]) async throws(StoreError) {
        let idText = id.uuidString.lowercased()
        try await write("replacing events") { db in
            try Self.requireFinished(idText, db)
            try EventRow.filter(EventRow.Columns.sessionID == idText).deleteAll(db)
            try EventRow.insert(events, session: idText, db)
        }
    }

    /// Replaces a session's events and sets the settings they were detected with, in one
    /// transaction: the result of re-running detection, saved. A session still recording is refused.
    public func replaceEvents(
        of id: UUID, with events: [EventRecord], settings: DetectionSettings
    ) async throws(StoreError) {
        let idText = id.uuidString.lowercased()
        try await write("replacing events") { db in
            try Self.requireFinished(idText, db)
            try SessionRow.filter(key: idText).updateAll(
                db, SessionRow.Columns.profile.set(to: settings.profile.rawValue),
                SessionRow.Columns.profileParameters.set(to: StoredSettings.text(settings)))
            try EventRow.filter(EventRow.Columns.sessionID == idText).deleteAll(db)
            try EventRow.insert(events, session: idText, db)
        }
    }

    /// Throws unless session `id` exists and has ended.
    static func requireFinished(_ id: String, _ db: Database) throws {
        guard let session = try SessionRow.fetchOne(db, key: id) else {
            throw StoreError(.notFound, "no session \(id): list sessions with `sportsensorctl sessions`")
        }
        guard session.endedAt != nil else { throw StoreError.sessionLive(id) }
    }

    /// Sessions matching `filter`, newest first.
    public func sessions(filter: SessionFilter = SessionFilter()) async throws(StoreError) -> [SessionRecord] {
        var request = SessionRow.withSensorKind()
        if let athlete = filter.athleteID { request = request.filter(SessionRow.Columns.athleteID == athlete) }
        if let sensor = filter.sensor {
            request = request.filter(SessionRow.Columns.sensorAddress == sensor.description)
        }
        if let profile = filter.profile { request = request.filter(SessionRow.Columns.profile == profile) }
        if let from = filter.startedFrom {
            request = request.filter(SessionRow.Columns.startedAt >= from.timeIntervalSince1970)
        }
        if let before = filter.startedBefore {
            request = request.filter(SessionRow.Columns.startedAt < before.timeIntervalSince1970)
        }
        request = request.order(SessionRow.Columns.startedAt.desc, SessionRow.Columns.id)
        if let limit = filter.limit { request = request.limit(max(0, limit)) }
        let query = request
        return try await withTailCounts(try await read("listing sessions") { db in try SessionRow.records(query, db) })
    }

    /// `records` with the counters of a recording session as its tail segment has them (the
    /// session's row gets them when the open chunk closes).
    func withTailCounts(_ records: [SessionRecord]) async throws(StoreError) -> [SessionRecord] {
        var result = records
        for (position, record) in records.enumerated() where record.isOpen {
            let (_, tail) = try await readWithTail("reading a session's counters", of: record.id) { _ in () }
            if let counts = tail.counts { result[position].counts = counts }
        }
        return result
    }

    /// One session by its full id.
    public func session(id: UUID) async throws(StoreError) -> SessionRecord {
        try await session(idPrefix: id.uuidString.lowercased())
    }

    /// One session by its id or a unique prefix of it (any case, dashes as printed).
    public func session(idPrefix: String) async throws(StoreError) -> SessionRecord {
        let prefix = idPrefix.lowercased()
        guard !prefix.isEmpty, prefix.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw StoreError(
                .notFound, "'\(idPrefix)' is not a session id or prefix: ids are hex digits and dashes")
        }
        // Hex digits and dashes only: nothing in the prefix is a LIKE wildcard.
        let request = SessionRow.withSensorKind().filter(SessionRow.Columns.id.like(prefix + "%"))
            .order(SessionRow.Columns.startedAt.desc).limit(11)
        let matches = try await read("finding a session") { db in try SessionRow.records(request, db) }
        switch matches.count {
        case 0:
            throw StoreError(
                .notFound, "no session id starts with '\(idPrefix)': list them with `sportsensorctl sessions`")
        case 1:
            return try await withTailCounts(matches)[0]
        default:
            let shown = matches.prefix(10).map { "\($0.idText) (\($0.profile), started \($0.startedAt))" }
            let more = matches.count > 10 ? "\n  …" : ""
            throw StoreError(
                .ambiguousPrefix,
                "'\(idPrefix)' matches \(matches.count > 10 ? "more than 10" : "\(matches.count)") sessions; give more "
                    + "digits:\n  " + shown.joined(separator: "\n  ") + more)
        }
    }
}

// MARK: Recording

extension SessionStore {
    /// A recorder for an open session, continuing its event sequence and chunk numbering, and its
    /// tail segment when an earlier recorder left one.
    public func recorder<C: Clock>(
        for session: SessionRecord, configuration: SessionRecorder<C>.Configuration = .init(), clock: C,
        logger: Logger? = nil
    ) async throws(StoreError) -> SessionRecorder<C> where C.Duration == Duration {
        try refuseIfReadOnly("recording a session")
        let idText = session.idText
        let (stored, tail) = try await readWithTail("preparing a recorder", of: session.id) { db in
            try Self.storedEnds(of: idText, db)
        }
        let live = tail.segments
        guard live.count <= 1 else {
            throw StoreError(
                .database,
                "session \(idText) has \(live.count) tail segments in \(tailDirectory.path), one at most can be "
                    + "continued: restart sportsensord, whose crash recovery closes the session with all of them",
                path: path)
        }
        var resumed = live.first
        if var segment = resumed {
            // Events a compaction already stored must not be stored twice.
            for index in segment.records.indices {
                segment.records[index].events.removeAll { $0.sequence <= (stored.sequence ?? -1) }
            }
            resumed = segment
        }
        let lastSequence = max(stored.sequence ?? -1, resumed?.events.last?.sequence ?? -1)
        let open = RecordingTail(
            chunkLength: configuration.chunkLength, chunk: resumed?.header.chunk ?? (stored.chunk ?? -1) + 1,
            segment: resumed)
        return SessionRecorder(
            store: self, session: session, nextSequence: lastSequence + 1, tail: open,
            resume: resumed.map { .init(length: $0.validLength, stream: $0.stream) },
            configuration: configuration, clock: clock,
            logger: logger ?? self.logger)
    }

    /// A recorder on the continuous clock.
    public func recorder(
        for session: SessionRecord, configuration: SessionRecorder<ContinuousClock>.Configuration = .init(),
        logger: Logger? = nil
    ) async throws(StoreError) -> SessionRecorder<ContinuousClock> {
        try await recorder(for: session, configuration: configuration, clock: ContinuousClock(), logger: logger)
    }
}
