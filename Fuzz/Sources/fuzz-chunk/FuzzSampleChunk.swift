// SPDX-License-Identifier: GPL-2.0-or-later
import FuzzSupport
import SessionStore

/// libFuzzer entry point: the input is a stored sample chunk as a damaged or foreign database
/// could hold it. Decoding must succeed or throw `DecodeError`, never trap; whatever decodes must
/// encode and decode again to the same samples (indices and counts exactly; times bit for bit when
/// the codec keeps them as whole microseconds, else to its 0.5 µs plus float rounding).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSampleChunk(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let samples = try? SampleChunkCodec.decode(bytes) else { return 0 }
    let again = try? SampleChunkCodec.decode(SampleChunkCodec.encode(samples))
    guard let again else { preconditionFailure("a decoded chunk did not survive re-encoding") }
    precondition(again.count == samples.count, "re-encoding changed the sample count")
    let exact = SampleChunkCodec.keepsTimesExactly(samples)
    for (a, b) in zip(samples, again) {
        precondition(a.index == b.index && a.raw == b.raw, "re-encoding changed a sample")
        // Past ~10^8 s a Double's own spacing exceeds the codec's 0.5 µs: allow a few of its ulps.
        let rounding = 5.1e-7 + 4 * max(abs(a.t), abs(b.t)).ulp
        precondition(a.t == b.t || abs(a.t - b.t) <= rounding || (a.t.isNaN && b.t.isNaN), "re-encoding moved a time")
        precondition(!exact || a.t.bitPattern == b.t.bitPattern, "re-encoding moved a whole microsecond")
    }
    return 0
}

/// Entry point under SwiftPM's renamed `main` (see `runFuzzer`).
@_cdecl("fuzz_chunk_main")
public func fuzzSampleChunkMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzzSampleChunk)
}
