// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GRDB
import SDUSensor
import StoreFormats

/// Where a paged read of a session's samples continues: after this chunk.
public struct SamplePosition: Hashable, Sendable {
    let afterChunk: Int64
}

/// A few chunks of a session's samples, and where the next page starts (nil: this was the last).
public struct SamplePage: Sendable {
    public var samples: [IndexedSample]
    public var next: SamplePosition?
}

extension SessionStore {
    /// Chunks one page holds. A recorded chunk has at most 32 768 samples (`SessionRecorder`),
    /// an imported one 8 192, so a page holds at most 65 536 samples: 1.5 MB as `IndexedSample`s.
    public static let chunksPerSamplePage = 2

    /// A session's samples one page at a time, in recording order: pass nil for the first page,
    /// then each page's `next` until it is nil. A download or an export that goes page by page
    /// holds one page, never the whole session (`samples(of:)` decodes every chunk at once). The
    /// last page also holds the session's tail segments, read with its chunks as `samples(of:)`
    /// reads them, so a live session's pages join up without a gap or a repeat.
    public func samplePage(of id: UUID, after position: SamplePosition?) async throws(StoreError) -> SamplePage {
        let idText = id.uuidString.lowercased()
        let after = position?.afterChunk ?? -1
        let limit = Self.chunksPerSamplePage
        let directory = tailDirectory
        let rows = try await read("reading samples") { db in
            try ChunkRow.filter(ChunkRow.Columns.sessionID == idText && ChunkRow.Columns.chunk > after)
                .order(ChunkRow.Columns.chunk).limit(limit + 1).fetchAll(db)
        }
        var samples: [IndexedSample] = []
        if rows.count > limit {
            for row in rows.prefix(limit) { samples += try row.samples(in: directory) }
            return SamplePage(samples: samples, next: SamplePosition(afterChunk: rows[limit - 1].chunk))
        }
        let (chunks, tail) = try await readWithTail("reading samples", of: id) { db in
            try ChunkRow.filter(ChunkRow.Columns.sessionID == idText && ChunkRow.Columns.chunk > after)
                .order(ChunkRow.Columns.chunk).fetchAll(db)
        }
        for chunk in chunks { samples += try chunk.samples(in: directory) }
        return SamplePage(samples: samples + tail.samples, next: nil)
    }
}
