// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor
import Testing

@testable import SessionStore
@testable import StoreFormats

@Suite("Sample chunks: the microsecond line's exactness promise")
struct MicrosecondLineTests {
    /// A count of microseconds has no sign of zero: −0.0 s is the same instant as 0 but not the same
    /// bits, so the line must not claim to keep it (found by fuzz-chunk).
    @Test("a time of −0.0 is not taken as a whole microsecond, so the chunk does not promise its bits")
    func negativeZero() throws {
        let raw = RawAcceleration(x: 1, y: 2, z: 3)
        #expect(MicrosecondLine.wholeMicroseconds(-0.0) == nil)
        #expect(MicrosecondLine.wholeMicroseconds(0.0) == 0)
        let samples = [
            IndexedSample(index: 0, t: -0.0, raw: raw), IndexedSample(index: 1, t: 0.01, raw: raw),
            IndexedSample(index: 2, t: 0.02, raw: raw),
        ]
        #expect(!SampleChunkCodec.keepsTimesExactly(samples))
        let decoded = try SampleChunkCodec.decode(SampleChunkCodec.encode(samples))
        // What the linear modes promise: every time within half a microsecond (−0.0 comes back as +0.0).
        for (a, b) in zip(samples, decoded) { #expect(abs(a.t - b.t) <= 5e-7 && a.index == b.index && a.raw == b.raw) }
    }
}
