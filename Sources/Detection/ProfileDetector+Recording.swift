// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

extension ProfileDetector {
    /// Runs a whole recording through a fresh copy of the detector; events in time order (a
    /// profile runs several detectors, whose events complete at different delays), ties kept in
    /// the order they were reported.
    public func eventsInTimeOrder(in samples: [AccelerationSample]) -> [DetectorEvent] {
        events(in: samples).enumerated()
            .sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
            .map(\.element)
    }
}
