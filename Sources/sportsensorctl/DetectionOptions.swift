// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import Detection
import GatewayConfig

/// `--rules`, `--config` and `--set`: the detection settings `analyze` and `import` run.
struct DetectionOptions: ParsableArguments {
    @Option(help: "standard (this project's detectors) or baseline (the rules existing apps use).")
    var rules: DetectionRules = .standard

    @Option(
        help: ArgumentHelp(
            "A daemon configuration file: its [detection.<profile>] tables set the detector parameters.",
            valueName: "file"))
    var config: String?

    @Option(
        name: .customLong("set"),
        help: ArgumentHelp(
            "Set one detector parameter of the profile, named as in the configuration file (repeatable).",
            valueName: "key=value"))
    var assignments: [String] = []

    /// The settings for `profile`: the configuration file's parameters (else the defaults), then
    /// every `--set` in order.
    func settings(for profile: DetectionProfile) throws(CommandFailure) -> DetectionSettings {
        var settings = DetectionSettings(profile: profile, rules: rules)
        if let config {
            do {
                settings.parameters = try GatewayConfiguration.load(path: config, isExplicit: true).detection
            } catch {
                throw CommandFailure(exitCode: ConfigurationError.exitStatus, message: error.description)
            }
        }
        return try settings.overriding(assignments)
    }
}

extension DetectionSettings {
    /// These settings with each `--set key=value` applied in order; a bad one is a usage error.
    func overriding(_ assignments: [String]) throws(CommandFailure) -> DetectionSettings {
        var settings = self
        for assignment in assignments {
            do {
                try settings.set(assignment)
            } catch {
                throw .usage("--set \(assignment): \(error.message): \(error.fix ?? "")")
            }
        }
        return settings
    }
}
