// SPDX-License-Identifier: GPL-2.0-or-later
import FuzzSupport
import SDUSensor

/// libFuzzer entry point: the input is a stream of notifications, each a length byte, an
/// arrival-time step byte and that many payload bytes. Every payload must decode or be counted
/// as malformed, indices must strictly increase and times never decrease, whatever the bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSDU(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    if let payload = try? SDUPayload(parsing: bytes) {
        var encoded: [UInt8] = []
        payload.encode(into: &encoded)
        precondition(encoded.elementsEqual(bytes), "SDU payload did not re-encode to its input")
    }
    var decoder = SDUStreamDecoder()
    var samples: [IndexedSample] = []
    var lastIndex: Int64 = -1
    var lastTime = -Double.infinity
    var arrival = 0.0
    var position = 0
    while position + 2 <= size {
        let length = Int(bytes[position])
        arrival += Double(bytes[position + 1]) / 1000
        position += 2
        let end = min(size, position + length)
        samples.removeAll(keepingCapacity: true)
        let outcome = decoder.decode(
            notification: bytes[position..<end], arrivalTime: arrival, into: &samples)
        precondition(outcome.sampleCount == samples.count)
        for sample in samples {
            precondition(sample.index > lastIndex, "sample index went backwards")
            precondition(sample.t >= lastTime, "sample time went backwards")
            lastIndex = sample.index
            lastTime = sample.t
        }
        position = end
    }
    let statistics = decoder.statistics
    precondition(statistics.samplesReceived >= 0 && statistics.malformedNotifications <= statistics.notifications)
    return 0
}

/// Entry point under SwiftPM's renamed `main` (see `runFuzzer`).
@_cdecl("fuzz_sdu_main")
public func fuzzSDUMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzzSDU)
}
