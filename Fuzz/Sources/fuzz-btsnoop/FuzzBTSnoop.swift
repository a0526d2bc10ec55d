// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import FuzzSupport

/// libFuzzer entry point: any file must read as btsnoop records (or a `WireError`), and the
/// records must go through connection tracking, L2CAP reassembly and ATT parsing without a trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBTSnoop(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let capture = try? BTSnoopCapture(parsing: bytes) else { return 0 }
    var extractor = CaptureATTExtractor()
    for record in capture.records {
        for captured in extractor.push(record) {
            _ = try? ATTPDU(parsing: captured.pdu)
        }
    }
    return 0
}

/// Entry point under SwiftPM's renamed `main` (see `runFuzzer`).
@_cdecl("fuzz_btsnoop_main")
public func fuzzBTSnoopMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzzBTSnoop)
}
