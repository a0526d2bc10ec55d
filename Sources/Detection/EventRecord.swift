// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// One detected event as everything outside the detectors carries it: `analyze` and `reanalyze`
/// print it, the store keeps it, the control API and its event stream send it, `export --format
/// jsonl` writes it. Keys are snake_case with the unit in the name; a field that does not apply to
/// the event's type is nil and left out.
///
/// Times are seconds after the start of the recording (the session's `started_at`). The JSON
/// carries 4 decimals for times (0.1 ms: flights are interpolated between samples), 3 for g and
/// metres, 1 for cadence: `jsonLine` prints exactly those digits and `encode(to:)` writes the
/// values rounded to them, so every output of the same event decodes to the same record.
public struct EventRecord: Hashable, Sendable {
    /// `hit`, `jump`, `throw` or `step` (a store written by a newer version may hold others).
    public var type: String
    /// When the event happened: a hit's or step's time, a flight's takeoff or release.
    public var t: Double
    /// A hit's largest measured |a|, g.
    public var peakG: Double?
    /// True when a hit clipped at the sensor's ±2 g range (`peak_g` is then a lower bound).
    public var saturated: Bool?
    /// A hit's estimated true peak |a|, g (ranks clipped strokes).
    public var intensityG: Double?
    /// A jump's takeoff, s.
    public var takeoff: Double?
    /// A jump's landing, s.
    public var landing: Double?
    /// A throw's release, s.
    public var release: Double?
    /// A throw's catch, s.
    public var `catch`: Double?
    /// A jump's or throw's time in the air, s.
    public var flightS: Double?
    /// A jump's or throw's height from its flight time (g·t²/8), m.
    public var heightM: Double?
    /// Steps per minute over the recent steps when a step was counted (0 until known).
    public var cadenceSpm: Double?
    /// Why to trust the event less: `QualityFlag` raw values in their declaration order; nil (left
    /// out) when there are none. Text, not the enum, so a record from a newer version with a flag
    /// this one does not know still loads and is written back unchanged.
    public var quality: [String]?
    /// A hit's side: `forehand` or `backhand` (`StrokeSide`); nil when the detector could not tell.
    /// Text, like `quality`, so a newer version's value loads and is written back unchanged.
    public var side: String?

    /// Creates a record; fields that do not apply to `type` stay nil.
    public init(
        type: String, t: Double, peakG: Double? = nil, saturated: Bool? = nil, intensityG: Double? = nil,
        takeoff: Double? = nil, landing: Double? = nil, release: Double? = nil, catch: Double? = nil,
        flightS: Double? = nil, heightM: Double? = nil, cadenceSpm: Double? = nil, quality: [String]? = nil,
        side: String? = nil
    ) {
        self.type = type
        self.t = t
        self.peakG = peakG
        self.saturated = saturated
        self.intensityG = intensityG
        self.takeoff = takeoff
        self.landing = landing
        self.release = release
        self.catch = `catch`
        self.flightS = flightS
        self.heightM = heightM
        self.cadenceSpm = cadenceSpm
        self.quality = quality
        self.side = side
    }

    /// The record of a detector event (flight time and height derived as `FlightEvent` does).
    public init(_ event: DetectorEvent) {
        switch event {
        case .hit(let hit):
            self.init(
                type: EventKind.hit.rawValue, t: hit.t, peakG: hit.peakG, saturated: hit.saturated,
                intensityG: hit.intensityG, quality: Self.flags(hit.quality), side: hit.side?.rawValue)
        case .jump(let flight):
            self.init(
                type: EventKind.jump.rawValue, t: flight.start, takeoff: flight.start, landing: flight.end,
                flightS: flight.flightTime, heightM: flight.height, quality: Self.flags(flight.quality))
        case .throw(let flight):
            self.init(
                type: EventKind.throw.rawValue, t: flight.start, release: flight.start, catch: flight.end,
                flightS: flight.flightTime, heightM: flight.height, quality: Self.flags(flight.quality))
        case .step(let step):
            self.init(
                type: EventKind.step.rawValue, t: step.t, cadenceSpm: step.cadence, quality: Self.flags(step.quality))
        }
    }

    /// The flags the record carries for `quality`: nil when it is empty.
    static func flags(_ quality: EventQuality) -> [String]? {
        quality.isEmpty ? nil : quality.flags.map(\.rawValue)
    }

    /// The known flags among `quality` (a newer version's unknown ones are left out).
    public var qualityFlags: EventQuality {
        EventQuality(flags: (quality ?? []).compactMap(QualityFlag.init(rawValue:)))
    }

    /// The detector event this record describes; nil for a type the detectors do not produce or a
    /// record missing what its type needs (a hit without its peak, a flight without its end).
    public var detectorEvent: DetectorEvent? {
        switch EventKind(rawValue: type) {
        case .hit:
            guard let peakG else { return nil }
            return .hit(
                HitEvent(
                    t: t, peakG: peakG, saturated: saturated ?? false, intensityG: intensityG ?? peakG,
                    quality: qualityFlags, side: side.flatMap(StrokeSide.init(rawValue:))))
        case .jump:
            let start = takeoff ?? t
            guard let end = landing ?? flightS.map({ start + $0 }) else { return nil }
            return .jump(FlightEvent(start: start, end: end, quality: qualityFlags))
        case .throw:
            let start = release ?? t
            guard let end = `catch` ?? flightS.map({ start + $0 }) else { return nil }
            return .throw(FlightEvent(start: start, end: end, quality: qualityFlags))
        case .step:
            return .step(StepEvent(t: t, cadence: cadenceSpm ?? 0, quality: qualityFlags))
        case nil:
            return nil
        }
    }
}

// MARK: JSON

extension EventRecord: Codable {
    /// The record's keys, in the order every output writes them.
    enum Key: String, CodingKey {
        case type, t
        case peakG = "peak_g"
        case saturated
        case intensityG = "intensity_g"
        case takeoff, landing, release
        case `catch`
        case flightS = "flight_s"
        case heightM = "height_m"
        case cadenceSpm = "cadence_spm"
        case quality
        case side

        /// Decimals the key's number is written with.
        var decimals: Int {
            switch self {
            case .peakG, .intensityG, .heightM: 3
            case .cadenceSpm: 1
            default: 4
            }
        }
    }

    /// One member's value.
    enum Member {
        case text(String)
        case number(Double)
        case flag(Bool)
        case texts([String])
    }

    /// The members present, in key order.
    var members: [(key: Key, value: Member)] {
        let optional: [(Key, Member?)] = [
            (.peakG, peakG.map(Member.number)), (.saturated, saturated.map(Member.flag)),
            (.intensityG, intensityG.map(Member.number)), (.takeoff, takeoff.map(Member.number)),
            (.landing, landing.map(Member.number)), (.release, release.map(Member.number)),
            (.catch, `catch`.map(Member.number)), (.flightS, flightS.map(Member.number)),
            (.heightM, heightM.map(Member.number)), (.cadenceSpm, cadenceSpm.map(Member.number)),
            (.quality, quality.flatMap { $0.isEmpty ? nil : Member.texts($0) }),
            (.side, side.map(Member.text)),
        ]
        return [(.type, .text(type)), (.t, .number(t))] + optional.compactMap { key, value in value.map { (key, $0) } }
    }

    /// The record as one line of JSON: keys in a fixed order, numbers with their fixed decimals
    /// (`null` when not finite), no whitespace. The text `analyze`, `reanalyze` and `export
    /// --format jsonl` print.
    public var jsonLine: String {
        var text = "{"
        for (index, member) in members.enumerated() {
            if index > 0 { text += "," }
            text += "\"\(member.key.rawValue)\":"
            switch member.value {
            case .text(let value): text += Self.quoted(value)
            case .flag(let value): text += value ? "true" : "false"
            case .texts(let values): text += "[" + values.map(Self.quoted).joined(separator: ",") + "]"
            case .number(let value):
                text += value.isFinite ? SampleCSV.fixed(value, decimals: member.key.decimals) : "null"
            }
        }
        return text + "}"
    }

    /// Writes the members `jsonLine` prints, numbers rounded to the same decimals (`nil` when not
    /// finite), so a record sent through any JSON encoder decodes as its printed line does.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for member in members {
            switch member.value {
            case .text(let value): try container.encode(value, forKey: member.key)
            case .flag(let value): try container.encode(value, forKey: member.key)
            case .texts(let values): try container.encode(values, forKey: member.key)
            case .number(let value):
                if let rounded = Self.rounded(value, decimals: member.key.decimals) {
                    try container.encode(rounded, forKey: member.key)
                } else {
                    try container.encodeNil(forKey: member.key)
                }
            }
        }
    }

    /// Reads a record whatever key strategy the decoder uses (`peak_g` and `peakG` are the same
    /// member); a `null` number is NaN for `t` and absent for the others.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: DetectionCodingKey.self)
        let members = LenientMembers(container)
        func number(_ key: Key) throws -> Double? {
            guard let found = members[key.rawValue] else { return nil }
            return try container.decodeIfPresent(Double.self, forKey: found)
        }
        guard let typeKey = members[Key.type.rawValue] else {
            throw DecodingError.keyNotFound(
                Key.type,
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "an event needs a type"))
        }
        guard let timeKey = members[Key.t.rawValue] else {
            throw DecodingError.keyNotFound(
                Key.t, DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "an event needs a time"))
        }
        self.init(
            type: try container.decode(String.self, forKey: typeKey),
            t: try container.decodeIfPresent(Double.self, forKey: timeKey) ?? .nan, peakG: try number(.peakG),
            saturated: try members[Key.saturated.rawValue].flatMap {
                try container.decodeIfPresent(Bool.self, forKey: $0)
            },
            intensityG: try number(.intensityG), takeoff: try number(.takeoff), landing: try number(.landing),
            release: try number(.release), catch: try number(.catch), flightS: try number(.flightS),
            heightM: try number(.heightM), cadenceSpm: try number(.cadenceSpm),
            quality: try members[Key.quality.rawValue].flatMap {
                try container.decodeIfPresent([String].self, forKey: $0)
            }.flatMap { $0.isEmpty ? nil : $0 },
            side: try members[Key.side.rawValue].flatMap { try container.decodeIfPresent(String.self, forKey: $0) })
    }

    /// `value` rounded half away from zero to `decimals`, as `SampleCSV.fixed` prints it; nil when
    /// not finite.
    static func rounded(_ value: Double, decimals: Int) -> Double? {
        guard value.isFinite else { return nil }
        var scale: Double = 1
        for _ in 0..<decimals { scale *= 10 }
        let units = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard units.isFinite else { return value }
        return (value < 0 ? -units : units) / scale
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
