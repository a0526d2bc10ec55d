// SPDX-License-Identifier: GPL-2.0-or-later
import GatewayCore
import Testing

@Suite("Malloc arenas")
struct MallocArenasTests {
    @Test("glibc takes the daemon's arena cap")
    func accepted() {
        #expect(MallocArenas.limit == 2)
        #if canImport(Glibc)
        #expect(MallocArenas.limitArenas())
        #endif
    }
}
