// SPDX-License-Identifier: GPL-2.0-or-later

/// Copying a coder's state into a stream whose tables are already allocated. A segment writer
/// encodes each record on a second stream and keeps it only when the record is written whole;
/// assigning the state would share every probability table, and the record's first decisions
/// would then copy each of them again (about 40 allocations a record, one record per session and
/// second).
extension SampleStream {
    /// Makes this stream equal to `other`, reusing this stream's tables: no allocation when they
    /// are not shared and have `other`'s sizes.
    package mutating func overwrite(with other: SampleStream) {
        x.overwrite(with: other.x)
        y.overwrite(with: other.y)
        z.overwrite(with: other.z)
        time.overwrite(with: other.time)
        lastIndex = other.lastIndex
        lastMicroseconds = other.lastMicroseconds
        step = other.step
    }
}

extension SampleStream.Axis {
    mutating func overwrite(with other: Self) {
        coding.overwrite(with: other.coding)
        saturation.overwrite(with: other.saturation)
    }
}

extension SampleChunkCodec.Format2Axis {
    mutating func overwrite(with other: Self) {
        history = other.history
        selection.overwrite(with: other.selection)
        model.overwrite(with: other.model)
    }
}

extension SampleChunkCodec.ResidualModel {
    mutating func overwrite(with other: Self) {
        guard maxClass == other.maxClass else {
            self = other
            return
        }
        mean = other.mean
        atLeastExpected.overwrite(with: other.atLeastExpected)
        up.overwrite(with: other.up)
        down.overwrite(with: other.down)
        firstMantissa.overwrite(with: other.firstMantissa)
        secondMantissa.overwrite(with: other.secondMantissa)
    }
}

extension Array where Element: BitwiseCopyable {
    /// Copies `other`'s elements into this array's own storage when the counts match.
    mutating func overwrite(with other: [Element]) {
        guard count == other.count else {
            self = other
            return
        }
        withUnsafeMutableBufferPointer { target in
            other.withUnsafeBufferPointer { source in _ = target.update(fromContentsOf: source) }
        }
    }
}
