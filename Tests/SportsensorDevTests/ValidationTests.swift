// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import SDUSensor
import Testing
import VirtualSensor

@testable import sportsensor_dev

/// The repository's Validation/ folder: the converter and the checked-in fixture.
private let validationFolder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Validation")

@Suite("sportsensor-dev validate: converter, inputs and scoring")
struct ValidationTests {
    @Test("the converter resamples to the sensor's rate, quantises to 1/16384 g and clips at ±2 g")
    func converterFrontEnd() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("validation-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.csv")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", validationFolder.appendingPathComponent("sdu.py").path,
            validationFolder.appendingPathComponent("fixture/sdu-input.400hz.csv").path, output.path, "100",
        ]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "python3 with numpy runs Validation/sdu.py (make deps installs it)")
        let samples = try SampleCSV.parse(String(contentsOf: output, encoding: .utf8))
        // 1 s of 400 Hz input becomes 101 samples at 100 Hz from t = 0.
        #expect(samples.count == 101)
        for (index, sample) in samples.enumerated() {
            #expect(abs(sample.t - Double(index) / 100) < 1e-9)
            for value in [sample.x, sample.y, sample.z] {
                let counts = value * 16384
                #expect(abs(counts - counts.rounded()) < 0.02, "whole counts")
                #expect(counts.rounded() <= 32767 && counts.rounded() >= -32768)
            }
            #expect(sample.z == 1)
            // The CSV's six decimals hold every count exactly once rounded back (Docs/FORMATS.md).
            #expect((sample.y * 16384).rounded() == (16384.0 / 3).rounded())
        }
        // The 2.5 g, 5 Hz sine is clipped at the sensor's range and kept where it is within it.
        #expect(samples.map { ($0.x * 16384).rounded() }.max() == 32767)
        #expect(samples.map { ($0.x * 16384).rounded() }.min() == -32768)
        #expect(abs(samples[42].x - 2.5 * sin(2 * Double.pi * 5 * 0.42)) < 0.02)
    }

    @Test("the IMU readers: Xsens rows timed by their counter at the header's rate in g, the x-IMU's rate code")
    func imuReaders() throws {
        // convert.py's readers on two files written for this test; -B keeps __pycache__ out of the tree.
        let script = """
            import sys
            sys.path.insert(0, sys.argv[1])
            import convert
            t, acc = convert.xsens_export(open(sys.argv[2]).read())
            for time, (x, y, z) in zip(t, acc):
                print(f"{time:.6f},{x:.6f},{y:.6f},{z:.6f}")
            print(convert.ximu_rate(open(sys.argv[3]).read(), "InertialAndMagneticDataRate"))
            """
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-B", "-c", script, validationFolder.path,
            validationFolder.appendingPathComponent("fixture/xsens-export.txt").path,
            validationFolder.appendingPathComponent("fixture/ximu-registers.csv").path,
        ]
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "python3 with numpy imports Validation/convert.py")
        // Counters 700…702 at 40 Hz from 0; m/s² divided by standard gravity; code 7 is 2^6 Hz.
        #expect(
            text.split(separator: "\n")
                == [
                    "0.000000,1.000000,0.000000,-0.500000", "0.025000,0.000000,2.000000,0.000000",
                    "0.050000,-1.000000,0.000000,1.000000", "64.0",
                ])
    }

    @Test("steps-oxford: a rise of either foot's pad is a step, chatter dropped, a missed contact added, stops left")
    func stepsOxfordReader() throws {
        // Two walks written for this test (not real data) in the source's layout: the accelerometer at
        // 100 Hz in m/s² and the pads polled every 0.1 s, 0.05 s after it starts. The right pad goes down at
        // 0.5, 1.5 (and chatters at 1.8), 2.5, 3.5, 5.6 and 6.6 s, the left at 1.0 and 3.0 s: its contact at
        // 2.0 s was missed (two right contacts in a row, one median stride apart); 3.5 → 5.6 s is a stop.
        let script = """
            import gzip, os, sys
            sys.path.insert(0, sys.argv[1])
            import convert, steps_oxford
            root = sys.argv[2]
            t0 = 5_000_000_000
            right = [(0.5, 0.8), (1.5, 1.7), (1.8, 1.9), (2.5, 2.8), (3.5, 3.8), (5.6, 5.9), (6.6, 6.9)]
            left = [(1.0, 1.3), (3.0, 3.3)]
            def down(intervals, s):
                return int(any(a <= s < b for a, b in intervals))
            for name in ("Pixel_Carmelo_Hard_FrontPocket_1", "Samsung_Dario_Hard_SwingingArm_2", "_Patient_3"):
                os.makedirs(os.path.join(root, name))
                with gzip.open(os.path.join(root, name, "accelerometer.csv.gz"), "wt") as f:
                    for i in range(601):
                        f.write(f"{t0 + i * 10_000_000},3,0.0,{9.80665 * (i % 2)},-9.80665\\n")
                with gzip.open(os.path.join(root, name, "stepcounter.csv.gz"), "wt") as f:
                    for k in range(70):
                        s = round(0.05 + 0.1 * k, 2)
                        f.write(f"{t0 + int(s * 1e9)},{down(right, s)},{down(left, s)}\\n")
            t, acc, steps, added = steps_oxford.read_walk(os.path.join(root, "Pixel_Carmelo_Hard_FrontPocket_1"))
            print(len(t), t[-1], acc[1].tolist(), added)
            print(" ".join(f"{s:.2f}" for s in steps))
            class Out:
                def add(self, dataset, recording, subject, placement, split, score, t, values_g, labels):
                    print(dataset, recording, subject, placement, split, score, len(labels), labels[0][0], f"{labels[0][1]:.3f}")
            steps_oxford.convert(Out(), root)
            os.makedirs(os.path.join(root, "Pixel_Jamie_Hard_Pocket_1"))
            try:
                steps_oxford.convert(Out(), root)
            except steps_oxford.WalkError as error:
                print("error:", error)
            """
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oxford-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-B", "-c", script, validationFolder.path, folder.path]
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "python3 with numpy imports Validation/steps_oxford.py")
        let lines = text.split(separator: "\n").map(String.init)
        try #require(lines.count == 5, "\(text)")
        // 6 s at 100 Hz from the first sample; m/s² to g; one contact added (the left at 2.0 s; the one
        // between the right's at 5.6 and 6.6 s would fall after the last sample).
        #expect(lines[0] == "601 6.0 [0.0, 1.0, -1.0] 1")
        // Half-way between the polls around each press; the chatter at 1.8 s dropped; no step added in
        // the stop; the right contact at 6.6 s (and the one added at 6.1 s) after the last sample left out.
        #expect(lines[1] == "0.50 1.00 1.50 2.00 2.50 3.00 3.50 5.60")
        // The placement and the subject from the folder name; Carmelo held out; _Patient_3 left out.
        #expect(
            lines[2]
                == "steps-oxford Pixel_Carmelo_Hard_FrontPocket_1 Carmelo front pocket held-out ['steps'] 8 step 0.500")
        #expect(lines[3].hasPrefix("steps-oxford Samsung_Dario_Hard_SwingingArm_2 Dario swinging hand development"))
        // A folder that does not name a known position is an error before any walk is converted.
        #expect(lines[4].hasPrefix("error: steps-oxford folder `Pixel_Jamie_Hard_Pocket_1` is not"))
    }

    @Test("the fixture's jump is matched, its height compared, and a throw profile on it counts false events")
    func scoresTheFixture() throws {
        let loaded = try LoadedRecording.load(
            manifest: validationFolder.appendingPathComponent("fixture/manifest.csv").path)
        #expect(loaded.count == 1 && loaded[0].samples.count == 350 && loaded[0].labels.count == 1)
        let rows = scoreValidation(loaded, tolerance: ValidationTolerance())
        #expect(rows.map(\.profile) == [.jump, .throw])
        let jump = rows[0]
        #expect(jump.standard.labels == 1 && jump.standard.truePositives == 1 && jump.standard.detections == 1)
        #expect(jump.standard.heightErrorsCm.count == 1)
        // 0.45 s of free fall is 24.8 cm; the detector's edges are within a sample or two of it.
        #expect(abs(jump.standard.heightErrorsCm[0]) < 3)
        #expect(abs(jump.hours - 3.5 / 3600) < 1e-12 && jump.recordings == 1)
        let throwRow = rows[1]
        #expect(throwRow.standard.labels == 0)
        #expect(throwRow.standard.falseDetections == throwRow.standard.detections)
        let table = validationTable(rows)
        #expect(
            table.contains(
                "| fixture | held-out | lower back | 100 | jump | 1 | 0.1 | 1 | 1.000 | 1.000 | 1.000 | 0.0 |"))
    }

    @Test("a dataset scored at several placements gets one more row pooling them; one placement gets none")
    func placementTotals() {
        func row(
            _ dataset: String, _ placement: String, _ rate: Double, labels: Int, detections: Int, matched: Int
        ) -> ValidationRow {
            var row = ValidationRow(
                dataset: dataset, split: "held-out", placement: placement, rate: rate, profile: .steps)
            row.recordings = 2
            row.hours = 0.1
            row.standard.labels = labels
            row.standard.detections = detections
            row.standard.truePositives = matched
            row.baseline.labels = labels
            row.baseline.detections = detections / 2
            return row
        }
        let rows = [
            row("walks", "purse", 100, labels: 100, detections: 110, matched: 95),
            row("walks", "purse", 50, labels: 100, detections: 90, matched: 85),
            row("walks", "armband", 100, labels: 300, detections: 290, matched: 280),
            row("lab", "lower back", 100, labels: 50, detections: 50, matched: 50),
        ]
        let totals = withPlacementTotals(rows)
        // Only the 100 Hz walks have two placements; their total follows the group's last row.
        #expect(totals.map(\.placement) == ["purse", "purse", "armband", allPlacements, "lower back"])
        let total = totals[3]
        #expect(total.rate == 100 && total.recordings == 4 && abs(total.hours - 0.2) < 1e-12)
        #expect(total.standard.labels == 400 && total.standard.detections == 400 && total.standard.truePositives == 375)
        #expect(total.baseline.detections == 200)
        #expect(
            validationTable(totals).contains(
                "| walks | held-out | all placements | 100 | steps | 4 | 12.0 | 400 | 0.938 | 0.938 | 0.938 | 0.0 |"))
    }

    @Test("the flag table counts each flag's detections and matches, and the unflagged ones beside them")
    func flagTable() throws {
        let loaded = try LoadedRecording.load(
            manifest: validationFolder.appendingPathComponent("fixture/manifest.csv").path)
        let rows = scoreValidation(loaded, tolerance: ValidationTolerance())
        let jump = rows[0].standard
        // The fixture's jump lands within one sample and reaches the clip: both flags, matched, no unflagged one.
        #expect(jump.unflagged.detections == 0)
        #expect(jump.flagged[.clipped]?.detections == 1 && jump.flagged[.clipped]?.matched == 1)
        #expect(jump.flagged[.edgeFallback]?.heightErrorsCm.count == 1)
        let table = validationFlagTable(rows)
        #expect(table.contains("| `clipped` | jump | 1 | 1 | 1 |"), "\(table)")
        #expect(table.contains("| `edge_fallback` | throw | 1 | 0 | 0 | – | – | – |"), "every throw is false here")
        #expect(!table.contains("(none)"))
    }

    @Test("--set tunes only the profiles that have the key; a bad value names the key and the fix")
    func tuningAssignments() throws {
        let chosen = try DetectionSettings.tuning(
            [.steps, .jump], assignments: ["min_interval_fraction=0", "min_flight=0.2"])
        #expect(chosen[.steps]?.parameters.step.minIntervalFraction == 0)
        #expect(chosen[.jump]?.parameters.jump.minFlight == 0.2)
        #expect(
            chosen[.steps]?.parameters.jump.minFlight == DetectionSettings(profile: .jump).parameters.jump.minFlight)
        #expect(throws: (any Error).self) {
            try DetectionSettings.tuning([.steps], assignments: ["min_interval_cap=-1"])
        }
    }

    @Test("Bland–Altman: bias and mean ± 1.96 SD; fewer than two pairs have none")
    func agreement() throws {
        let agreement = try #require(Agreement(differences: [1, 2, 3]))
        #expect(agreement.bias == 2)
        #expect(abs(agreement.lower - 0.04) < 1e-12 && abs(agreement.upper - 3.96) < 1e-12)
        #expect(Agreement(differences: [4]) == nil)
    }

    @Test("a bad manifest line names its line and what to fix")
    func badManifests() {
        let header = ValidationRecording.header
        let cases: [(String, String)] = [
            ("nope\n", "first line"),
            (header + "\na,b,c\n", "line 2 has 3 fields"),
            (header + "\nd,r,s,p,held-out,0,x.csv,x.labels.csv,jump,1,0,,\n", "line 2: rate and duration_s"),
            (header + "\nd,r,s,p,tuning,100,x.csv,x.labels.csv,jump,1,0,,\n", "split is `tuning`"),
            (header + "\nd,r,s,p,held-out,100,x.csv,x.labels.csv,hops,1,0,,\n", "unknown profile `hops`"),
        ]
        for (text, fragment) in cases {
            #expect {
                try ValidationRecording.parseManifest(text)
            } throws: { error in
                (error as? ValidationDataError)?.code == .badManifest && "\(error)".contains(fragment)
            }
        }
    }

    @Test("labels: steps, hits and swings without an end, flights with one after the start; anything else is an error")
    func labels() throws {
        let labels = try ValidationLabels.parse(
            "kind,start,end\nstep,1.5,\njump,2,2.5\nthrow,3,4\nhit,5.25,\nswing,6.5,\n", name: "l.csv")
        #expect(
            labels.events == [
                .step(t: 1.5), .jump(takeoff: 2, landing: 2.5), .throw(release: 3, catch: 4),
                .hit(t: 5.25, intensityG: 0),
            ])
        #expect(labels.swings == [6.5])
        for bad in [
            "kind,start,end\njump,2,1\n", "kind,start,end\nstep,1,2\n", "kind,start,end\nhop,1,\n", "k\n",
            "kind,start,end\nhit,1,2\n", "kind,start,end\nswing,x,\n",
        ] {
            #expect(throws: ValidationDataError.self) { try ValidationLabels.parse(bad, name: "l.csv") }
        }
    }

    @Test("the table replaces what stands between the markers and nothing else")
    func reportUpdate() throws {
        let report =
            "intro\n<!-- sportsensor-dev validate: begin -->\nold\n<!-- sportsensor-dev validate: end -->\nrest\n"
        let updated = try replacingGeneratedTable(in: report, with: "| new |\n")
        #expect(
            updated
                == "intro\n<!-- sportsensor-dev validate: begin -->\n| new |\n<!-- sportsensor-dev validate: end -->\nrest\n"
        )
        #expect(throws: ValidationDataError.self) { try replacingGeneratedTable(in: "no markers", with: "x") }
    }
}
