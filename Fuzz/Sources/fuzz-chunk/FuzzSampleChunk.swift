// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import FuzzSupport
import SDUSensor
import StoreFormats

/// libFuzzer entry point: the input is a stored sample chunk as a damaged or foreign database
/// could hold it, or (starting with the `SSTS` magic) a tail segment file, whose format-2 and -3 records
/// continue one coder and carry events as tagged column values. Decoding must succeed or throw `DecodeError`, never trap; whatever decodes
/// must encode and decode again to the same samples (indices and counts exactly; times bit for bit
/// when the codec keeps them as whole microseconds, else to its 0.5 µs plus float rounding).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSampleChunk(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if bytes.starts(with: Array("SSTS".utf8)) {
        fuzzSegment(bytes)
        return 0
    }
    guard let samples = try? SampleChunkCodec.decode(bytes) else { return 0 }
    let again = try? SampleChunkCodec.decode(SampleChunkCodec.encode(samples))
    guard let again else { preconditionFailure("a decoded chunk did not survive re-encoding") }
    expectSame(samples, again, exact: SampleChunkCodec.keepsTimesExactly(samples))
    return 0
}

/// A segment's records re-encoded in the current format read back record for record, bit for bit:
/// samples (the current format keeps whole microseconds as integers and other times as raw
/// doubles) and events' columns.
func fuzzSegment(_ bytes: [UInt8]) {
    guard let records = try? TailSegmentFile.records(parsing: bytes) else { return }
    let session = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
    let encoded = TailSegmentFile.encode(session: session, chunk: 0, records: records)
    guard let again = try? TailSegmentFile.records(parsing: encoded) else {
        preconditionFailure("a re-encoded segment's header did not read")
    }
    precondition(again.count == records.count, "re-encoding a segment lost records")
    for (a, b) in zip(records, again) {
        precondition(a.samples.count == b.samples.count, "re-encoding changed a record's sample count")
        for (x, y) in zip(a.samples, b.samples) {
            precondition(
                x.index == y.index && x.raw == y.raw && x.t.bitPattern == y.t.bitPattern,
                "re-encoding changed a segment's sample")
        }
        precondition(a.events.count == b.events.count, "re-encoding changed a record's event count")
        for (x, y) in zip(a.events.joined(), b.events.joined()) {
            precondition(sameBits(x, y), "re-encoding changed an event's column")
        }
    }
}

/// Equal values, reals bit for bit (a NaN stays the same NaN).
func sameBits(_ a: ColumnValue, _ b: ColumnValue) -> Bool {
    if case .real(let x) = a, case .real(let y) = b { return x.bitPattern == y.bitPattern }
    return a == b
}

func expectSame(_ samples: [IndexedSample], _ again: [IndexedSample], exact: Bool) {
    precondition(again.count == samples.count, "re-encoding changed the sample count")
    for (a, b) in zip(samples, again) {
        precondition(a.index == b.index && a.raw == b.raw, "re-encoding changed a sample")
        // Past ~10^8 s a Double's own spacing exceeds the codec's 0.5 µs: allow a few of its ulps.
        let rounding = 5.1e-7 + 4 * max(abs(a.t), abs(b.t)).ulp
        precondition(a.t == b.t || abs(a.t - b.t) <= rounding || (a.t.isNaN && b.t.isNaN), "re-encoding moved a time")
        precondition(!exact || a.t.bitPattern == b.t.bitPattern, "re-encoding moved a whole microsecond")
    }
}

/// Entry point under SwiftPM's renamed `main` (see `runFuzzer`).
@_cdecl("fuzz_chunk_main")
public func fuzzSampleChunkMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzzSampleChunk)
}
