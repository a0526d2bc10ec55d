// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import Testing

@testable import ControlAPI

/// Lists written as the client reads: the text of a page of items is written in pieces of about
/// 64 kB, the next page asked for only once the writer took the piece before, and what arrives is
/// byte for byte what the whole list encoded at once gives.
@Suite("Control API: paged downloads")
struct PagedDownloadTests {
    /// 3 000 events of every shape (flags, sides, a value that is not finite, ties in time).
    static let events: [EventRecord] = (0..<3_000).map { index in
        var event = EventRecord(
            type: "hit", t: Double(index / 2) / 8, peakG: 1.5 + Double(index % 7), intensityG: 2.25, side: "forehand")
        if index % 5 == 0 { event.quality = ["sample_gap", "clipped"] }
        if index % 11 == 0 { event.peakG = .nan }
        return event
    }

    /// `items` in pages of `size`, each made only when the body asks for it; `pager.asked` counts
    /// them.
    static func pages<Item: Sendable>(
        _ items: [Item], size: Int, pager: Pager
    ) -> AsyncThrowingStream<[Item], any Error> {
        AsyncThrowingStream {
            let start = pager.next(size: size, of: items.count)
            guard start < items.count else { return nil }
            return Array(items[start..<min(start + size, items.count)])
        }
    }

    @Test("events as JSON: the whole list's encoding byte for byte, written in pieces of about 64 kB")
    func jsonInPieces() async throws {
        let pager = Pager()
        let writer = PieceWriter()
        try await PagedDownload.jsonArray(pages: Self.pages(Self.events, size: 1_024, pager: pager)).write(writer)
        let whole = try JSONEncoder.controlAPI.encode(Self.events)
        #expect(writer.log.withLockedValue { $0.finished })
        #expect(Data(writer.text.utf8) == whole)
        let sizes = writer.log.withLockedValue { $0.sizes }
        #expect(sizes.count > 3, "more than one piece: \(sizes)")
        // A piece is written as soon as it reaches 64 kB: it is never more than that and one event.
        let longestEvent = try Self.events.map { try JSONEncoder.controlAPI.encode($0).count + 1 }.max() ?? 0
        #expect(sizes.allSatisfy { $0 < PagedDownload.pieceBytes + longestEvent }, "\(sizes)")
        #expect(pager.asked == 3)
    }

    @Test("an empty list is [] as a whole encoding gives; a CSV of none is its header")
    func empty() async throws {
        let pager = Pager()
        let json = PieceWriter()
        try await PagedDownload.jsonArray(pages: Self.pages([EventRecord](), size: 1_024, pager: pager)).write(json)
        #expect(Data(json.text.utf8) == (try JSONEncoder.controlAPI.encode([EventRecord]())))
        let csv = PieceWriter()
        try await PagedDownload.csv(header: "a,b", pages: PagedDownload.onePage([String]()), line: { $0 })
            .write(csv)
        #expect(csv.text == "a,b\n")
    }

    @Test("while the client does not read, the body holds the piece it wrote: it asks for no further page")
    func backpressure() async throws {
        let pager = Pager()
        let writer = PieceWriter(holdFirst: true)
        let body = PagedDownload.jsonArray(pages: Self.pages(Self.events, size: 1_024, pager: pager))
        let download = Task { try await body.write(writer) }
        await writer.waitUntilHeld()
        // The first page (about 100 kB of JSON) filled the first piece; the second is not read.
        #expect(pager.asked == 1)
        writer.release()
        try await download.value
        #expect(pager.asked == 3)
        #expect(Data(writer.text.utf8) == (try JSONEncoder.controlAPI.encode(Self.events)))
    }
}

/// A response body writer that keeps what is written, and can hold its first write until released
/// (a client that does not read).
final class PieceWriter: ResponseBodyWriter, Sendable {
    struct Log {
        var sizes: [Int] = []
        var bytes: [UInt8] = []
        var finished = false
        var held: CheckedContinuation<Void, Never>?
        var heldWaiter: CheckedContinuation<Void, Never>?
        var isHolding = false
        var released = false
    }

    let log = NIOLockedValueBox(Log())
    let holdFirst: Bool

    init(holdFirst: Bool = false) {
        self.holdFirst = holdFirst
    }

    var text: String { String(decoding: log.withLockedValue { $0.bytes }, as: UTF8.self) }

    func write(_ buffer: ByteBuffer) async throws {
        log.withLockedValue {
            $0.sizes.append(buffer.readableBytes)
            $0.bytes += buffer.readableBytesView
        }
        guard holdFirst else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (resume, waiter) = log.withLockedValue { log -> (Bool, CheckedContinuation<Void, Never>?) in
                guard !log.released else { return (true, nil) }
                log.held = continuation
                log.isHolding = true
                defer { log.heldWaiter = nil }
                return (false, log.heldWaiter)
            }
            waiter?.resume()
            if resume { continuation.resume() }
        }
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {
        log.withLockedValue { $0.finished = true }
    }

    /// Returns once a write is held.
    func waitUntilHeld() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = log.withLockedValue { log -> Bool in
                guard !log.isHolding else { return true }
                log.heldWaiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Lets the held write, and every later one, through.
    func release() {
        let held = log.withLockedValue { log -> CheckedContinuation<Void, Never>? in
            log.released = true
            defer { log.held = nil }
            return log.held
        }
        held?.resume()
    }
}

/// Where a paged list is: the pages asked for so far.
final class Pager: Sendable {
    private let state = NIOLockedValueBox((start: 0, asked: 0))

    /// Pages asked for (the end counts none).
    var asked: Int { state.withLockedValue { $0.asked } }

    /// The start of the next page of `size` of `count` items; `count` at the end.
    func next(size: Int, of count: Int) -> Int {
        state.withLockedValue { state in
            guard state.start < count else { return count }
            defer { state.start += size }
            state.asked += 1
            return state.start
        }
    }
}
