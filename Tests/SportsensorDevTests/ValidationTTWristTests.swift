// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import SDUSensor
import Testing

@testable import sportsensor_dev

private let validationFolder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Validation")

/// Writes a small tt-wrist folder of made-up drills (no real data) and converts it with
/// `convert.py --offline DATA_DIR OUT_DIR tt-wrist`: the gyroscope peaks are the strokes.
private let fixtureScript = """
    import gzip, os, sys
    import numpy as np
    root = sys.argv[1]
    def write(folder, name, strokes, axis, seconds=20.0, swing=20.0, blank=()):
        t = 1000.0 + np.arange(int(seconds * 50.1)) / 50.1
        gyro = np.zeros((len(t), 3))
        acc = np.tile([0.0, 0.0, -1.0], (len(t), 1))
        for s in strokes:
            gyro[:, axis] += swing * np.exp(-((t - 1000.0 - s) / 0.05) ** 2)
            gyro[:, axis] -= 0.35 * swing * np.exp(-((t - 1000.0 - s + 0.6) / 0.08) ** 2)
            acc[:, 0] += 3.5 * np.exp(-((t - 1000.0 - s) / 0.04) ** 2)
        os.makedirs(os.path.join(root, "tt-wrist", folder), exist_ok=True)
        with gzip.open(os.path.join(root, "tt-wrist", folder, name + ".csv.gz"), "wt") as out:
            out.write("t_s,ax_g,ay_g,az_g,gx_rad_s,gy_rad_s,gz_rad_s\\n")
            for i, (time, a, g) in enumerate(zip(t, acc, gyro)):
                gyro_text = ",," if i in blank else ",".join(f"{v:.6f}" for v in g)
                out.write(f"{time:.6f},{a[0]:.6f},{a[1]:.6f},{a[2]:.6f},{gyro_text}\\n")
    feed = 1.166
    # Forehand topspin, held-out date: 15 strokes at the feed period about the face's normal (z).
    write("top_spin_direita", "2021-04-12_10_00_00", [2.0 + k * feed for k in range(15)], 2, blank=(300, 301))
    # Forehand-side drill whose strokes turn about the forearm (x), development date: hits, no side.
    write("flip_direita", "2021-04-08_10_00_00", [2.0 + k * feed for k in range(15)], 0)
    # Backhand drill at 1.7 s: the gyroscope and the feed period disagree, left out.
    write("top_spin_esquerda", "2021-04-22_10_00_00", [2.0 + k * 1.7 for k in range(10)], 0)
    # Rest: three swings of 6 rad/s (swings), one of 3 rad/s (not one).
    write("rest", "2021-03-03_10_00_00", [3.0, 8.0, 13.0], 1, swing=6.0)
    write("rest", "2021-03-02_10_00_00", [5.0], 1, swing=3.0)
    """

@Suite("Validation/tt_wrist.py: the gyroscope reference, the feed check, sides and splits")
struct ValidationTTWristTests {
    @Test("strokes at the gyroscope's peaks, a drill off the feed period left out, sides, splits, rest swings")
    func convertsMadeUpDrills() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tt-wrist-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("data").path
        let out = folder.appendingPathComponent("out").path
        for arguments in [
            ["-B", "-c", fixtureScript, data],
            ["-B", validationFolder.appendingPathComponent("convert.py").path, "--offline", data, out, "tt-wrist"],
        ] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3"] + arguments
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "python3 with numpy runs \(arguments[1])")
        }
        let loaded = try LoadedRecording.load(manifest: out + "/manifest.csv")
        let byName = Dictionary(uniqueKeysWithValues: loaded.map { ($0.recording.recording, $0) })
        #expect(
            byName.keys.sorted() == [
                "flip_direita-2021-04-08-10-00-00", "rest-2021-03-02-10-00-00", "rest-2021-03-03-10-00-00",
                "top_spin_direita-2021-04-12-10-00-00",
            ])
        let forehand = try #require(byName["top_spin_direita-2021-04-12-10-00-00"])
        #expect(forehand.recording.split == "held-out" && forehand.recording.rate == 50)
        #expect(forehand.recording.stroke == "topspin" && forehand.recording.side == "forehand")
        let times = forehand.labels.map(\.time)
        #expect(times.count == 15)
        for (k, time) in times.enumerated() {
            #expect(abs(time - (2.0 + Double(k) * 1.166)) <= 0.011, "stroke \(k) at the gyroscope's peak")
        }
        // 3.5 g on x clips at the sensor's 2 g; every value is a whole count.
        let peak = forehand.samples.map(\.x).max() ?? 0
        #expect(abs(peak - 32767.0 / 16384) < 1e-6)
        #expect(forehand.samples.allSatisfy { abs($0.x * 16384 - ($0.x * 16384).rounded()) < 0.02 })
        let sideless = try #require(byName["flip_direita-2021-04-08-10-00-00"])
        #expect(sideless.recording.split == "development" && sideless.recording.side == "")
        #expect(sideless.labels.count == 15)
        let rest = try #require(byName["rest-2021-03-03-10-00-00"])
        #expect(rest.recording.stroke == "rest" && rest.labels.isEmpty && rest.swings.count == 3)
        #expect(byName["rest-2021-03-02-10-00-00"]?.swings.isEmpty == true)
    }
}
