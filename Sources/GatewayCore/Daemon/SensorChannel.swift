// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import ControlProtocol
import Foundation
import SDUSensor
import SessionStore
import Synchronization

/// One paired sensor inside the gateway: its link, what the store knows about it, its link state
/// and its live session. The link consumer reads and writes it without going through the
/// gateway's actor, so the sample path never waits for a control request.
final class SensorChannel<C: Clock>: Sendable where C.Duration == Duration {
    struct State: Sendable {
        var record: SensorRecord
        var athleteName: String?
        var linkState = "connecting"
        var connected = false
        var pipeline: SessionPipeline<C>?
        var activity = MotionActivity()
        var autoStartPending = false
    }

    let address: BluetoothAddress
    let isVirtual: Bool
    let link: SensorLink<C>
    /// When the link's sample clock started: sample times are seconds after it.
    let linkOrigin: C.Instant
    let state: Mutex<State>

    init(record: SensorRecord, athleteName: String?, isVirtual: Bool, link: SensorLink<C>, linkOrigin: C.Instant) {
        address = record.address
        self.isVirtual = isVirtual
        self.link = link
        self.linkOrigin = linkOrigin
        state = Mutex(State(record: record, athleteName: athleteName))
    }

    var record: SensorRecord { state.withLock { $0.record } }
    var pipeline: SessionPipeline<C>? { state.withLock { $0.pipeline } }
    var isConnected: Bool { state.withLock { $0.connected } }
    var linkState: String { state.withLock { $0.linkState } }

    /// `alias`, else the address.
    var label: String { state.withLock { $0.record.alias ?? "\(address)" } }

    func info() -> SensorInfo {
        state.withLock { state in
            SensorInfo(
                address: "\(address)", addressType: "\(address.kind)", alias: state.record.alias,
                name: state.record.advertisedName, athlete: state.athleteName, linkState: state.linkState,
                lastSeen: state.record.lastSeen, isVirtual: isVirtual, liveSessionId: state.pipeline?.sessionID)
        }
    }
}
