// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import Testing

@Suite("Detection settings")
struct DetectionSettingsTests {
    /// Settings with every parameter moved off its default, so a field that does not round-trip shows.
    static var changed: DetectionSettings {
        var settings = DetectionSettings(profile: .jump, rules: .baseline)
        for profile in DetectionProfile.allCases {
            for (offset, field) in DetectionParameterKeys.fields(for: profile).enumerated() {
                settings.parameters[keyPath: field.path] += 0.001 * Double(offset + 1)
            }
        }
        settings.parameters.step.confirmSteps = 4
        return settings
    }

    func decode(_ text: String, profile: DetectionProfile? = nil) throws -> DetectionSettings {
        let decoder = JSONDecoder()
        if let profile { decoder.userInfo[DetectionSettings.profileUserInfoKey] = profile }
        return try decoder.decode(DetectionSettings.self, from: Data(text.utf8))
    }

    @Test("every parameter of every profile round-trips through JSON exactly")
    func roundTrip() throws {
        let settings = Self.changed
        let text = String(decoding: try JSONEncoder().encode(settings), as: UTF8.self)
        #expect(try decode(text) == settings)
        #expect(text.contains(#""jump":{"#) && text.contains(#""min_flight":"#), "keys as in the configuration file")
        #expect(text.contains(#""confirm_steps":4"#))
    }

    @Test("a decoder converting snake_case keys reads the same settings")
    func snakeCaseDecoder() throws {
        let settings = Self.changed
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try decoder.decode(DetectionSettings.self, from: try JSONEncoder().encode(settings)) == settings)
    }

    @Test("what sessions stored before the settings were kept whole still reads, with defaults for the rest")
    func oldShapes() throws {
        // The daemon's shape: the profile's keys beside profile and rules.
        let daemon = try decode(
            #"{"profile":"jump","rules":"standard","enter_g":0.5,"min_flight":0.2,"max_flight":1.3}"#)
        var expected = DetectionSettings(profile: .jump)
        expected.parameters.jump.enterG = 0.5
        expected.parameters.jump.minFlight = 0.2
        expected.parameters.jump.maxFlight = 1.3
        #expect(daemon == expected)
        // import and reanalyze --save: the rules only; the profile is the session's column.
        #expect(
            try decode(#"{"rules":"baseline"}"#, profile: .steps)
                == DetectionSettings(profile: .steps, rules: .baseline))
        #expect(try decode("{}", profile: .throw) == DetectionSettings(profile: .throw))
        // Values no version writes keep the defaults instead of failing the whole session.
        let odd = try decode(
            #"{"profile":"steps","rules":"new-rules","parameters":{"steps":{"min_interval":-1,"confirm_steps":2.5,"hysteresis":"x","regularity":2}}}"#
        )
        var regular = DetectionSettings(profile: .steps)
        regular.parameters.step.regularity = 2
        #expect(odd == regular)
    }

    @Test("without a profile in the JSON or the decoder's userInfo, decoding fails")
    func profileRequired() {
        #expect(throws: DecodingError.self) { try decode(#"{"rules":"standard"}"#) }
    }

    @Test("--set takes the configuration file's keys for the profile being run, and checks the value")
    func set() throws {
        var settings = DetectionSettings(profile: .jump)
        try settings.set("min_flight=0.2")
        try settings.set(" max_flight = 1.1 ")
        #expect(settings.parameters.jump.minFlight == 0.2)
        #expect(settings.parameters.jump.maxFlight == 1.1)
        #expect(settings.parameters.throw == DetectionParameters().throw, "only the profile being run changes")

        var steps = DetectionSettings(profile: .steps)
        try steps.set("confirm_steps=4")
        #expect(steps.parameters.step.confirmSteps == 4)

        func code(_ settings: DetectionSettings, _ assignment: String) -> DetectionSettingsError.Code? {
            var copy = settings
            do { try copy.set(assignment) } catch { return error.code }
            return nil
        }
        #expect(code(settings, "min_peak_g=1.5") == .unknownKey, "a table-tennis key on a jump session")
        #expect(code(settings, "min_flight") == .malformed)
        #expect(code(settings, "min_flight=fast") == .invalidValue)
        #expect(code(settings, "min_flight=4000") == .invalidValue)
        #expect(code(settings, "min_flight=-0.1") == .invalidValue)
        #expect(code(steps, "confirm_steps=9") == .invalidValue)
        #expect(code(steps, "confirm_steps=2.5") == .invalidValue)
    }

    @Test("an unknown key's error lists the profile's keys")
    func unknownKeyMessage() {
        var settings = DetectionSettings(profile: .throw)
        do {
            try settings.set("min_flights=0.3")
            Issue.record("an unknown key was accepted")
        } catch {
            #expect(error.message.contains("min_flights"))
            #expect(error.fix?.contains("min_flight, max_flight") == true)
        }
    }

    @Test("assignments print the profile's parameters as set(_:) reads them back")
    func assignments() throws {
        let settings = Self.changed
        var back = DetectionSettings(profile: .jump, rules: .baseline, parameters: Self.changed.parameters)
        back.parameters.jump = DetectionParameters().jump
        for assignment in settings.assignments { try back.set(assignment) }
        #expect(back == settings)
        #expect(settings.assignments.count == DetectionParameterKeys.keys(for: .jump).count)
    }
}
