// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GatewayTesting
import SDUSensor
import Testing

@Suite("SDU accelerometer payload")
struct SDUPayloadTests {
    /// One sample: header 0x0102, x = +1 g, y = −1 g, z = full scale.
    static let oneSample = [UInt8](hex: "0201 0040 00c0 ff7f")
    /// Three samples fill a 20-byte notification (the default ATT_MTU of 23 minus 3).
    static let threeSamples = [UInt8](hex: "feff 0100 0200 0300 ffff feff fdff 0080 ff7f 0000")

    @Test("one-sample fixture")
    func one() throws {
        let payload = try SDUPayload(parsing: Self.oneSample)
        #expect(payload.header == 0x0102)
        #expect(payload.samples == [RawAcceleration(x: 16384, y: -16384, z: 32767)])
    }

    @Test("three samples in 20 bytes, header read little-endian")
    func three() throws {
        #expect(Self.threeSamples.count == 20)
        let payload = try SDUPayload(parsing: Self.threeSamples)
        #expect(payload.header == 65534)
        #expect(
            payload.samples == [
                RawAcceleration(x: 1, y: 2, z: 3), RawAcceleration(x: -1, y: -2, z: -3),
                RawAcceleration(x: .min, y: .max, z: 0),
            ])
    }

    @Test("40 samples (242 bytes) fit the 244-byte value of a 247-byte ATT_MTU")
    func large() throws {
        var bytes: [UInt8] = [0x34, 0x12]
        for i in 0..<40 {
            bytes.appendInt16LE(Int16(i))
            bytes.appendInt16LE(Int16(-i))
            bytes.appendInt16LE(Int16(i * 100))
        }
        let payload = try SDUPayload(parsing: bytes)
        #expect(payload.header == 0x1234)
        #expect(payload.samples.count == 40)
        #expect(payload.samples[39] == RawAcceleration(x: 39, y: -39, z: 3900))
    }

    @Test("full scale converts to ±2 g at 16384 counts per g")
    func fullScale() throws {
        let payload = try SDUPayload(parsing: Self.threeSamples)
        let clipped = AccelerationSample(t: 0, raw: payload.samples[2])
        #expect(clipped.x == -2.0)
        #expect(clipped.y == 32767.0 / 16384.0)
        #expect(clipped.y == SDUProfile.fullScaleG)
        #expect(abs(clipped.y - 1.99994) < 0.000_01)
        let one = AccelerationSample(t: 0, raw: try SDUPayload(parsing: Self.oneSample).samples[0])
        #expect(one.x == 1.0 && one.y == -1.0)
    }

    @Test("a header-only notification (k = 0) is malformed")
    func headerOnly() {
        let error = #expect(throws: WireError.self) { try SDUPayload(parsing: [UInt8](hex: "0100")) }
        #expect(error?.code == .wrongLength)
        #expect(error?.message.contains("2 byte") == true)
    }

    @Test(
        "every length other than 2 + 6k is wrongLength naming the length", arguments: [0, 1, 3, 7, 9, 13, 15, 19, 21])
    func wrongLengths(length: Int) {
        let bytes = [UInt8](repeating: 0x5A, count: length)
        let error = #expect(throws: WireError.self) { try SDUPayload(parsing: bytes) }
        #expect(error?.code == .wrongLength)
        #expect(error?.message.contains("of \(length) byte") == true)
        var called = false
        let fast = #expect(throws: WireError.self) { try SDUPayload.forEachSample(in: bytes) { _ in called = true } }
        #expect(fast == error)
        #expect(!called)
    }

    @Test("truncated fixtures are rejected at every cut")
    func truncated() {
        for cut in 0..<Self.threeSamples.count where cut != 8 && cut != 14 {
            let error = #expect(throws: WireError.self) { try SDUPayload(parsing: Self.threeSamples.prefix(cut)) }
            #expect(error?.code == .wrongLength)
        }
        // Cuts at a sample boundary are well-formed, shorter notifications.
        #expect((try? SDUPayload(parsing: Self.threeSamples.prefix(14)))?.samples.count == 2)
    }

    @Test("encode reproduces the fixtures")
    func encode() throws {
        for fixture in [Self.oneSample, Self.threeSamples] {
            var bytes: [UInt8] = [0xAA]
            try SDUPayload(parsing: fixture).encode(into: &bytes)
            #expect(bytes == [0xAA] + fixture)
        }
        var headerOnly: [UInt8] = []
        SDUPayload(header: 7, samples: []).encode(into: &headerOnly)
        #expect(headerOnly.hexString == "0700")
    }

    @Test("parsing a slice with a non-zero start index")
    func slice() throws {
        let framed = [UInt8](hex: "ffff") + Self.oneSample + [0xEE]
        let payload = try SDUPayload(parsing: framed[2..<(2 + Self.oneSample.count)])
        #expect(payload == (try SDUPayload(parsing: Self.oneSample)))
    }

    @Test("the fast path yields the same header and samples")
    func fastPath() throws {
        var seen: [RawAcceleration] = []
        let header = try SDUPayload.forEachSample(in: Self.threeSamples) { seen.append($0) }
        let parsed = try SDUPayload(parsing: Self.threeSamples)
        #expect(header == parsed.header)
        #expect(seen == parsed.samples)
        seen.removeAll()
        let rawHeader = try Self.threeSamples.withUnsafeBytes { raw throws(WireError) in
            try SDUPayload.forEachSample(in: raw) { seen.append($0) }
        }
        #expect(rawHeader == parsed.header)
        #expect(seen == parsed.samples)
    }

    @Test("random bytes never trap, and parse exactly when the length is 2 + 6k, k ≥ 1")
    func randomBytes() {
        var random = SeededRandom(seed: 7)
        for _ in 0..<2000 {
            let length = Int.random(in: 0...64, using: &random)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let valid = length >= 8 && (length - 2) % 6 == 0
            let parsed = try? SDUPayload(parsing: bytes)
            #expect((parsed != nil) == valid)
            if let parsed {
                var again: [UInt8] = []
                parsed.encode(into: &again)
                #expect(again == bytes)
            }
        }
    }

    @Test("SeededRandom is SplitMix64 and reproducible")
    func seededRandom() {
        var a = SeededRandom(seed: 0)
        #expect(a.next() == 0xE220_A839_7B1D_CDAF)
        var b = SeededRandom(seed: 1234)
        var c = SeededRandom(seed: 1234)
        #expect((0..<10).map { _ in b.next() } == (0..<10).map { _ in c.next() })
    }
}
