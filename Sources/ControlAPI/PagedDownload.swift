// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import Hummingbird

/// A download of a list written as the client reads: the items' text is gathered into pieces of
/// about 64 kB and each piece is written, and the writer awaited (it waits for the socket), before
/// the next page of items is asked for. A download so holds one page of items (what its source
/// reads at a time, e.g. `SessionStore.eventsPerPage` events) and one piece, whatever the number
/// of items and the client's speed. The CSV and the JSON downloads of events, sessions and the
/// leaderboard are all written through it.
public enum PagedDownload {
    /// Bytes gathered before a piece is written.
    public static let pieceBytes = 64 * 1024

    /// `opening`, the text of each item of each page of `pages` with `separator` between two
    /// items, then `closing`.
    public static func body<Item: Sendable>(
        opening: String, separator: String = "", closing: String = "",
        pages: AsyncThrowingStream<[Item], any Error>, text: @escaping @Sendable (Item) throws -> String
    ) -> ResponseBody {
        ResponseBody { writer in
            var piece = opening
            var first = true
            for try await page in pages {
                for item in page {
                    if !first { piece += separator }
                    first = false
                    piece += try text(item)
                    guard piece.utf8.count >= pieceBytes else { continue }
                    try await writer.write(ByteBuffer(string: piece))
                    piece = ""
                }
            }
            piece += closing
            if !piece.isEmpty { try await writer.write(ByteBuffer(string: piece)) }
            try await writer.finish(nil)
        }
    }

    /// A CSV: `header`, then `line` of each item, each ended by a newline.
    public static func csv<Item: Sendable>(
        header: String, pages: AsyncThrowingStream<[Item], any Error>,
        line: @escaping @Sendable (Item) -> String
    ) -> ResponseBody {
        body(opening: header + "\n", pages: pages) { line($0) + "\n" }
    }

    /// A JSON array of the items, byte for byte what `JSONEncoder.controlAPI` makes of the whole
    /// list (it writes an array as its elements' texts between brackets, comma-separated).
    public static func jsonArray<Item: Encodable & Sendable>(
        pages: AsyncThrowingStream<[Item], any Error>
    ) -> ResponseBody {
        let encoder = JSONEncoder.controlAPI
        return body(opening: "[", separator: ",", closing: "]", pages: pages) { item in
            String(decoding: try encoder.encode(item), as: UTF8.self)
        }
    }

    /// `items` as a stream of one page: for lists already bounded where they are read.
    public static func onePage<Item: Sendable>(_ items: [Item]) -> AsyncThrowingStream<[Item], any Error> {
        AsyncThrowingStream { continuation in
            continuation.yield(items)
            continuation.finish()
        }
    }
}
