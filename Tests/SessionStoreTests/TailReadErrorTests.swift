// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import SDUSensor
import Testing

@testable import SessionStore
@testable import StoreFormats

/// A tail segment that cannot be read is not the end of the session's tail: the scan reports it
/// and reads the segments after it.
@Suite("Session store: unreadable tail segments")
struct TailReadErrorTests {
    @Test("chunk 1 unreadable (EISDIR): chunks 0 and 2 are read, chunk 1 is reported with its errno")
    func unreadableSegment() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = TailDirectory(databasePath: temporary.databasePath)
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let session = UUID()
        let samples = SyntheticMotion.training(count: 300, seed: 4)
        for chunk in [Int64(0), 2] {
            let record = SessionTailSegment.Record(
                ordinal: 0, samples: Array(samples[Int(chunk) * 100..<Int(chunk) * 100 + 100]), events: [],
                counts: nil, ending: nil)
            let bytes = SessionTailSegment.encode(SessionTailSegment.Header(session: session, chunk: chunk), [record])
            #expect(
                FileManager.default.createFile(
                    atPath: directory.filePath(session: session, chunk: chunk),
                    contents: Data(bytes)))
        }
        // What the scan met before at chunk 1 (a file it could not read) ended it there.
        try FileManager.default.createDirectory(
            atPath: directory.filePath(session: session, chunk: 1), withIntermediateDirectories: false)
        var problems: [(String, String)] = []
        let found = directory.segments(of: session, after: nil) { problems.append(($0, $1)) }
        #expect(found.map(\.header.chunk) == [0, 2])
        #expect(found.last?.samples == Array(samples[200..<300]))
        #expect(problems.count == 1)
        #expect(problems.first?.0 == directory.filePath(session: session, chunk: 1))
        #expect(problems.first?.1.contains("read") == true, "\(problems)")
    }
}
