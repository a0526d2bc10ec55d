// SPDX-License-Identifier: GPL-2.0-or-later
#if canImport(Glibc)
// `mallopt` is in <malloc.h>, which the Glibc module does not export.
@_silgen_name("mallopt")
private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
/// <malloc.h>'s M_ARENA_MAX.
private let mArenaMax: Int32 = -8
#endif

/// glibc's allocator limits for the daemon.
public enum MallocArenas {
    /// Arenas the daemon's threads share.
    public static let limit: Int32 = 2

    /// Caps glibc's malloc arenas at `limit`; call first thing at start, before threads allocate.
    /// glibc gives every thread that meets a locked arena one of its own (up to 8 per core), and an
    /// arena keeps the pages of freed memory below its top: with 64 sensors at 100 Hz the release
    /// gateway's anonymous memory rose from 13.3 to 15.4 MB before its first chunk sealed (5.5 min)
    /// and to 17.2 MB after, with the default (about ten arenas); with two from 13.0 to 14.0 and
    /// 15.8 MB (`bench-gateway --sensors 64 --seconds 400`, Docs/PERFORMANCE.md, "Memory: anonymous").
    /// CPU per sample in those runs: 10.9 µs with two, 10.0–10.5 µs with the default (load 9–18, so
    /// not a measured cost). Returns whether glibc took the setting.
    @discardableResult
    public static func limitArenas() -> Bool {
        #if canImport(Glibc)
        return glibcMallopt(mArenaMax, limit) == 1
        #else
        return false
        #endif
    }
}
