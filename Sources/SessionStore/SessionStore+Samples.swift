// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GRDB
import SDUSensor
import StoreFormats
import SystemCalls

/// A row of `sample_chunks`: up to `chunkLength` consecutive samples of a session, with a summary
/// for queries. The samples are either in `data`, encoded by `SampleChunkCodec` (imports, and
/// stores before schema 7), or, when `file` is set, in that sealed tail segment file of the
/// store's tail directory, the form a recording writes once (Docs/FORMATS.md, "Stored sample chunks").
/// `samples(in:)` is the one place either kind is decoded.
struct ChunkRow: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "sample_chunks"

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id"
        case chunk
        case firstIndex = "first_index"
        case sampleCount = "sample_count"
        case firstTime = "first_time"
        case timeStep = "time_step"
        case lastTime = "last_time"
        case codecVersion = "codec_version"
        case data
        case file
    }

    /// The columns.
    enum Columns {
        static let sessionID = Column(CodingKeys.sessionID)
        static let chunk = Column(CodingKeys.chunk)
        static let sampleCount = Column(CodingKeys.sampleCount)
        static let lastTime = Column(CodingKeys.lastTime)
        static let data = Column(CodingKeys.data)
        static let file = Column(CodingKeys.file)
    }

    var sessionID: String
    var chunk: Int64
    var firstIndex: Int64
    var sampleCount: Int64
    var firstTime: Double
    var timeStep: Double
    var lastTime: Double
    var codecVersion: Int
    var data: Data
    /// The sealed segment holding the samples, a name in the tail directory; nil: they are in `data`.
    var file: String?

    /// Writes one chunk through one cached statement (it runs for every closed chunk of every
    /// live session; `OR REPLACE` lets crash recovery write a chunk a compaction already wrote).
    static func write(_ samples: [IndexedSample], number: Int64, session: String, _ db: Database) throws {
        let summary = SampleChunkCodec.summary(of: samples)
        let blob = SampleChunkCodec.encode(samples)
        let statement = try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO sample_chunks (session_id, chunk, first_index, sample_count, first_time,
                    time_step, last_time, codec_version, data)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        try statement.execute(arguments: [
            session, number, summary.firstIndex, summary.count, summary.firstTime, summary.timeStep,
            samples.last?.t ?? summary.firstTime, Int(SampleChunkCodec.version), Data(blob),
        ])
    }

    /// Registers a sealed tail segment as chunk `number`, its samples described by `extent`: the row
    /// names the file and carries no BLOB, so the chunk is not written again. `OR REPLACE`: crash
    /// recovery may register a segment whose commit it cannot tell happened.
    static func register(
        file name: String, extent: ChunkExtent, number: Int64, session: String, _ db: Database
    ) throws {
        let summary = extent.summary
        let statement = try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO sample_chunks (session_id, chunk, first_index, sample_count, first_time,
                    time_step, last_time, codec_version, data, file)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, X'', ?)
                """)
        try statement.execute(arguments: [
            session, number, summary.firstIndex, summary.count, summary.firstTime, summary.timeStep,
            extent.lastTime, Int(SampleChunkCodec.version), name,
        ])
    }

    /// The chunk's samples, from its BLOB or its sealed segment file in `directory`: the one place
    /// the store's samples are decoded. A file that is missing, belongs to another chunk, or holds
    /// fewer samples than the row says (a damaged record) is an error, never a shorter chunk.
    func samples(in directory: TailDirectory) throws(StoreError) -> [IndexedSample] {
        guard let file else {
            do { return try SampleChunkCodec.decode([UInt8](data)) } catch {
                throw StoreError(
                    .badChunk, "sample chunk \(chunk) of session \(sessionID) cannot be decoded: \(error)",
                    path: directory.path, cause: error)
            }
        }
        let path = directory.path + "/" + file
        let bytes: [UInt8]
        switch WholeFileReader.contents(of: path) {
        case .success(let read?):
            bytes = read
        case .success(nil):
            throw StoreError(
                .badChunk,
                "the file of sample chunk \(chunk) of session \(sessionID) is missing: restore "
                    + "the store's -tail directory from the backup it came with (Docs/OPERATIONS.md)",
                path: path)
        case .failure(let failure):
            throw StoreError(
                .badChunk,
                "the file of sample chunk \(chunk) of session \(sessionID) cannot be read (\(failure)): check the "
                    + "disk (`dmesg`), or restore the store's -tail directory from its backup (Docs/OPERATIONS.md)",
                path: path, cause: failure)
        }
        let segment: SessionTailSegment
        do { segment = try SessionTailSegment(parsing: bytes) } catch {
            throw StoreError(
                .badChunk, "the file of sample chunk \(chunk) of session \(sessionID) cannot be read: \(error)",
                path: path, cause: error)
        }
        let samples = segment.samples
        guard segment.header.session.uuidString.lowercased() == sessionID, segment.header.chunk == chunk,
            segment.validLength == bytes.count, Int64(samples.count) == sampleCount
        else {
            throw StoreError(
                .badChunk,
                "the file of sample chunk \(chunk) of session \(sessionID) is damaged (holds \(samples.count) of "
                    + "\(sampleCount) samples, or another chunk's): restore it from a backup",
                path: path)
        }
        return samples
    }

    /// Bytes the chunk takes: its BLOB, or its file.
    func storedBytes(in directory: TailDirectory) -> Int64 {
        guard let file else { return Int64(data.count) }
        return directory.fileSize(file)
    }
}

extension SessionStore {
    /// A session's samples, decoded, in recording order: its chunks, then (while it records, or
    /// when a crash left them) the samples in its tail segments.
    public func samples(of id: UUID) async throws(StoreError) -> [IndexedSample] {
        let idText = id.uuidString.lowercased()
        let (chunks, tail) = try await readWithTail("reading samples", of: id) { db in
            try ChunkRow.filter(ChunkRow.Columns.sessionID == idText).order(ChunkRow.Columns.chunk).fetchAll(db)
        }
        var samples: [IndexedSample] = []
        let directory = tailDirectory
        for chunk in chunks { samples += try chunk.samples(in: directory) }
        return samples + tail.samples
    }

    /// A session's samples in g, with their times.
    public func accelerationSamples(of id: UUID) async throws(StoreError) -> [AccelerationSample] {
        try await samples(of: id).map(\.acceleration)
    }

    /// A session's samples as detection sees them: in g, with times rounded to the microsecond
    /// (`StoreTime`), so re-running detection reproduces the events of a run on the same samples.
    public func detectionSamples(of id: UUID) async throws(StoreError) -> [AccelerationSample] {
        try await samples(of: id).map { AccelerationSample(t: StoreTime.microseconds($0.t), raw: $0.raw) }
    }

    /// How many samples a session holds and the bytes they take (chunk BLOBs and chunk files, and
    /// the records of its tail segments while it records).
    public func sampleStorage(of id: UUID) async throws(StoreError) -> (samples: Int64, bytes: Int64) {
        let idText = id.uuidString.lowercased()
        let directory = tailDirectory
        let ((samples, bytes), tail) = try await readWithTail("measuring samples", of: id) { db in
            let request = ChunkRow.filter(ChunkRow.Columns.sessionID == idText)
                .select(total(ChunkRow.Columns.sampleCount), total(length(ChunkRow.Columns.data)))
            let row = try Row.fetchOne(db, request)
            let files = try ChunkRow.files(ChunkRow.filter(ChunkRow.Columns.sessionID == idText), db)
            let fileBytes = files.reduce(Int64(0)) { $0 + directory.fileSize($1) }
            return (Int64((row?[0] as Double?) ?? 0), Int64((row?[1] as Double?) ?? 0) + fileBytes)
        }
        return (samples + Int64(tail.samples.count), bytes + tail.bytes)
    }
}

/// The store's time resolution: one microsecond.
///
/// Times that are whole microseconds come back from the store bit for bit (format 3 keeps them as
/// integers; Docs/FORMATS.md), however the samples were cut into chunks. Detection that runs on
/// times rounded this way (live, at import and when re-analysing) therefore sees the same samples
/// every time and reports the same events. Chunks written before format 3 keep times within
/// 0.5 µs; rounding them again gives back the recorded time except at an exact half-way tie.
public enum StoreTime {
    /// `t` rounded to the nearest whole microsecond (half away from zero, as the CSV writer rounds).
    @inlinable public static func microseconds(_ t: Double) -> Double {
        guard t.isFinite else { return t }
        return (t * 1e6).rounded(.toNearestOrAwayFromZero) / 1e6
    }
}
