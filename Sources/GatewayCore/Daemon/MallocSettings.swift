// SPDX-License-Identifier: GPL-2.0-or-later
#if canImport(Glibc)
// `mallopt` is in <malloc.h>, which the Glibc module does not export.
@_silgen_name("mallopt")
private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
/// <malloc.h>'s M_ARENA_MAX and M_MMAP_THRESHOLD.
private let mArenaMax: Int32 = -8
private let mMmapThreshold: Int32 = -3
#endif

/// glibc's allocator settings for the daemon: what keeps freed memory from staying resident
/// (Docs/PERFORMANCE.md, "Memory: anonymous").
public enum MallocSettings {
    /// Arenas the daemon's threads share. glibc gives every thread that meets a locked arena one
    /// of its own (up to 8 per core), and an arena keeps the pages of freed memory below its top:
    /// with 64 sensors at 100 Hz the release gateway's anonymous memory rose from 13.3 to 15.4 MB
    /// before its first chunk sealed (5.5 min) and to 17.2 MB after, with the default (about ten
    /// arenas); with two from 13.0 to 14.0 and 15.8 MB (`bench-gateway --sensors 64 --seconds 400`).
    /// CPU per sample in those runs: 10.9 µs with two, 10.0–10.5 µs with the default (load 9–18, so
    /// not a measured cost).
    public static let arenas: Int32 = 2

    /// Blocks of this many bytes or more are mapped on their own and unmapped when freed. glibc's
    /// default starts at the same 128 KiB but raises itself to the size of each mapped block that
    /// is freed, so after a seal's compaction read a segment back (130–200 KB) such blocks came
    /// from an arena, which kept the pages; a fixed threshold keeps them out.
    public static let mmapThreshold: Int32 = 128 << 10

    /// Sets both; call first thing at start, before threads allocate. Returns whether glibc took
    /// them.
    @discardableResult
    public static func apply() -> Bool {
        #if canImport(Glibc)
        let threshold = glibcMallopt(mMmapThreshold, mmapThreshold) == 1
        return glibcMallopt(mArenaMax, arenas) == 1 && threshold
        #else
        return false
        #endif
    }
}
