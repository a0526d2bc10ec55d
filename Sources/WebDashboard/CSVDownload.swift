// SPDX-License-Identifier: GPL-2.0-or-later
import ControlAPI
import Hummingbird

/// A CSV attachment written as the client reads: lines are gathered into pieces of about 64 kB
/// and each piece is written, and the writer awaited (it waits for the socket), before the next
/// page of rows is asked for. So a download holds one page of rows and one piece, whatever the
/// number of rows and the client's speed.
enum CSVDownload {
    /// Bytes gathered before a piece is written.
    static let pieceBytes = 64 * 1024

    /// The response: `header`, then a line for each item of each page of `pages`.
    static func response<Item: Sendable>(
        name: String, header: String, pages: AsyncThrowingStream<[Item], any Error>,
        line: @escaping @Sendable (Item) -> String
    ) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8", .contentDisposition: "attachment; filename=\"\(name)\"",
            ],
            body: ResponseBody { writer in
                var piece = header + "\n"
                for try await page in pages {
                    for item in page {
                        piece += line(item) + "\n"
                        guard piece.utf8.count >= pieceBytes else { continue }
                        try await writer.write(ByteBuffer(string: piece))
                        piece = ""
                    }
                }
                if !piece.isEmpty { try await writer.write(ByteBuffer(string: piece)) }
                try await writer.finish(nil)
            })
    }

    /// `items` as a stream of one page: for lists already bounded where they are read.
    static func onePage<Item: Sendable>(_ items: [Item]) -> AsyncThrowingStream<[Item], any Error> {
        AsyncThrowingStream { continuation in
            continuation.yield(items)
            continuation.finish()
        }
    }
}
