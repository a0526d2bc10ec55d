// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB
import SDUSensor
import Testing

@testable import SessionStore

@Suite("Event records in the store")
struct EventRowTests {
    static let events: [DetectorEvent] = [
        .hit(HitEvent(t: 12.345_678_9, peakG: 1.987_654_321, saturated: false, intensityG: 1.987_654_321)),
        .hit(HitEvent(t: 0.1 + 0.2, peakG: 3.4641, saturated: true, intensityG: 5.123_456_789_012)),
        .jump(FlightEvent(start: 3.141_592_653_589_793, end: 3.141_592_653_589_793 + 0.456_789)),
        .throw(FlightEvent(start: 100.000_049_999, end: 101.234_567_890_1)),
        .step(StepEvent(t: 7.77, cadence: 172.123_456_789_012_34)),
        .step(StepEvent(t: 8.5, cadence: 0)),
        .step(StepEvent(t: 9.25, cadence: 1e-300)),
    ]

    @Test("every record reads back bit for bit, and gives back its detector event")
    func roundTrip() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let records =
            Self.events.map(EventRecord.init) + [
                EventRecord(type: "serve", t: 1, peakG: 1.5, release: 0.9, heightM: 0.2)
            ]
        let session = try await store.importSession(
            NewSession(settings: DetectionSettings(profile: .steps)), samples: [], events: records)
        let back = try await store.events(of: session.id)
        #expect(back == records)
        #expect(back.dropLast().map(\.detectorEvent) == Self.events)
    }

    @Test("the columns hold the record's fields; a step's cadence goes in extra")
    func columns() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let flight = FlightEvent(start: 2, end: 2.5)
        let session = try await store.importSession(
            NewSession(settings: DetectionSettings(profile: .steps)), samples: [],
            events: [
                EventRecord(.hit(HitEvent(t: 1.5, peakG: 2.5, saturated: true, intensityG: 3.25))),
                EventRecord(.jump(flight)), EventRecord(.throw(flight)),
                EventRecord(.step(StepEvent(t: 4, cadence: 120.5))),
            ])
        let rows = try store.database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM events WHERE session_id = ? ORDER BY sequence", arguments: [session.idText])
        }
        func number(_ row: Int, _ column: String) -> Double? { rows[row][column] }
        #expect(number(0, "peak_g") == 2.5 && number(0, "intensity") == 3.25 && number(0, "saturated") == 1)
        #expect(number(1, "takeoff") == 2 && number(1, "landing") == 2.5 && number(1, "flight_s") == 0.5)
        #expect(number(1, "height_m") == flight.height && number(1, "release") == nil)
        #expect(number(2, "release") == 2 && number(2, "catch_t") == 2.5 && number(2, "takeoff") == nil)
        #expect(rows[3]["extra"] as String? == #"{"cadence_spm":120.5}"#)
        #expect((0..<4).allSatisfy { number($0, "t") != nil })
    }

    @Test("quality flags go in extra beside a cadence and read back; rows written without them have none")
    func qualityFlags() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let records = [
            EventRecord(.jump(FlightEvent(start: 2, end: 2.5, quality: [.edgeFallback, .sampleGap]))),
            EventRecord(.step(StepEvent(t: 4, cadence: 120.5, quality: .rateTooLow))),
            EventRecord(type: "hit", t: 1, peakG: 2, quality: ["clipped", "from_a_newer_version"]),
            EventRecord(.step(StepEvent(t: 5, cadence: 121))),
        ]
        let session = try await store.importSession(
            NewSession(settings: DetectionSettings(profile: .steps)), samples: [], events: records)
        let rows = try store.database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT extra FROM events WHERE session_id = ? ORDER BY sequence", arguments: [session.idText])
        }
        #expect(rows[0]["extra"] as String? == #"{"quality":["edge_fallback","sample_gap"]}"#)
        #expect(rows[1]["extra"] as String? == #"{"cadence_spm":120.5,"quality":["rate_too_low"]}"#)
        #expect(rows[3]["extra"] as String? == #"{"cadence_spm":121.0}"#)
        let back = try await store.events(of: session.id)
        #expect(back == records)
        #expect(back[0].detectorEvent?.quality == [.edgeFallback, .sampleGap])
        #expect(back[2].qualityFlags == .clipped)
    }

    @Test("a hit's side goes in extra beside its flags and reads back; rows written without it have none")
    func sides() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let records = [
            EventRecord(.hit(HitEvent(t: 1, peakG: 1.5, saturated: false, intensityG: 1.5, side: .forehand))),
            EventRecord(
                .hit(HitEvent(t: 2, peakG: 2, saturated: true, intensityG: 2.4, quality: .clipped, side: .backhand))),
            EventRecord(type: "hit", t: 3, peakG: 1.2, side: "overhead"),
            EventRecord(.hit(HitEvent(t: 4, peakG: 1.1, saturated: false, intensityG: 1.1))),
        ]
        let session = try await store.importSession(
            NewSession(settings: DetectionSettings(profile: .tableTennis)), samples: [], events: records)
        let rows = try store.database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT extra FROM events WHERE session_id = ? ORDER BY sequence", arguments: [session.idText])
        }
        #expect(rows[0]["extra"] as String? == #"{"side":"forehand"}"#)
        #expect(rows[1]["extra"] as String? == #"{"quality":["clipped"],"side":"backhand"}"#)
        #expect(rows[3]["extra"] as String? == nil)
        let back = try await store.events(of: session.id)
        #expect(back == records)
        #expect(back[1].detectorEvent == records[1].detectorEvent)
        func side(_ record: EventRecord) -> StrokeSide? {
            guard case .hit(let hit) = record.detectorEvent else { return nil }
            return hit.side
        }
        #expect(back.map(side) == [.forehand, .backhand, nil, nil])
        #expect(EventExtra.text("side", in: #"{ "side" : "forehand" }"#) == "forehand")
        #expect(EventExtra.text("side", in: #"{"side":1}"#) == nil)
    }

    @Test("v1 rows read as records: extra's cadence is read, anything else in it is not a record field")
    func v1Rows() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let queue = try DatabaseQueue(path: temporary.databasePath)
        try await queue.write { db in try db.execute(sql: V1Fixture.sql) }
        try queue.close()
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let events = try await store.events(of: try await store.session(idPrefix: "5e55").id)
        #expect(
            events == [
                EventRecord(type: "hit", t: 0.51, peakG: 1.9, saturated: true, intensityG: 0.8),
                EventRecord(
                    type: "jump", t: 0.53, saturated: false, takeoff: 0.52, landing: 1.02, flightS: 0.5, heightM: 0.31),
            ])
    }

    @Test("extra objects: shortest round-trip numbers, null for non-finite, any spacing when reading")
    func extra() throws {
        #expect(EventExtra.object([("a", 0.1), ("b", .infinity)]) == "{\"a\":0.1,\"b\":null}")
        #expect(EventExtra.number("a", in: "{ \"a\" : 2.5 , \"b\":1}") == 2.5)
        #expect(EventExtra.number("b", in: "{\"a\":2.5,\"b\":-1e-3}") == -0.001)
        #expect(try #require(EventExtra.number("a", in: "{\"a\":null}")).isNaN)
        #expect(EventExtra.number("c", in: "{\"a\":1}") == nil)
        #expect(EventExtra.number("a", in: "{\"a\":\"text\"}") == nil)
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
