// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation

/// The text of `sessions.profile_parameters`: a session's `DetectionSettings` as JSON, keys
/// sorted, numbers in their shortest exact form, so the stored settings read back identical.
enum StoredSettings {
    /// The JSON object text of `settings`.
    static func text(_ settings: DetectionSettings) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Settings hold finite numbers only (every way in checks them), so encoding cannot fail.
        guard let data = try? encoder.encode(settings) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The settings of a session stored with `profile` and `text`; nil for a profile this build
    /// does not know. Any text of any version reads (`{}`, `{"rules":"baseline"}`, the flat
    /// parameters of the profile), what it lacks taking the defaults.
    static func settings(profile name: String, text: String) -> DetectionSettings? {
        guard let profile = DetectionProfile(rawValue: name) else { return nil }
        let decoder = JSONDecoder()
        decoder.userInfo[DetectionSettings.profileUserInfoKey] = profile
        var settings =
            (try? decoder.decode(DetectionSettings.self, from: Data(text.utf8)))
            ?? DetectionSettings(
                profile: profile)
        // The column is what sessions are listed and filtered by, so it decides.
        settings.profile = profile
        return settings
    }
}
