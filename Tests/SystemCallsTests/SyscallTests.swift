// SPDX-License-Identifier: GPL-2.0-or-later
import Glibc
import SystemCalls
import SystemPackage
import Testing

@Suite("syscall wrapper")
struct SyscallTests {
    @Test("EINTR is retried until the call succeeds")
    func retriesEINTR() {
        let script = SyscallScript(["probe": [.fails(.interrupted), .fails(.interrupted), .returns(7)]])
        let result = SyscallScript.$current.withValue(script) {
            syscall("probe") { Int32(-1) }
        }
        #expect(result == .success(7))
        #expect(script.calls == ["probe", "probe", "probe"])
        #expect(script.remaining(for: "probe") == 0)
    }

    @Test("any other errno is returned at once, without a retry")
    func returnsOtherErrno() {
        let script = SyscallScript(["probe": [.fails(.connectionReset), .returns(1)]])
        let result = SyscallScript.$current.withValue(script) {
            syscall("probe") { Int(-1) }
        }
        #expect(result == .failure(.connectionReset))
        #expect(script.calls == ["probe"])
        #expect(script.remaining(for: "probe") == 1)
    }

    @Test("close-style calls can opt out of the EINTR retry")
    func noRetryWhenAsked() {
        let script = SyscallScript(["close": [.fails(.interrupted), .returns(0)]])
        let result = SyscallScript.$current.withValue(script) {
            syscall("close", retryingOnEINTR: false) { Int32(-1) }
        }
        #expect(result == .failure(.interrupted))
        #expect(script.remaining(for: "close") == 1)
    }

    @Test("a real failing call returns the errno it set")
    func realErrno() {
        let result = syscall("close", retryingOnEINTR: false) { Glibc.close(-1) }
        #expect(result == .failure(.badFileDescriptor))
    }

    @Test("a real succeeding call returns its result; unscripted names run for real under a script")
    func realSuccess() {
        let script = SyscallScript(["socket": [.fails(.notPermitted)]])
        let result = SyscallScript.$current.withValue(script) {
            syscall("getpid") { Glibc.getpid() }
        }
        #expect(result == .success(Glibc.getpid()))
        #expect(script.calls == ["getpid"])
        #expect(script.remaining(for: "socket") == 1)
    }

    @Test("scripts are isolated per task: concurrent tasks see only their own outcomes")
    func isolatedPerTask() async {
        let results = await withTaskGroup(of: (Int, [Result<Int32, Errno>], [String]).self) { group in
            for index in 0..<8 {
                group.addTask {
                    let outcomes = (0..<50).map { SyscallOutcome.returns(index * 1000 + $0) }
                    let script = SyscallScript(["probe": outcomes])
                    var seen: [Result<Int32, Errno>] = []
                    await SyscallScript.$current.withValue(script) {
                        for _ in 0..<50 {
                            seen.append(syscall("probe") { Int32(-1) })
                            await Task.yield()
                        }
                    }
                    return (index, seen, script.calls)
                }
            }
            var all: [(Int, [Result<Int32, Errno>], [String])] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 8)
        for (index, seen, calls) in results {
            #expect(seen == (0..<50).map { .success(Int32(index * 1000 + $0)) })
            #expect(calls.count == 50)
        }
        #expect(SyscallScript.current == nil)
    }
}

@Suite("syscall wrapper: recorded inputs and scripted outputs")
struct SyscallBufferTests {
    @Test("a script records the input bytes of each call and fills the output of returns(_:writing:)")
    func inputsAndOutputs() {
        let script = SyscallScript(["probe": [.returns(3, writing: [0xAA, 0xBB, 0xCC, 0xDD])]])
        var output: [UInt8] = [0, 0]
        let input: [UInt8] = [1, 2, 3]
        let result = SyscallScript.$current.withValue(script) {
            input.withUnsafeBytes { input in
                output.withUnsafeMutableBytes { output in
                    syscall("probe", input: input, output: output) { Int32(-1) }
                }
            }
        }
        #expect(result == .success(3))
        // Only as many bytes as the buffer holds are written.
        #expect(output == [0xAA, 0xBB])
        #expect(script.inputs(for: "probe") == [[1, 2, 3]])
        #expect(script.inputs(for: "other").isEmpty)
    }

    @Test("inputs are recorded for real calls under a script too, in order")
    func inputsOfRealCalls() {
        let script = SyscallScript([:])
        SyscallScript.$current.withValue(script) {
            for value: Int32 in [7, 9] {
                withUnsafeBytes(of: value) { bytes in
                    _ = syscall("getpid", input: bytes) { Glibc.getpid() }
                }
            }
        }
        #expect(script.inputs(for: "getpid") == [[7, 0, 0, 0], [9, 0, 0, 0]])
    }
}
