// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// One table-tennis stroke (or any short, hard swing).
public struct HitEvent: Hashable, Sendable {
    /// Time of the stroke: the centroid of its dynamic-acceleration energy (at ball contact for a
    /// symmetric swing), in the stream's seconds.
    public var t: Double
    /// The largest |a| measured in the stroke, in g (at most √3 × 2 g when all axes clip).
    public var peakG: Double
    /// True when an axis reached the sensor's full scale (±2 g) during the stroke: `peakG` is then
    /// a lower bound and `intensityG` an extrapolation.
    public var saturated: Bool
    /// An estimate of the stroke's true peak |a| in g that keeps ranking strokes when the sensor
    /// clips: equal to `peakG` for unclipped strokes, extrapolated from the time spent above the
    /// clip level and the slopes into and out of it otherwise.
    public var intensityG: Double
    /// How far to trust the stroke (empty when nothing is doubtful).
    public var quality: EventQuality
    /// The side the stroke was played on; nil when the detector cannot tell.
    public var side: StrokeSide?

    /// Creates a hit event.
    @inlinable public init(
        t: Double, peakG: Double, saturated: Bool, intensityG: Double, quality: EventQuality = EventQuality(),
        side: StrokeSide? = nil
    ) {
        self.t = t
        self.peakG = peakG
        self.saturated = saturated
        self.intensityG = intensityG
        self.quality = quality
        self.side = side
    }
}

/// A flight between two ground (or hand) contacts: a jump, or a throw of the sensor itself.
public struct FlightEvent: Hashable, Sendable {
    /// When the flight began (takeoff or release), interpolated between samples, in seconds.
    public var start: Double
    /// When the flight ended (landing or catch), interpolated between samples, in seconds.
    public var end: Double
    /// How far to trust the flight (empty when nothing is doubtful).
    public var quality: EventQuality

    /// Creates a flight from its start and end times.
    @inlinable public init(start: Double, end: Double, quality: EventQuality = EventQuality()) {
        self.start = start
        self.end = end
        self.quality = quality
    }

    /// Seconds in the air.
    @inlinable public var flightTime: Double { end - start }

    /// Height of the centre of mass above its takeoff level at the apex, in metres, from the
    /// flight time alone: h = g·t²/8 (a symmetric ballistic flight rises for t/2 seconds).
    @inlinable public var height: Double { FlightEvent.height(flightTime: flightTime) }

    /// Standard gravity, m/s².
    public static let standardGravity = 9.80665

    /// h = g·t²/8, in metres.
    @inlinable public static func height(flightTime t: Double) -> Double { standardGravity * t * t / 8 }
}

/// One step (a foot contact).
public struct StepEvent: Hashable, Sendable {
    /// Time of the step, in seconds.
    public var t: Double
    /// Steps per minute over the recent steps when this one was counted (0 until known).
    public var cadence: Double
    /// How far to trust the step (empty when nothing is doubtful).
    public var quality: EventQuality

    /// Creates a step event.
    @inlinable public init(t: Double, cadence: Double, quality: EventQuality = EventQuality()) {
        self.t = t
        self.cadence = cadence
        self.quality = quality
    }
}

/// Anything a detector reports.
public enum DetectorEvent: Hashable, Sendable {
    /// A stroke.
    case hit(HitEvent)
    /// A jump: takeoff to landing.
    case jump(FlightEvent)
    /// A throw of the sensor: release to catch.
    case `throw`(FlightEvent)
    /// A step.
    case step(StepEvent)

    /// The time events are ordered by: the hit or step time, the takeoff or release time.
    @inlinable public var time: Double {
        switch self {
        case .hit(let hit): hit.t
        case .jump(let flight), .throw(let flight): flight.start
        case .step(let step): step.t
        }
    }

    /// How far to trust the event.
    @inlinable public var quality: EventQuality {
        switch self {
        case .hit(let hit): hit.quality
        case .jump(let flight), .throw(let flight): flight.quality
        case .step(let step): step.quality
        }
    }

    /// The kind of event as a lowercase word (`hit`, `jump`, `throw`, `step`).
    @inlinable public var kind: EventKind {
        switch self {
        case .hit: .hit
        case .jump: .jump
        case .throw: .throw
        case .step: .step
        }
    }
}

/// The four kinds of event.
public enum EventKind: String, Hashable, Sendable, CaseIterable {
    case hit
    case jump
    case `throw`
    case step
}

/// A streaming detector: fed blocks of samples in time order (one notification's, or a batch of a
/// file's), it appends the events completed in each and flushes what it still holds at the end of the
/// stream.
///
/// How the samples are cut into blocks does not change the events. Detectors hold O(1) state and
/// never allocate per sample; a block is processed together (|a|² and filters over the block, the
/// event logic only where an event may begin).
public protocol StreamingDetector: Sendable {
    /// Consumes a block of samples; appends the events completed in it, in the order they complete.
    mutating func process(_ block: UnsafeBufferPointer<AccelerationSample>, into events: inout [DetectorEvent])
    /// Ends the stream: returns the events still pending (in time order) and resets nothing else.
    mutating func finish() -> [DetectorEvent]
}

extension StreamingDetector {
    /// Feeds a batch of samples as one block, appending the events to `events`.
    @inlinable public mutating func process<Samples: Sequence>(
        _ samples: Samples, into events: inout [DetectorEvent]
    ) where Samples.Element == AccelerationSample {
        let done: Void? = samples.withContiguousStorageIfAvailable { process($0, into: &events) }
        if done == nil { Array(samples).withUnsafeBufferPointer { process($0, into: &events) } }
    }

    /// Runs a whole recording through a fresh copy of the detector and returns every event.
    @inlinable public func events<Samples: Sequence>(in samples: Samples) -> [DetectorEvent]
    where Samples.Element == AccelerationSample {
        var detector = self
        var events: [DetectorEvent] = []
        detector.process(samples, into: &events)
        events.append(contentsOf: detector.finish())
        return events
    }
}
