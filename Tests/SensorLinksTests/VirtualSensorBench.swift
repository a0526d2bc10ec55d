// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GATTClient
import GatewayTesting
import NIOConcurrencyHelpers
import SDUSensor
import SensorLinks
import VirtualSensor

/// A source whose n-th sample has x = n (truncated to Int16), so every sample is recognisable.
struct CountingSource: AccelerationSource {
    var index = 0

    static func sample(_ index: Int) -> RawAcceleration {
        RawAcceleration(x: Int16(truncatingIfNeeded: index), y: Int16(truncatingIfNeeded: -index), z: 16384)
    }

    mutating func nextSample() -> RawAcceleration {
        defer { index += 1 }
        return Self.sample(index)
    }
}

/// Collects a virtual sensor's ground truth.
final class NotificationLog: Sendable {
    private let entries = NIOLockedValueBox<[VirtualSensorNotification]>([])

    func append(_ notification: VirtualSensorNotification) { entries.withLockedValue { $0.append(notification) } }

    var all: [VirtualSensorNotification] { entries.withLockedValue { $0 } }
}

/// The connector side of the integration tests: every `connect` makes a loopback pair, serves the
/// next planned virtual sensor on the far end (after the previous connection's `run` has ended,
/// as one radio would) and hands the near end to the link. The last plan repeats.
final class VirtualSensorBench: Sendable {
    struct Plan: Sendable {
        var sensor: VirtualSensor<ManualClock>
        /// Notifications delivered before the sensor stalls with the link still up; nil: never.
        var stallAfter: Int?
    }

    private struct State {
        var plans: [Plan]
        var next = 0
        var previous: Task<Void, Never>?
        var linkEnds: [LoopbackATTBearer] = []
        var stalling: [StallingATTBearer] = []
        var connectTimes: [ManualClock.Instant] = []
    }

    let clock: ManualClock
    private let state: NIOLockedValueBox<State>

    init(clock: ManualClock, plans: [Plan]) {
        self.clock = clock
        state = NIOLockedValueBox(State(plans: plans))
    }

    var connector: ClosureSensorConnector {
        ClosureSensorConnector { address in try await self.connect(to: address) }
    }

    /// When each connection was opened, on the manual clock.
    var connectTimes: [ManualClock.Instant] { state.withLockedValue { $0.connectTimes } }
    /// The link's end of each connection.
    var linkEnds: [LoopbackATTBearer] { state.withLockedValue { $0.linkEnds } }
    /// The stalling wrappers, in connection order.
    var stalling: [StallingATTBearer] { state.withLockedValue { $0.stalling } }

    /// Waits until the last sensor connection's `run` has returned.
    func waitForSensors() async {
        await state.withLockedValue { $0.previous }?.value
    }

    private func connect(to address: BluetoothAddress) async throws -> any ATTBearer {
        let (plan, previous) = state.withLockedValue { state in
            let plan = state.plans[min(state.next, state.plans.count - 1)]
            state.next += 1
            state.connectTimes.append(clock.now)
            return (plan, state.previous)
        }
        await previous?.value
        let (linkEnd, sensorEnd) = LoopbackATTBearer.pair()
        var served: any ATTBearer = sensorEnd
        var stalling: StallingATTBearer?
        if let limit = plan.stallAfter {
            let wrapper = StallingATTBearer(sensorEnd, notificationsBeforeStall: limit)
            stalling = wrapper
            served = wrapper
        }
        let sensor = plan.sensor
        let run = Task { [served] in _ = try? await sensor.run(on: served) }
        state.withLockedValue { state in
            state.previous = run
            state.linkEnds.append(linkEnd)
            if let stalling { state.stalling.append(stalling) }
        }
        return linkEnd
    }
}

/// Reads a link's events: collects samples, returns state changes.
struct LinkEventReader {
    private var iterator: AsyncStream<LinkState>.Iterator
    /// Collects what the link hands over.
    let collector = SampleCollector()

    /// Reads `link`'s states and collects its samples; before the link runs.
    init<C>(_ link: SensorLink<C>) {
        iterator = link.events.makeAsyncIterator()
        link.deliverSamples(to: collector)
    }

    /// Every sample handed over so far, in order.
    var samples: [IndexedSample] { collector.samples }

    /// The next state change; nil when the stream finished.
    mutating func nextState() async -> LinkState? {
        await iterator.next()
    }

    /// Waits until `count` samples in total were handed over.
    func readSamples(until count: Int) async {
        await collector.waitForSamples(count: count)
    }
}

extension LinkState {
    /// The reason of a `.lost` or `.gaveUp`.
    var reason: SensorLinkError? {
        switch self {
        case .lost(let reason), .gaveUp(let reason): reason
        default: nil
        }
    }

    /// The delay and attempt of a `.retrying`.
    var retry: (delay: Duration, attempt: Int)? {
        if case .retrying(let delay, let attempt) = self { return (delay, attempt) }
        return nil
    }
}
