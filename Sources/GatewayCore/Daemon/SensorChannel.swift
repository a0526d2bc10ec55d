// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import ControlProtocol
import Foundation
import NIOConcurrencyHelpers
import SDUSensor
import SensorLinks
import SessionStore

/// One paired sensor inside the gateway: its link, what the store knows about it, its link state
/// and its live session. The link consumer reads and writes it without going through anyone's
/// actor, so the sample path never waits for a control request.
final class SensorChannel<C: Clock>: Sendable where C.Duration == Duration {
    /// Whether the sensor records, is about to, or is free.
    enum SessionSlot: Sendable {
        /// No session.
        case free
        /// A session with this id is being created (store writes in flight): nobody else may start one.
        case starting(UUID)
        /// A session records.
        case live(SessionPipeline<C>)
    }

    struct State: Sendable {
        var record: SensorRecord
        var athleteName: String?
        /// nil until the link reports its first state (`connecting` on the wire).
        var linkState: LinkState?
        var session: SessionSlot = .free
        var activity = MotionActivity()
        var autoStartPending = false
    }

    let address: BluetoothAddress
    let isVirtual: Bool
    let link: SensorLink<C>
    /// The adapters' slots the link takes one of; nil for a virtual sensor.
    let adapterPool: AdapterPool?
    /// What the controller gave the link, when known.
    let linkParameters: @Sendable (BluetoothAddress) -> LinkParametersInfo?
    let state: NIOLockedValueBox<State>

    init(
        record: SensorRecord, athleteName: String?, isVirtual: Bool, link: SensorLink<C>, adapterPool: AdapterPool?,
        linkParameters: @escaping @Sendable (BluetoothAddress) -> LinkParametersInfo? = { _ in nil }
    ) {
        address = record.address
        self.isVirtual = isVirtual
        self.link = link
        self.adapterPool = adapterPool
        self.linkParameters = linkParameters
        state = NIOLockedValueBox(State(record: record, athleteName: athleteName))
    }

    var record: SensorRecord { state.withLockedValue { $0.record } }
    var linkState: LinkState? { state.withLockedValue { $0.linkState } }
    var isConnected: Bool { state.withLockedValue { $0.linkState?.isConnected == true } }

    /// The live session, if one records.
    var pipeline: SessionPipeline<C>? {
        state.withLockedValue { state in
            if case .live(let pipeline) = state.session { return pipeline }
            return nil
        }
    }

    /// `alias`, else the address.
    var label: String { state.withLockedValue { $0.record.alias ?? "\(address)" } }

    /// Takes the session slot for the new session `id`; nil when it is taken, else the id of the
    /// session that records or is being started, so a refusal can name it.
    func reserveSession(id: UUID) -> String? {
        state.withLockedValue { state in
            switch state.session {
            case .free:
                state.session = .starting(id)
                return nil
            case .starting(let other): return other.uuidString.lowercased()
            case .live(let pipeline): return pipeline.sessionID
            }
        }
    }

    /// Fills a reserved slot with the started session, or frees it when starting failed.
    func completeReservation(with pipeline: SessionPipeline<C>?) {
        state.withLockedValue { $0.session = pipeline.map { .live($0) } ?? .free }
    }

    /// Frees the slot and returns the session that recorded, if any (with `only`, only when it
    /// is that one).
    func takePipeline(only: SessionPipeline<C>? = nil) -> SessionPipeline<C>? {
        state.withLockedValue { state in
            guard case .live(let pipeline) = state.session, only == nil || only === pipeline else { return nil }
            state.session = .free
            return pipeline
        }
    }

    /// The link's state on the wire: `no-slot` while it waits for an adapter's slot.
    var linkStateName: LinkStateName {
        adapterPool?.isWaiting(address) == true ? .noSlot : LinkState.wireName(linkState)
    }

    func info() -> SensorInfo {
        let linkState = linkStateName
        let adapter = adapterPool?.adapter(holding: address)
        let parameters = isConnected ? linkParameters(address) : nil
        return state.withLockedValue { state in
            var live: String?
            if case .live(let pipeline) = state.session { live = pipeline.sessionID }
            return SensorInfo(
                address: "\(address)", addressType: "\(address.kind)", alias: state.record.alias,
                name: state.record.advertisedName, athlete: state.athleteName, linkState: linkState,
                lastSeen: state.record.lastSeen, isVirtual: isVirtual, liveSessionId: live, adapter: adapter,
                linkParameters: parameters)
        }
    }
}
