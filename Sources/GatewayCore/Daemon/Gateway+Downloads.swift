// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import SDUSensor
import SessionStore
import StoreFormats

/// The downloads: a session's samples CSV and its events, made as the client reads. The route
/// writes one piece and awaits the writer, which waits for the socket (backpressure), before it
/// asks for the next, so a download holds one store page and one piece whatever the session's
/// length and the client's speed. Each piece is made on `dependencies.downloads` (the daemon's
/// ``DownloadExecutor``), off the cooperative pool that serves `/v1/status` and recording.
extension Gateway {
    /// `GET /v1/sessions/{id}/samples.csv`: holds one store page (at most 65 536 samples, 1.5 MB:
    /// `SessionStore.chunksPerSamplePage`) and one 64 kB piece of text.
    public func sessionSamplesCSV(id: String) async throws(ControlError) -> AsyncThrowingStream<String, any Error> {
        let record = try await health.session(idPrefix: id, in: dependencies.store)
        let cursor = SampleCSVCursor(store: dependencies.store, session: record.id)
        return DownloadStream.make(on: dependencies.downloads) { try await cursor.next() }
    }

    /// `GET /v1/sessions/{id}/events`: a session's events in time order, one store page
    /// (`SessionStore.eventsPerPage`, 1 024 events, a few hundred kB) at a time: what the API's
    /// JSON and the dashboard's events CSV and JSON are written from.
    public func sessionEventPages(
        id: String
    ) async throws(ControlError)
        -> AsyncThrowingStream<[EventRecord], any Error>
    {
        let record = try await health.session(idPrefix: id, in: dependencies.store)
        let cursor = EventPageCursor(store: dependencies.store, session: record.id)
        return DownloadStream.make(on: dependencies.downloads) { try await cursor.next() }
    }
}

/// The state of one samples CSV download: the current store page and the position in it.
private actor SampleCSVCursor {
    static let pieceBytes = 64 * 1024

    let store: SessionStore
    let session: UUID
    private var page: [IndexedSample] = []
    private var offset = 0
    private var next: SamplePosition?
    private var started = false
    private var exhausted = false

    init(store: SessionStore, session: UUID) {
        self.store = store
        self.session = session
    }

    /// The next piece of the CSV (the header first), about 64 kB; nil at the end.
    func next() async throws -> String? {
        guard started else {
            started = true
            return SampleCSV.header + "\n"
        }
        var piece = ""
        while piece.utf8.count < Self.pieceBytes {
            if offset == page.count {
                guard !exhausted else { break }
                let loaded = try await store.samplePage(of: session, after: next)
                (page, offset, next, exhausted) = (loaded.samples, 0, loaded.next, loaded.next == nil)
                continue
            }
            piece += SampleCSV.line(page[offset].acceleration) + "\n"
            offset += 1
        }
        if offset == page.count { (page, offset) = ([], 0) }
        return piece.isEmpty ? nil : piece
    }
}

/// The position of one events download.
private actor EventPageCursor {
    let store: SessionStore
    let session: UUID
    private var position: EventPosition?
    private var exhausted = false

    init(store: SessionStore, session: UUID) {
        self.store = store
        self.session = session
    }

    /// The next page of events; nil after the last (an empty session gives one empty page).
    func next() async throws -> [EventRecord]? {
        guard !exhausted else { return nil }
        let page = try await store.eventPage(of: session, after: position)
        (position, exhausted) = (page.next, page.next == nil)
        return page.events
    }
}
