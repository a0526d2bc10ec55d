// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import FuzzSupport

/// libFuzzer entry point: every input must parse or throw `WireError`, never trap, and whatever
/// parses must encode back to exactly the input (the codecs are lossless).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzATT(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let pdu = try? ATTPDU(parsing: bytes) else { return 0 }
    let encoded = pdu.bytes
    // A Find Information or list response re-encodes with one width; everything else is exact.
    if encoded != bytes {
        guard let again = try? ATTPDU(parsing: encoded), again == pdu else {
            fatalError("ATT PDU \(bytes) re-encoded to \(encoded), which does not parse back to the same PDU")
        }
    }
    if let declaration = try? GATTCharacteristicDeclaration(parsing: bytes.dropFirst()) {
        precondition(declaration.bytes.count == bytes.count - 1)
    }
    return 0
}

/// Entry point under SwiftPM's renamed `main` (see `runFuzzer`).
@_cdecl("fuzz_att_main")
public func fuzzATTMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzzATT)
}
