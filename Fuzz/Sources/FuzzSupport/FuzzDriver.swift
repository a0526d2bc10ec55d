// SPDX-License-Identifier: GPL-2.0-or-later

/// The signature libFuzzer calls for each input.
public typealias FuzzTestOneInput = @convention(c) (UnsafePointer<UInt8>, Int) -> CInt

/// Hands control to libFuzzer's driver.
///
/// SwiftPM links an executable target with its entry point renamed to `<module>_main`, while
/// `-sanitize=fuzzer` brings libFuzzer's own `main`; each fuzz target therefore exports its
/// renamed entry point and calls this, which runs libFuzzer with the target's callback.
public func runFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, _ body: FuzzTestOneInput
) -> CInt {
    var argc = argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return LLVMFuzzerRunDriver(&argc, &argv, body)
}

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: FuzzTestOneInput
) -> CInt
