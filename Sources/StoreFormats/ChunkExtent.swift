// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// A chunk's samples as its `sample_chunks` row describes them: how many, the first and the last
/// (the row's summary and last time come from these alone). What the recorder keeps of the open
/// chunk, whose samples are in its tail segment: a few dozen bytes instead of 24 per sample.
package struct ChunkExtent: Hashable, Sendable {
    /// Number of samples.
    package private(set) var count = 0
    /// The first sample.
    package private(set) var first: IndexedSample?
    /// The last sample.
    package private(set) var last: IndexedSample?

    package init() {}

    package init(_ samples: some BidirectionalCollection<IndexedSample>) {
        append(contentsOf: samples)
    }

    package var isEmpty: Bool { count == 0 }

    /// Takes in samples that follow the ones counted so far.
    package mutating func append(contentsOf samples: some BidirectionalCollection<IndexedSample>) {
        guard let head = samples.first, let tail = samples.last else { return }
        if first == nil { first = head }
        last = tail
        count += samples.count
    }

    /// The row's summary columns, as `SampleChunkCodec.summary(of:)` gives them for the samples.
    package var summary: SampleChunkCodec.Summary { SampleChunkCodec.summary(count: count, first: first, last: last) }

    /// The row's `last_time`.
    package var lastTime: Double { last?.t ?? 0 }
}
