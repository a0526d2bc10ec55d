// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import SessionStore

// How detector events and stored events become the event stream's payloads (the store's rows
// come from SessionStore's own `StoredEvent(DetectorEvent)`).

enum DetectionMapping {
    /// A detector event as the event stream carries it.
    static func payload(_ event: DetectorEvent, session: String, sensor: String) -> DetectionPayload {
        switch event {
        case .hit(let hit):
            DetectionPayload(
                sessionId: session, sensor: sensor, type: "hit", t: hit.t, peakG: hit.peakG, saturated: hit.saturated,
                intensity: hit.intensityG)
        case .jump(let flight):
            DetectionPayload(
                sessionId: session, sensor: sensor, type: "jump", t: flight.start, takeoff: flight.start,
                landing: flight.end, flightS: flight.flightTime, heightM: flight.height)
        case .throw(let flight):
            DetectionPayload(
                sessionId: session, sensor: sensor, type: "throw", t: flight.start, release: flight.start,
                catch: flight.end, flightS: flight.flightTime, heightM: flight.height)
        case .step(let step):
            DetectionPayload(sessionId: session, sensor: sensor, type: "step", t: step.t)
        }
    }

    /// A stored event as the control API returns it.
    static func payload(_ event: StoredEvent, session: String, sensor: String) -> DetectionPayload {
        DetectionPayload(
            sessionId: session, sensor: sensor, type: event.type, t: event.t, peakG: event.peakG,
            saturated: event.saturated, intensity: event.intensity, takeoff: event.takeoff, landing: event.landing,
            release: event.release, catch: event.catchTime, flightS: event.flightSeconds, heightM: event.heightMeters)
    }
}
