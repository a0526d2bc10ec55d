// SPDX-License-Identifier: GPL-2.0-or-later
import GatewayCore
import Testing

@Suite("Malloc settings")
struct MallocSettingsTests {
    @Test("glibc takes the daemon's arena cap and fixed mmap threshold")
    func accepted() {
        #expect(MallocSettings.arenas == 2)
        #expect(MallocSettings.mmapThreshold == 128 * 1024)
        #if canImport(Glibc)
        #expect(MallocSettings.apply())
        #endif
    }
}
