// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import StoreFormats
import SystemCalls
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a store keeps its tail segments: `<database>-tail/<session id>.<chunk>.tail`, next to
/// the database's `-wal` (Docs/ARCHITECTURE.md, "Session store"). A segment is a recording's open
/// chunk until it is sealed and a `sample_chunks` row names it; then it is that chunk's samples.
struct TailDirectory: Sendable {
    /// One segment file found in the directory.
    struct Entry: Sendable, Hashable {
        var session: UUID
        var chunk: Int64
        var path: String
    }

    /// The directory.
    let path: String

    init(databasePath: String) { path = databasePath + "-tail" }

    func filePath(session: UUID, chunk: Int64) -> String {
        path + "/" + fileName(session: session, chunk: chunk)
    }

    /// A segment's name in the directory, as a chunk row stores it.
    func fileName(session: UUID, chunk: Int64) -> String {
        session.uuidString.lowercased() + ".\(chunk).tail"
    }

    /// Bytes of file `name` (0 when it is missing).
    func fileSize(_ name: String) -> Int64 {
        var status = stat()
        guard stat(path + "/" + name, &status) == 0 else { return 0 }
        return Int64(status.st_size)
    }

    /// Makes the directory's entries durable: a sealed segment's name must be on disk before the
    /// row that names it commits.
    func sync() throws(StoreError) {
        let descriptor: Int32
        switch syscall("open", { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }) {
        case .success(let opened): descriptor = opened
        case .failure(let errno): throw TailSegmentWriter.failure(errno, path, "open the tail directory")
        }
        defer { _ = syscall("close", retryingOnEINTR: false) { close(descriptor) } }
        if case .failure(let errno) = syscall("fsync", { fsync(descriptor) }) {
            throw TailSegmentWriter.failure(errno, path, "sync the tail directory")
        }
    }

    /// Every segment file, by session and chunk. A missing directory has none; files that are not
    /// named like a segment are not ours and are left alone.
    func entries() -> [Entry] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return [] }
        return names.compactMap { name -> Entry? in
            let parts = name.split(separator: ".")
            guard parts.count == 3, parts[2] == "tail", let session = UUID(uuidString: String(parts[0])),
                let chunk = Int64(parts[1])
            else { return nil }
            return Entry(session: session, chunk: chunk, path: path + "/" + name)
        }
        .sorted { ($0.session.uuidString, $0.chunk) < ($1.session.uuidString, $1.chunk) }
    }

    /// The segments of `session` with a chunk number above `after`, in chunk order: the rows not in
    /// the database yet. They are numbered without gaps (a recorder opens chunk n + 1 once chunk n
    /// is sealed), so they are found by name, without listing a directory that also holds every
    /// sealed chunk, up to the first number with no file. A segment that cannot be read (an I/O
    /// error) or parsed is skipped and reported through `damaged` with what was wrong: the ones
    /// after it are still read.
    func segments(
        of session: UUID, after: Int64?, damaged: (String, String) -> Void = { _, _ in }
    ) -> [SessionTailSegment] {
        var found: [SessionTailSegment] = []
        var chunk = (after ?? -1) + 1
        while true {
            let file = filePath(session: session, chunk: chunk)
            switch WholeFileReader.contents(of: file) {
            case .success(nil):
                return found
            case .success(let bytes?):
                do {
                    let segment = try SessionTailSegment(parsing: bytes)
                    if segment.header.session == session, segment.header.chunk == chunk { found.append(segment) }
                } catch {
                    damaged(file, error.message)
                }
            case .failure(let failure):
                damaged(file, "cannot read it (\(failure))")
            }
            chunk += 1
        }
    }

    /// The events numbered `sequences` in segment `chunk` of `session`, read back for its
    /// compaction (the recorder keeps only their numbers). Throws when the segment cannot be read
    /// or lacks one of them: the flush fails and is retried, its rows kept.
    func events(
        session: UUID, chunk: Int64, sequences: ClosedRange<Int64>
    ) throws(StoreError) -> [SequencedEvent] {
        let file = filePath(session: session, chunk: chunk)
        let fix = "restart sportsensord, whose crash recovery stores what the segment holds"
        let bytes: [UInt8]
        switch WholeFileReader.contents(of: file) {
        case .success(let read?): bytes = read
        case .success(nil):
            throw StoreError(
                .corrupt, "the tail segment \(file) with the events \(sequences) is gone: \(fix)", path: file)
        case .failure(let failure):
            throw StoreError(
                .permission, "cannot read the tail segment \(file) (\(failure)): check the state directory",
                path: file, cause: failure)
        }
        let segment: SessionTailSegment
        do {
            segment = try SessionTailSegment(parsing: bytes, decodingSamples: false)
        } catch {
            throw StoreError(
                .corrupt, "the tail segment \(file) cannot be read back (\(error.message)): \(fix)", path: file,
                cause: error)
        }
        let events = segment.events.filter { sequences.contains($0.sequence) }
        guard events.count == sequences.count else {
            throw StoreError(
                .corrupt,
                "the tail segment \(file) holds \(events.count) of the events \(sequences) it was given: \(fix)",
                path: file)
        }
        return events
    }

    /// Deletes a segment; one already gone is fine.
    func remove(_ file: String) throws(StoreError) {
        switch syscall("unlink", { unlink(file) }) {
        case .success, .failure(.noSuchFileOrDirectory):
            return
        case .failure(let errno):
            throw StoreError(
                .permission,
                "cannot delete the tail segment \(file) (\(errno)): check the state directory's permissions",
                path: file, cause: errno)
        }
    }
}

/// A tail segment open for appending. Appends go at `length`, the end of the last whole record,
/// so a record torn by a failed write is cut off (or overwritten) and never followed by another.
struct TailSegmentWriter: Sendable {
    let descriptor: Int32
    let chunk: Int64
    let path: String
    private(set) var length: Int
    /// The samples' coder after the last record written: the next record continues it.
    private(set) var stream: SampleStream
    /// Where `append` encodes a record before it is written whole; its tables stay allocated
    /// from one record to the next (`SampleStream.overwrite(with:)`).
    private var scratch = SampleStream()

    /// Creates (or empties) segment `header.chunk` and writes its header with the first record.
    static func create(
        in directory: TailDirectory, header: SessionTailSegment.Header, first record: SessionTailSegment.Record
    ) throws(StoreError) -> TailSegmentWriter {
        switch syscall("mkdir", { mkdir(directory.path, 0o750) }) {
        case .success, .failure(.fileExists): break
        case .failure(let errno): throw failure(errno, directory.path, "create the tail directory")
        }
        let file = directory.filePath(session: header.session, chunk: header.chunk)
        let descriptor: Int32
        switch syscall("open", { open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640) }) {
        case .success(let opened): descriptor = opened
        case .failure(let errno): throw failure(errno, file, "create the tail segment")
        }
        var writer = TailSegmentWriter(
            descriptor: descriptor, chunk: header.chunk, path: file, length: 0, stream: SampleStream())
        var bytes: [UInt8] = []
        header.encode(into: &bytes)
        var stream = writer.stream
        record.encode(stream: &stream, into: &bytes)
        do { try writer.write(bytes) } catch {
            writer.closeDescriptor()
            throw error
        }
        writer.stream = stream
        return writer
    }

    /// Reopens a segment an earlier recorder left, cutting a torn record off its end; appends
    /// continue `stream`, the coder's state after its last whole record (`SessionTailSegment.stream`).
    static func resume(
        _ file: String, chunk: Int64, validLength: Int, stream: SampleStream = SampleStream()
    ) throws(StoreError) -> TailSegmentWriter {
        let descriptor: Int32
        switch syscall("open", { open(file, O_WRONLY | O_CLOEXEC) }) {
        case .success(let opened): descriptor = opened
        case .failure(let errno): throw failure(errno, file, "reopen the tail segment")
        }
        _ = syscall("ftruncate") { ftruncate(descriptor, off_t(validLength)) }
        return TailSegmentWriter(
            descriptor: descriptor, chunk: chunk, path: file, length: validLength, stream: stream)
    }

    /// Appends one framed record. The coder moves on only when the whole record is written, so a
    /// failed append leaves the writer as it was.
    mutating func append(_ record: SessionTailSegment.Record) throws(StoreError) {
        var bytes: [UInt8] = []
        scratch.overwrite(with: stream)
        record.encode(stream: &scratch, into: &bytes)
        try write(bytes)
        swap(&stream, &scratch)
    }

    private mutating func write(_ bytes: [UInt8]) throws(StoreError) {
        var written = 0
        while written < bytes.count {
            let offset = length + written
            let result = bytes.withUnsafeBytes { buffer in
                syscall("pwrite") {
                    pwrite(descriptor, buffer.baseAddress! + written, buffer.count - written, off_t(offset))
                }
            }
            switch result {
            case .success(let count) where count > 0:
                written += count
            case .success:
                cutBack()
                throw StoreError.diskFull(path: path, cause: Errno.noSpace)
            case .failure(let errno):
                cutBack()
                throw Self.failure(errno, path, "append to the tail segment")
            }
        }
        length += bytes.count
    }

    /// Drops a partly written record, so the file ends with a whole one (best effort: the next
    /// append overwrites it anyway, and a reader stops at it).
    private func cutBack() {
        _ = syscall("ftruncate") { ftruncate(descriptor, off_t(length)) }
    }

    /// Flushes the file's data to the device: a sealed segment is a chunk before its row commits.
    func seal() throws(StoreError) {
        if case .failure(let errno) = syscall("fdatasync", { fdatasync(descriptor) }) {
            throw Self.failure(errno, path, "seal the tail segment")
        }
    }

    /// Flushes the file to the device: a spilled record must outlive the process.
    func sync() throws(StoreError) {
        if case .failure(let errno) = syscall("fsync", { fsync(descriptor) }) {
            throw Self.failure(errno, path, "sync the tail segment")
        }
    }

    func closeDescriptor() {
        _ = syscall("close", retryingOnEINTR: false) { close(descriptor) }
    }

    static func failure(_ errno: Errno, _ path: String, _ action: String) -> StoreError {
        if errno == .noSpace || errno == .diskQuotaExceeded { return StoreError.diskFull(path: path, cause: errno) }
        return StoreError(
            .permission, "cannot \(action) \(path) (\(errno)): check the state directory's permissions and disk",
            path: path, cause: errno)
    }
}
