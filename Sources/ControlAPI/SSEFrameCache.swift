// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Synchronization

/// The SSE frames of the events published last, so that an event every subscriber receives is
/// JSON-encoded once, not once per subscriber: each stream asks for the frame of the event it
/// holds, the first to ask encodes it, the others find it here (a recent event sits at the front,
/// so the lookup is a comparison or two).
final class SSEFrameCache: Sendable {
    private struct Entry {
        var hash: Int
        var event: GatewayEvent
        var frame: String
    }

    /// Enough for every subscriber to find a burst of events (a second's counters of many
    /// sessions) that they read a little apart.
    let capacity: Int
    private let entries: Mutex<[Entry]>

    init(capacity: Int = 128) {
        self.capacity = max(1, capacity)
        entries = Mutex([])
    }

    /// `event`'s frame, encoded with `encode` unless an equal event's frame is held.
    func frame(for event: GatewayEvent, encode: (GatewayEvent) throws -> String) rethrows -> String {
        // One hash, then integer comparisons: a miss (the first subscriber) costs little.
        let hash = event.hashValue
        let held = entries.withLock { entries -> String? in
            // Newest last: subscribers usually ask for what was published most recently.
            for entry in entries.reversed() where entry.hash == hash && entry.event == event { return entry.frame }
            return nil
        }
        if let held { return held }
        let frame = try encode(event)
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeFirst(entries.count - capacity + 1) }
            entries.append(Entry(hash: hash, event: event, frame: frame))
        }
        return frame
    }
}
