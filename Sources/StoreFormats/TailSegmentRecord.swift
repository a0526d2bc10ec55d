// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import SDUSensor

extension TailSegment {
    /// One flush's rows.
    package struct Record: Hashable, Sendable {
        /// 0-based position in the segment (a stale record past a torn one cannot pass as the next).
        package var ordinal: Int64
        /// Samples, in recording order.
        package var samples: [IndexedSample]
        /// Events, in sequence order.
        package var events: [Event]
        /// The session's counters when written, if they changed.
        package var counts: SessionCounts?
        /// How the session ended, in a record spilled because the database could not take the
        /// end: crash recovery closes the session so instead of as `interrupted`.
        package var ending: Ending?

        package init(
            ordinal: Int64, samples: [IndexedSample], events: [Event], counts: SessionCounts?,
            ending: Ending? = nil
        ) {
            self.ordinal = ordinal
            self.samples = samples
            self.events = events
            self.counts = counts
            self.ending = ending
        }

        /// Reads a payload (without its frame) of a segment of format `version`; from version 2 on
        /// its samples continue `stream`. Events are read as `Event`s from their columns.
        /// Without `decodingSamples` the samples are skipped (`samples` is empty, `stream` untouched).
        package init(
            parsing payload: [UInt8], version: UInt8, stream: inout SampleStream,
            decodingSamples: Bool = true
        ) throws(DecodeError) {
            var cursor = 0
            ordinal = Int64(bitPattern: try SampleChunkCodec.readVarint(payload, &cursor))
            let blobLength = Int(clamping: try SampleChunkCodec.readVarint(payload, &cursor))
            guard blobLength <= payload.count - cursor else {
                throw DecodeError(code: .truncated, message: "tail record ends inside its samples")
            }
            let section = Array(payload[cursor..<cursor + blobLength])
            if blobLength == 0 || !decodingSamples {
                samples = []
            } else if version == 1 {
                samples = try SampleChunkCodec.decode(section)
            } else {
                samples = try stream.decode(section, trimmed: version >= 3)
            }
            cursor += blobLength
            let eventCount = Int(clamping: try SampleChunkCodec.readVarint(payload, &cursor))
            guard eventCount <= payload.count - cursor else {
                throw DecodeError(code: .malformed, message: "tail record announces more events than it holds")
            }
            events = []
            for _ in 0..<eventCount {
                var values: [ColumnValue] = []
                for _ in 0..<TailSegment.eventColumns { values.append(try ColumnValue(parsing: payload, &cursor)) }
                guard let event = Event(segmentValues: values) else {
                    throw DecodeError(code: .malformed, message: "tail record holds an event of the wrong shape")
                }
                events.append(event)
            }
            guard cursor < payload.count else {
                throw DecodeError(code: .truncated, message: "tail record ends before its counters")
            }
            let flags = payload[cursor]
            cursor += 1
            guard flags & ~15 == 0 else {
                throw DecodeError(code: .malformed, message: "tail record has unknown flags \(flags)")
            }
            if flags & 1 == 1 {
                var counts = SessionCounts(
                    received: SampleChunkCodec.unzigzag(try SampleChunkCodec.readVarint(payload, &cursor)),
                    lost: SampleChunkCodec.unzigzag(try SampleChunkCodec.readVarint(payload, &cursor)),
                    malformed: SampleChunkCodec.unzigzag(try SampleChunkCodec.readVarint(payload, &cursor)))
                if flags & 2 == 2 { counts.sampleRate = try SampleChunkCodec.readDouble(payload, &cursor) }
                self.counts = counts
            } else {
                counts = nil
            }
            ending = nil
            if flags & 4 == 4 {
                let endedAt = Date(timeIntervalSince1970: try SampleChunkCodec.readDouble(payload, &cursor))
                let length = Int(clamping: try SampleChunkCodec.readVarint(payload, &cursor))
                guard length <= payload.count - cursor else {
                    throw DecodeError(code: .truncated, message: "tail record ends in its end reason")
                }
                let reason = String(decoding: payload[cursor..<cursor + length], as: UTF8.self)
                cursor += length
                ending = Ending(endedAt: endedAt, reason: SessionEndReason(rawValue: reason))
                if flags & 8 == 8 {
                    ending?.unsavedSamples = SampleChunkCodec.unzigzag(
                        try SampleChunkCodec.readVarint(payload, &cursor))
                }
            } else if flags & 8 == 8 {
                throw DecodeError(code: .malformed, message: "tail record counts unsaved samples without an end")
            }
            guard cursor == payload.count else {
                throw DecodeError(code: .malformed, message: "tail record has bytes after its counters")
            }
        }

        /// Appends the framed record in format 3, its samples continuing `stream`: length, CRC-32
        /// and payload.
        package func encode(stream: inout SampleStream, into out: inout [UInt8]) {
            var payload: [UInt8] = []
            SampleChunkCodec.appendVarint(UInt64(bitPattern: ordinal), to: &payload)
            var blob: [UInt8] = []
            if !samples.isEmpty { stream.encode(samples, into: &blob) }
            SampleChunkCodec.appendVarint(UInt64(blob.count), to: &payload)
            payload += blob
            SampleChunkCodec.appendVarint(UInt64(events.count), to: &payload)
            for event in events {
                for value in event.segmentValues { value.encode(into: &payload) }
            }
            let endingFlag: UInt8 = ending.map { $0.unsavedSamples == 0 ? 4 : 12 } ?? 0
            if let counts {
                payload.append((counts.sampleRate == nil ? 1 : 3) | endingFlag)
                for value in [counts.received, counts.lost, counts.malformed] {
                    SampleChunkCodec.appendVarint(SampleChunkCodec.zigzag(value), to: &payload)
                }
                if let rate = counts.sampleRate { SampleChunkCodec.appendDouble(rate, to: &payload) }
            } else {
                payload.append(endingFlag)
            }
            if let ending {
                SampleChunkCodec.appendDouble(ending.endedAt.timeIntervalSince1970, to: &payload)
                let reason = Array(ending.reason.rawValue.utf8)
                SampleChunkCodec.appendVarint(UInt64(reason.count), to: &payload)
                payload += reason
                if ending.unsavedSamples != 0 {
                    SampleChunkCodec.appendVarint(SampleChunkCodec.zigzag(ending.unsavedSamples), to: &payload)
                }
            }
            TailSegment.appendUInt32(UInt32(payload.count), to: &out)
            TailSegment.appendUInt32(CRC32.checksum(payload), to: &out)
            out += payload
        }
    }
}
