// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GRDB
import SDUSensor

/// A row of `sample_chunks`: up to `chunkLength` consecutive samples of a session, with a summary
/// for queries. The samples are either in `data`, encoded by `SampleChunkCodec` (imports, and
/// stores before schema 7), or, when `file` is set, in that sealed tail segment file of the
/// store's tail directory, the form a recording writes once (Docs/FORMATS.md, "Sample chunks").
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
    static func write(_ samples: [StoredSample], number: Int64, session: String, _ db: Database) throws {
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

    /// Registers a sealed tail segment as chunk `number`, holding `samples` (the segment's): the row
    /// names the file and carries no BLOB, so the chunk is not written again. `OR REPLACE`: crash
    /// recovery may register a segment whose commit it cannot tell happened.
    static func register(
        file name: String, samples: [StoredSample], number: Int64, session: String, _ db: Database
    ) throws {
        let summary = SampleChunkCodec.summary(of: samples)
        let statement = try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO sample_chunks (session_id, chunk, first_index, sample_count, first_time,
                    time_step, last_time, codec_version, data, file)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, X'', ?)
                """)
        try statement.execute(arguments: [
            session, number, summary.firstIndex, summary.count, summary.firstTime, summary.timeStep,
            samples.last?.t ?? summary.firstTime, Int(SampleChunkCodec.version), name,
        ])
    }

    /// The chunk's samples, from its BLOB or its sealed segment file in `directory`: the one place
    /// the store's samples are decoded. A file that is missing, belongs to another chunk, or holds
    /// fewer samples than the row says (a damaged record) is an error, never a shorter chunk.
    func samples(in directory: TailDirectory) throws(StoreError) -> [StoredSample] {
        guard let file else {
            do { return try SampleChunkCodec.decode([UInt8](data)) } catch {
                throw StoreError(
                    .badChunk, "sample chunk \(chunk) of session \(sessionID) cannot be decoded: \(error)",
                    path: directory.path, cause: error)
            }
        }
        let path = directory.path + "/" + file
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw StoreError(
                .badChunk,
                "the file of sample chunk \(chunk) of session \(sessionID) is missing or unreadable: restore "
                    + "the store's -tail directory from the backup it came with (Docs/OPERATIONS.md)",
                path: path)
        }
        let segment: TailSegment
        do { segment = try TailSegment(parsing: [UInt8](bytes)) } catch {
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
    public func samples(of id: UUID) async throws(StoreError) -> [StoredSample] {
        let idText = id.uuidString.lowercased()
        let (chunks, tail) = try await readWithTail("reading samples", of: id) { db in
            try ChunkRow.filter(ChunkRow.Columns.sessionID == idText).order(ChunkRow.Columns.chunk).fetchAll(db)
        }
        var samples: [StoredSample] = []
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

/// The store's time resolution for re-analysis: one microsecond.
///
/// The chunk codec keeps times within 0.5 µs (Docs/FORMATS.md), so times that are whole
/// microseconds come back exactly after rounding to the microsecond, unless one falls exactly
/// half-way, which `SessionStore.exactChunkLength(for:)` avoids. Detection that runs on times
/// rounded this way (live, at import and when re-analysing) therefore sees the same samples
/// every time and reports the same events.
public enum StoreTime {
    /// `t` rounded to the nearest whole microsecond (half away from zero, as the CSV writer rounds).
    @inlinable public static func microseconds(_ t: Double) -> Double {
        guard t.isFinite else { return t }
        return (t * 1e6).rounded(.toNearestOrAwayFromZero) / 1e6
    }
}

extension SessionStore {
    /// Chunk lengths `exactChunkLength(for:)` tries for `count` samples, the default first: even
    /// ones near it (every full chunk then spans an odd number of indices, which cannot tie), then,
    /// for a recording that fits one chunk, lengths just below its size, which cut it in two.
    static func exactChunkCandidates(count: Int) -> [Int] {
        var lengths = Array(stride(from: 8192, through: 8192 - 2 * 63, by: -2))
        if count <= 8192 {
            lengths += stride(from: count - 1, through: max(1, count - 64), by: -1).filter { $0 > 0 }
        }
        return lengths
    }

    /// A chunk length for `importSession(…, chunkLength:)` with which every sample comes back
    /// from the store exactly (counts always; times after `StoreTime.microseconds`, given times
    /// that are whole microseconds), checked by encoding and decoding each chunk as the store
    /// will. A chunk's times come back off by a microsecond only when one sits exactly half-way
    /// between the chunk's linear time base and the next microsecond, which depends on how the
    /// samples are cut into chunks; the first length that avoids it wins, else the default.
    public static func exactChunkLength(for samples: [StoredSample]) -> Int {
        for length in exactChunkCandidates(count: samples.count)
        where roundTripsExactly(samples, chunkLength: length) {
            return length
        }
        return 8192
    }

    /// The samples exactly as the store gives them back after `importSession(…, chunkLength:)`
    /// (each chunk encoded and decoded), times rounded to the microsecond: what detection must see
    /// at import for `reanalyze` to reproduce its events, whatever the chunking.
    public static func storedForm(of samples: [StoredSample], chunkLength: Int) -> [StoredSample] {
        var result: [StoredSample] = []
        result.reserveCapacity(samples.count)
        var start = 0
        let length = max(chunkLength, 1)
        while start < samples.count {
            let end = min(start + length, samples.count)
            let chunk = samples[start..<end]
            // A chunk the codec wrote always decodes; the original is the best answer if it did not.
            let decoded = (try? SampleChunkCodec.decode(SampleChunkCodec.encode(chunk))) ?? Array(chunk)
            result += decoded.map { StoredSample(index: $0.index, t: StoreTime.microseconds($0.t), raw: $0.raw) }
            start = end
        }
        return result
    }

    /// True when every chunk of `samples` cut at `chunkLength` decodes to the same counts,
    /// indices and microsecond-rounded times.
    static func roundTripsExactly(_ samples: [StoredSample], chunkLength: Int) -> Bool {
        var start = 0
        while start < samples.count {
            let end = min(start + chunkLength, samples.count)
            let chunk = samples[start..<end]
            guard let decoded = try? SampleChunkCodec.decode(SampleChunkCodec.encode(chunk)),
                decoded.count == chunk.count
            else { return false }
            for (original, back) in zip(chunk, decoded) {
                guard original.index == back.index, original.raw == back.raw,
                    StoreTime.microseconds(original.t) == StoreTime.microseconds(back.t)
                else { return false }
            }
            start = end
        }
        return true
    }
}
