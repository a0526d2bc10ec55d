// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import FuzzSupport

/// libFuzzer entry point: advertising data and the HCI advertising reports that carry it must
/// parse or throw `WireError`, never trap; advertising data that parses re-encodes to a form
/// that parses back to the same structures.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAdvertising(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let advertising = try? AdvertisingData(parsing: bytes) {
        var encoded: [UInt8] = []
        advertising.encode(into: &encoded)
        guard let again = try? AdvertisingData(parsing: encoded), again == advertising else {
            fatalError("advertising data \(bytes) re-encoded to \(encoded), which does not parse back the same")
        }
        _ = (advertising.localName, advertising.serviceUUIDs, advertising.txPower, advertising.manufacturerData)
    }
    // The same bytes as an HCI event: LE advertising reports (legacy and extended) and their data.
    if let event = try? HCIEventPacket(parsing: bytes), let meta = try? HCILEMetaEvent(event) {
        if let report = try? HCILEAdvertisingReportEvent(meta) {
            for entry in report.reports { _ = try? entry.advertisingData() }
        }
        if let report = try? HCILEExtendedAdvertisingReportEvent(meta) {
            for entry in report.reports { _ = try? entry.advertisingData() }
        }
    }
    return 0
}

/// Entry point under SwiftPM's renamed `main` (see `runFuzzer`).
@_cdecl("fuzz_ad_main")
public func fuzzAdvertisingMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzzAdvertising)
}
