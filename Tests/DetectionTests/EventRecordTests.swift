// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import Testing

@Suite("Event record")
struct EventRecordTests {
    static let hit = DetectorEvent.hit(HitEvent(t: 1.23456, peakG: 2.5, saturated: true, intensityG: 3.25))
    static let jump = DetectorEvent.jump(FlightEvent(start: 1, end: 1.5))
    static let thrown = DetectorEvent.throw(FlightEvent(start: 2, end: 3))
    static let step = DetectorEvent.step(StepEvent(t: 0.5, cadence: 112))

    @Test("each event kind prints the documented fields in the fixed order with fixed decimals")
    func lines() {
        #expect(
            EventRecord(Self.hit).jsonLine
                == #"{"type":"hit","t":1.2346,"peak_g":2.500,"saturated":true,"intensity_g":3.250}"#)
        #expect(
            EventRecord(Self.jump).jsonLine
                == #"{"type":"jump","t":1.0000,"takeoff":1.0000,"landing":1.5000,"flight_s":0.5000,"height_m":0.306}"#)
        #expect(
            EventRecord(Self.thrown).jsonLine
                == #"{"type":"throw","t":2.0000,"release":2.0000,"catch":3.0000,"flight_s":1.0000,"height_m":1.226}"#)
        #expect(EventRecord(Self.step).jsonLine == #"{"type":"step","t":0.5000,"cadence_spm":112.0}"#)
        #expect(
            EventRecord(type: "odd \"one\"", t: .nan, peakG: .infinity).jsonLine
                == #"{"type":"odd \"one\"","t":null,"peak_g":null}"#)
    }

    @Test("quality flags print last, in declaration order, and are left out when there are none")
    func qualityLine() throws {
        let flagged = DetectorEvent.jump(FlightEvent(start: 1, end: 1.5, quality: [.sampleGap, .clipped]))
        let line = EventRecord(flagged).jsonLine
        #expect(line.hasSuffix(#","height_m":0.306,"quality":["clipped","sample_gap"]}"#))
        #expect(!EventRecord(Self.jump).jsonLine.contains("quality"))
        let decoded = try JSONDecoder().decode(EventRecord.self, from: Data(line.utf8))
        #expect(decoded.detectorEvent == flagged)
        let encoded = try JSONDecoder().decode(EventRecord.self, from: JSONEncoder().encode(EventRecord(flagged)))
        #expect(encoded == decoded)
        // An older line has no quality; an empty array reads as none.
        let old = try JSONDecoder().decode(EventRecord.self, from: Data(#"{"type":"step","t":1,"quality":[]}"#.utf8))
        #expect(old.quality == nil && old.detectorEvent == .step(StepEvent(t: 1, cadence: 0)))
        // A flag this version does not know is kept in the record and left out of the detector event.
        let newer = try JSONDecoder().decode(
            EventRecord.self, from: Data(#"{"type":"step","t":1,"quality":["rate_too_low","future"]}"#.utf8))
        #expect(newer.quality == ["rate_too_low", "future"] && newer.qualityFlags == .rateTooLow)
        #expect(newer.jsonLine.hasSuffix(#""quality":["rate_too_low","future"]}"#))
    }

    @Test("a hit's side prints after its quality, round-trips, and an unknown side is kept as text")
    func sideLine() throws {
        let backhand = DetectorEvent.hit(
            HitEvent(t: 2, peakG: 1.5, saturated: false, intensityG: 1.5, quality: .sampleGap, side: .backhand))
        let line = EventRecord(backhand).jsonLine
        #expect(line.hasSuffix(#""quality":["sample_gap"],"side":"backhand"}"#))
        #expect(try JSONDecoder().decode(EventRecord.self, from: Data(line.utf8)).detectorEvent == backhand)
        #expect(!EventRecord(Self.hit).jsonLine.contains("side"))
        #expect(StrokeSide.allCases.map(\.rawValue) == ["forehand", "backhand"])
        let newer = try JSONDecoder().decode(
            EventRecord.self, from: Data(#"{"type":"hit","t":1,"peak_g":2,"side":"lob"}"#.utf8))
        #expect(newer.side == "lob" && newer.jsonLine.hasSuffix(#""side":"lob"}"#))
        guard case .hit(let hit) = newer.detectorEvent else {
            Issue.record("a hit record with an unknown side is still a hit")
            return
        }
        #expect(hit.side == nil)
    }

    @Test("the flags' raw values are stable: stored and counted by name")
    func qualityNames() {
        #expect(
            QualityFlag.allCases.map(\.rawValue) == [
                "clipped", "edge_fallback", "low_floor_margin", "rate_too_low", "sample_gap", "side_unsure",
            ])
        for flag in QualityFlag.allCases { #expect(EventQuality(flag).flags == [flag]) }
        #expect(EventQuality(flags: QualityFlag.allCases).flags == QualityFlag.allCases)
    }

    @Test("a record gives back its detector event exactly")
    func detectorEvents() {
        for event in [Self.hit, Self.jump, Self.thrown, Self.step] {
            #expect(EventRecord(event).detectorEvent == event)
            #expect(EventRecord(event).t == event.time)
            #expect(EventRecord(event).type == event.kind.rawValue)
        }
    }

    @Test("records the detectors do not produce, or missing a needed field, have no detector event; flights complete")
    func partialRecords() {
        #expect(EventRecord(type: "serve", t: 1).detectorEvent == nil)
        #expect(EventRecord(type: "hit", t: 1).detectorEvent == nil)
        #expect(EventRecord(type: "jump", t: 1).detectorEvent == nil)
        #expect(EventRecord(type: "jump", t: 1, flightS: 0.5).detectorEvent == .jump(FlightEvent(start: 1, end: 1.5)))
        #expect(
            EventRecord(type: "hit", t: 1, peakG: 1.5).detectorEvent
                == .hit(HitEvent(t: 1, peakG: 1.5, saturated: false, intensityG: 1.5)))
        #expect(EventRecord(type: "step", t: 2).detectorEvent == .step(StepEvent(t: 2, cadence: 0)))
    }

    @Test("any JSON encoder writes the line's members at its decimals, so both decode to the same record")
    func encoderMatchesLine() throws {
        let awkward: [DetectorEvent] = [
            .hit(HitEvent(t: 12.345_678_9, peakG: 1.987_654_321, saturated: false, intensityG: 5.123_456_789)),
            .jump(FlightEvent(start: 3.141_592_653_589_793, end: 3.598_381_653_589_793)),
            .throw(FlightEvent(start: 100.000_049_999, end: 101.234_567_890_1)),
            .step(StepEvent(t: 7.77, cadence: 172.15)),
        ]
        let plain = JSONEncoder()
        plain.outputFormatting = [.sortedKeys]
        let snake = JSONEncoder()
        snake.keyEncodingStrategy = .convertToSnakeCase
        let fromSnake = JSONDecoder()
        fromSnake.keyDecodingStrategy = .convertFromSnakeCase
        for event in awkward {
            let record = EventRecord(event)
            let fromLine = try JSONDecoder().decode(EventRecord.self, from: Data(record.jsonLine.utf8))
            #expect(try JSONDecoder().decode(EventRecord.self, from: plain.encode(record)) == fromLine)
            #expect(try fromSnake.decode(EventRecord.self, from: snake.encode(record)) == fromLine)
            #expect(fromLine.jsonLine == record.jsonLine, "decoding the line and printing it again is stable")
            let keys = String(decoding: try snake.encode(record), as: UTF8.self)
            #expect(!keys.contains("peakG") && !keys.contains("flightS") && !keys.contains("cadenceSpm"))
        }
    }

    @Test("nil fields are left out; a non-finite number is null, which reads back as absent (NaN for t)")
    func nullsAndAbsence() throws {
        let json = String(decoding: try JSONEncoder().encode(EventRecord(Self.step)), as: UTF8.self)
        #expect(!json.contains("peak_g") && !json.contains("saturated") && json.contains("cadence_spm"))
        let odd = try JSONDecoder().decode(
            EventRecord.self, from: Data(#"{"type":"hit","t":null,"peak_g":null,"saturated":true}"#.utf8))
        #expect(odd.t.isNaN && odd.peakG == nil && odd.saturated == true)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(EventRecord.self, from: Data(#"{"t":1}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(EventRecord.self, from: Data(#"{"type":"hit"}"#.utf8))
        }
    }
}
