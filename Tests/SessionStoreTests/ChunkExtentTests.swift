// SPDX-License-Identifier: GPL-2.0-or-later
import GatewayTesting
import SDUSensor
import Testing

@testable import SessionStore
@testable import StoreFormats

/// What the recorder keeps of the open chunk instead of its samples.
@Suite("Chunk extent")
struct ChunkExtentTests {
    @Test("taken in any pieces, it gives the row the summary and last time the samples give")
    func sameRow() {
        var random = SeededRandom(seed: 31)
        let samples = RecordedBytesTests.samples(count: 3000, seed: 31)
        for _ in 0..<20 {
            let length = Int(random.next() % 3000) + 1
            let whole = Array(samples[..<length])
            var extent = ChunkExtent()
            var rest = whole[...]
            while !rest.isEmpty {
                // Empty pieces too: a flush with events only appends no samples.
                let piece = Int(random.next() % 200)
                extent.append(contentsOf: rest.prefix(piece))
                rest = rest.dropFirst(piece)
            }
            #expect(extent == ChunkExtent(whole))
            let summary = SampleChunkCodec.summary(of: whole)
            #expect(extent.summary == summary && extent.count == length)
            #expect(extent.summary.timeStep.bitPattern == summary.timeStep.bitPattern)
            #expect(extent.lastTime.bitPattern == whole[length - 1].t.bitPattern)
        }
    }

    @Test("empty: no samples, the summary of none")
    func empty() {
        let extent = ChunkExtent([IndexedSample]())
        #expect(extent.isEmpty && extent.first == nil && extent.last == nil)
        #expect(extent.summary == SampleChunkCodec.summary(of: []))
        #expect(extent.lastTime == 0)
    }
}
