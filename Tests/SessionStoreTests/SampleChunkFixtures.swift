// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor
import SessionStore
import StoreFormats

/// Sample chunks as earlier builds wrote them. They must stay decodable by every later build: never
/// edit one when the format changes; add a fixture for the new version instead.
enum SampleChunkFixtures {
    /// The 70 samples both fixtures hold: a ramp with a ripple on x, a quadratic on y with a run
    /// clipped at Int16.max, a saw on z with one Int16.min, five samples lost after position 39 and
    /// one time 123 µs off the line.
    static var samples: [IndexedSample] {
        var samples: [IndexedSample] = []
        for n in 0..<70 {
            let x = Int16(clamping: 300 * n - 9000 + (n % 7) * 13)
            let y = n >= 20 && n < 26 ? Int16.max : Int16(clamping: -16384 + n * n * 5)
            let z = n == 50 ? Int16.min : Int16(clamping: (n % 5) * 400 - 800)
            let index = Int64(5000 + n + (n >= 40 ? 5 : 0))
            let t = 12.5 + Double(index - 5000) * 0.01 + (n == 33 ? 0.000_123 : 0)
            samples.append(IndexedSample(index: index, t: t, raw: RawAcceleration(x: x, y: y, z: z)))
        }
        return samples
    }

    /// `samples` as the version-1 encoder (the default until format 2) wrote them: 308 bytes.
    static let version1 = """
        0146904e01280a0000000000000029407d14ae47e17a843f000000000029ffff4f46f0ff2f8c04000000000000a8c516
        0000000000006ab1050000000000805a6c010000000000a0165b0000b0f0fff77f0ae0013260045ae006826009aae00b
        d2600efae0102261134ae11572f9ff278f0b00000000000000f8ffaf2c0b1262223ae2246252e847200319c840be3f80
        0c642003f9fe003290810ce4fb03c840063290ef0f200319c840be3f800c642003f9fe007200fffff600000000000000
        00000000a0040080af7e16000000f8ea6701000080af7e16000000f8ea6701000080af82010000002c00199001597f04
        3220033220eb8f400664400664fd11c8800cc880ecffffc720feffc1f901c8800cc8fa239001199001597f0432200332
        0080e4ff0c00000018a000e4fb03c84006329001
        """

    /// `samples` as the version-2 encoder writes them: 262 bytes. A change to these bytes is a new format
    /// version (or a bug).
    static let version2 = """
        0246904e01280a0000000000000029407d14ae47e17a843f007bd18d7a37546b1fa818d3146473aca17b5d7c70d3975c
        20ffd2b2b0a06f705db4b620996f2908da2ae9e760ceff016fee28495fdb217cf81b602c87804cb3ffe5d3ab2e8ff3bc
        faee138fdfcb812fcb32f3bdb649ec2ab812853a0c8bc867059a9d2f9f7e7d8be66734b7cc0f238af094fac883631aab
        89db9b7cfec6bbb977b5806645e127e45e3e5a0cc8b2cb23c6a57101b73dd83451e4ddd2e23419334faf6ae3acb88fec
        0bc669de322be0393330735880cd6386b0a6cb308c3912a9762fbedbcf7ed6ade121d2acb4481b538900cd3983964fd3
        e2638c19960dc6ea315f0a349e470dbb9eead4c9b200
        """

    /// `samples` as the version-3 encoder writes them (whole-microsecond times): 258 bytes. A change to these
    /// bytes is a new format version (or a bug).
    static let version3 = """
        0346904e01280a03c0f0f50b000000000088c340007bd18d7a37546b1fa818d3146473aca17b5d7c70d3975c20ffd2b2
        b0a06f705db4b620996f2908da2ae9e760ceff016fee28495fdb217cf81b602c87804cb3ffe5d3ab2e8ff3bcfaee138f
        dfcb812fcb32f3bdb649ec2ab812853a0c8bc867059a9d2f9f7e7d8be66734b7cc0f238af094fac883631aab89db9b7c
        fec6bbb977b5806645e127e45e3e5a0cc8b2cb23c6a57101b73dd83451e4ddd2e23419334faf6ae3acb88fec0bc669de
        322be0393330735880cd6386b0a6cb308c3912a9762fbedbcf7ed6ade121d2acb4481b538900cd3983964fd3e2638c19
        960dc6ea315f0a349e470dbb9eead4c9b200
        """
}
