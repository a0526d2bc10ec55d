// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// Where a `SensorLink` hands its samples: the one way samples leave a link.
///
/// The link calls ``samplesArrived(_:)`` on the thread that read the notification, after it
/// released its own lock, once per notification that yielded new samples, in index order and
/// never twice at once. A sink must not block, and must not call back into the link.
///
/// ## Locks of the sample path
///
/// Each layer works under its own lock, returns what it produced and calls the next one after
/// unlocking, so no lock of the path is held while another is taken. One notification takes,
/// each released before the next: `SeqPacketBearer.Inbox` → `GATTClient.state` →
/// `SensorLink.core` → `SensorChannel.state` (to find the session) → `SessionPipeline.state` →
/// `SessionRecorder.buffer` → `EventBus`. Held while calling something else are only leaves: the
/// standard library's `AsyncStream` continuations and swift-log. Docs/ARCHITECTURE.md ("Locks")
/// says the same; `make tsan` checks it under load.
public protocol SensorSampleSink: AnyObject, Sendable {
    /// The new samples of one notification, in index order; never empty, never a sample whose
    /// index is at or below one handed over before. `batch` is the link's reused buffer: copy
    /// what is kept (a kept batch makes the link allocate a new buffer for the next one).
    func samplesArrived(_ batch: [IndexedSample])
}
