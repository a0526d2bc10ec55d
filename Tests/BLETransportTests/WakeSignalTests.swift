// SPDX-License-Identifier: GPL-2.0-or-later
import GatewayTesting
import SystemCalls
import Testing

@testable import BLETransport

extension DescriptorSuites {
    @Suite("WakeSignal: signal and close from any thread, the eventfd closed once and never while written")
    struct WakeSignalTests {
        @Test("a close during a signal waits for it; later signals and closes touch nothing")
        func closeDuringUse() {
            let uses = DescriptorUses()
            #expect(uses.begin())
            #expect(uses.begin())
            // Two signals are writing: the closer must wait for both.
            #expect(uses.beginClosing())
            #expect(uses.isUsed)
            #expect(!uses.begin())
            uses.end()
            #expect(uses.isUsed)
            uses.end()
            #expect(!uses.isUsed)
            // Only the first close closes.
            #expect(!uses.beginClosing())
            #expect(!uses.begin())
        }

        @Test("without a signal under way the closer need not wait")
        func closeWhenIdle() {
            let uses = DescriptorUses()
            #expect(uses.begin())
            uses.end()
            #expect(uses.beginClosing())
            #expect(!uses.isUsed)
            #expect(!uses.begin())
        }

        @Test("signals from many tasks racing a close: one close of the eventfd, after every write")
        func signalsRacingClose() async throws {
            let script = SyscallScript([:])
            try await SyscallScript.$current.withValue(script) {
                let wake = try WakeSignal()
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<8 {
                        group.addTask {
                            for _ in 0..<200 { wake.signal() }
                        }
                    }
                    group.addTask { wake.close() }
                }
                let calls = script.calls
                #expect(script.inputs(for: "close") == [ScriptedSockets.int32Bytes(wake.descriptor)])
                let closeIndex = try #require(calls.firstIndex(of: "close"))
                #expect(calls.lastIndex(of: "write").map { $0 < closeIndex } ?? true)
                // Once closed, a signal writes nothing and a second close closes nothing.
                wake.signal()
                wake.close()
                #expect(script.calls == calls)
            }
        }
    }
}
