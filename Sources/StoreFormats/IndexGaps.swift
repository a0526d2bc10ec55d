// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// Where a run of samples' indices do not advance by exactly one, as chunks and segment records
/// store it (Docs/FORMATS.md): the number of gaps, then each one's position in the run and the
/// zig-zagged number of indices skipped there.
struct IndexGaps {
    /// Each gap's position (1 or more, increasing) and the indices skipped before it.
    private(set) var gaps: [(position: Int, delta: Int64)] = []

    var isEmpty: Bool { gaps.isEmpty }

    /// No gaps: every index one more than the last.
    init() {}

    /// The gaps of `samples`.
    init(of samples: [IndexedSample]) {
        guard samples.count > 1 else { return }
        for position in 1..<samples.count {
            let delta = samples[position].index &- samples[position - 1].index
            if delta != 1 { gaps.append((position, delta &- 1)) }
        }
    }

    func encode(into out: inout [UInt8]) {
        SampleChunkCodec.appendVarint(UInt64(gaps.count), to: &out)
        for gap in gaps {
            SampleChunkCodec.appendVarint(UInt64(gap.position), to: &out)
            SampleChunkCodec.appendVarint(SampleChunkCodec.zigzag(gap.delta), to: &out)
        }
    }

    /// Reads the gaps of a run of `count` samples at `cursor` and moves past them.
    init(parsing bytes: [UInt8], _ cursor: inout Int, count: Int) throws(SampleChunkCodec.DecodeError) {
        let gapCount = try SampleChunkCodec.readVarint(bytes, &cursor)
        // Positions run from 1 to count − 1, and a gap takes at least two bytes.
        guard gapCount == 0 || gapCount < UInt64(count), gapCount <= UInt64(bytes.count / 2) else {
            throw SampleChunkCodec.DecodeError(code: .malformed, message: "\(gapCount) index gaps in \(count) samples")
        }
        var lastPosition = 0
        for _ in 0..<Int(gapCount) {
            let position = try SampleChunkCodec.readVarint(bytes, &cursor)
            guard position > UInt64(lastPosition), position < UInt64(count) else {
                throw SampleChunkCodec.DecodeError(
                    code: .malformed, message: "index gap at position \(position) out of order")
            }
            lastPosition = Int(position)
            gaps.append((lastPosition, SampleChunkCodec.unzigzag(try SampleChunkCodec.readVarint(bytes, &cursor))))
        }
    }

    /// The run's indices from `first`, one position at a time.
    func indices(from first: Int64) -> Indices { Indices(gaps: gaps, index: first) }

    /// The indices of a run, position by position.
    struct Indices {
        fileprivate let gaps: [(position: Int, delta: Int64)]
        fileprivate var index: Int64
        private var nextGap = 0

        fileprivate init(gaps: [(position: Int, delta: Int64)], index: Int64) {
            self.gaps = gaps
            self.index = index
        }

        /// The index at `position`; called for 0, 1, 2, … in turn.
        mutating func index(at position: Int) -> Int64 {
            if position > 0 {
                index = index &+ 1
                if nextGap < gaps.count, gaps[nextGap].position == position {
                    index = index &+ gaps[nextGap].delta
                    nextGap += 1
                }
            }
            return index
        }
    }
}
