// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import SDUSensor
import SessionStore
import Testing

@Suite("StoredEvent ↔ DetectorEvent")
struct StoredEventMappingTests {
    static let events: [DetectorEvent] = [
        .hit(HitEvent(t: 12.345_678_9, peakG: 1.987_654_321, saturated: false, intensityG: 1.987_654_321)),
        .hit(HitEvent(t: 0.1 + 0.2, peakG: 3.4641, saturated: true, intensityG: 5.123_456_789_012)),
        .jump(FlightEvent(start: 3.141_592_653_589_793, end: 3.141_592_653_589_793 + 0.456_789)),
        .throw(FlightEvent(start: 100.000_049_999, end: 101.234_567_890_1)),
        .step(StepEvent(t: 7.77, cadence: 172.123_456_789_012_34)),
        .step(StepEvent(t: 8.5, cadence: 0)),
        .step(StepEvent(t: 9.25, cadence: 1e-300)),
    ]

    @Test("every detector event survives the round trip bit for bit, and keeps its analyze line")
    func roundTrip() throws {
        for event in Self.events {
            let stored = StoredEvent(event)
            let back = try #require(stored.detectorEvent)
            #expect(back == event)
            #expect(EventJSON.line(back) == EventJSON.line(event))
            #expect(stored.type == event.kind.rawValue)
            #expect(stored.t == event.time)
        }
    }

    @Test("the typed columns carry what the analyze schema has")
    func columns() {
        let hit = StoredEvent(.hit(HitEvent(t: 1.5, peakG: 2.5, saturated: true, intensityG: 3.25)))
        #expect(hit.peakG == 2.5 && hit.intensity == 3.25 && hit.saturated == true && hit.extra == nil)
        let flight = FlightEvent(start: 2, end: 2.5)
        let jump = StoredEvent(.jump(flight))
        #expect(jump.takeoff == 2 && jump.landing == 2.5 && jump.flightSeconds == 0.5)
        #expect(jump.heightMeters == flight.height && jump.release == nil && jump.catchTime == nil)
        let thrown = StoredEvent(.throw(flight))
        #expect(thrown.release == 2 && thrown.catchTime == 2.5 && thrown.takeoff == nil)
        #expect(thrown.flightSeconds == 0.5 && thrown.heightMeters == flight.height)
        let step = StoredEvent(.step(StepEvent(t: 4, cadence: 120.5)))
        #expect(step.extra == "{\"cadence_spm\":120.5}")
    }

    @Test("extra objects: shortest round-trip numbers, null for non-finite, any spacing when reading")
    func extra() throws {
        #expect(StoredEventExtra.object([("a", 0.1), ("b", .infinity)]) == "{\"a\":0.1,\"b\":null}")
        #expect(StoredEventExtra.number("a", in: "{ \"a\" : 2.5 , \"b\":1}") == 2.5)
        #expect(StoredEventExtra.number("b", in: "{\"a\":2.5,\"b\":-1e-3}") == -0.001)
        #expect(try #require(StoredEventExtra.number("a", in: "{\"a\":null}")).isNaN)
        #expect(StoredEventExtra.number("c", in: "{\"a\":1}") == nil)
        #expect(StoredEventExtra.number("a", in: "{\"a\":\"text\"}") == nil)
        let nan = StoredEvent(.step(StepEvent(t: 1, cadence: .nan)))
        guard case .step(let step) = try #require(nan.detectorEvent) else {
            Issue.record("a step came back as another kind")
            return
        }
        #expect(step.cadence.isNaN)
    }

    @Test("rows the detectors do not produce, or missing a needed field, map to nil; partial flights are completed")
    func partialRows() {
        #expect(StoredEvent(type: "serve", t: 1).detectorEvent == nil)
        #expect(StoredEvent(type: "hit", t: 1).detectorEvent == nil)
        #expect(StoredEvent(type: "jump", t: 1).detectorEvent == nil)
        #expect(
            StoredEvent(type: "jump", t: 1, flightSeconds: 0.5).detectorEvent
                == .jump(FlightEvent(start: 1, end: 1.5)))
        #expect(
            StoredEvent(type: "hit", t: 1, peakG: 1.5).detectorEvent
                == .hit(HitEvent(t: 1, peakG: 1.5, saturated: false, intensityG: 1.5)))
        #expect(StoredEvent(type: "step", t: 2).detectorEvent == .step(StepEvent(t: 2, cadence: 0)))
    }

    @Test("microsecond times: rounding is idempotent and matches the CSV's six decimals")
    func storeTime() {
        for text in ["0.000000", "0.123456", "12.000001", "3599.999999", "86400.500000"] {
            let parsed = Double(text)!
            #expect(StoreTime.microseconds(parsed) == parsed)
            #expect(SampleCSV.fixed(StoreTime.microseconds(parsed + 4.9e-7), decimals: 6) == text)
        }
        #expect(StoreTime.microseconds(0.000_000_5) == 0.000_001)
        #expect(StoreTime.microseconds(-0.000_000_5) == -0.000_001)
    }
}
