// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import SDUSensor
import VirtualSensor

extension MotionScript: ExpressibleByArgument {}

/// `sportsensor-dev simulate`: a labelled synthetic recording as a sample CSV.
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Write a synthetic recording of a motion script as a sample CSV (labels as # comments)."
    )

    @Option(help: "rest, table-tennis, jump, throw, steps or arm-exercise (shoulder exercises, no events).")
    var script: MotionScript

    @Option(help: "Seed of the recording.")
    var seed: UInt64 = 1

    @Option(help: "Samples per second.")
    var rate = 100.0

    @Option(help: "Length, s (rounded up to whole motions).")
    var duration = 60.0

    @Option(help: "Motion model: scripted (the default) or independent (lost notifications leave time gaps).")
    var model: MotionModel = .scripted

    func run() {
        let recording = model.render(script: script, seed: seed, rate: rate, duration: duration)
        var text = "# script \(script.rawValue) model \(model.rawValue) seed \(seed) rate \(rate)"
        text += " mount \(recording.mount.rawValue)\n"
        for label in recording.labels { text += "# label \(label)\n" }
        text += SampleCSV.header + "\n"
        for sample in recording.samples { text += SampleCSV.line(sample) + "\n" }
        print(text, terminator: "")
    }
}
