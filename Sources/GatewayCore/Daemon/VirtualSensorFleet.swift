// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GATTClient
import GatewayConfig
import Logging
import NIOConcurrencyHelpers
import SensorLinks
import VirtualSensor

/// In-process virtual sensors that the daemon pairs like real ones: each is a `VirtualSensor`
/// (a real GATT server) with a scripted `MotionScriptSource`, reached through a
/// `ClosureSensorConnector` that makes a fresh bearer pair per connection and serves the sensor on
/// the far end. The gateway's `SensorLink` talks GATT to it exactly as to hardware.
public struct VirtualSensorFleet<C: Clock>: Sendable where C.Duration == Duration {
    /// One sensor of the fleet.
    public struct Member: Sendable {
        /// `virtual-N`.
        public var alias: String
        /// Its locally administered static random address.
        public var address: BluetoothAddress
        /// The motion it performs.
        public var script: MotionScript
        /// The emulated sensor; nil when another process emulates it.
        public var sensor: VirtualSensor<C>?
        /// Opens a connection to it.
        public var connector: ClosureSensorConnector

        /// A member; `sensor` is nil when `connector` reaches a sensor emulated elsewhere.
        public init(
            alias: String, address: BluetoothAddress, script: MotionScript, sensor: VirtualSensor<C>?,
            connector: ClosureSensorConnector
        ) {
            self.alias = alias
            self.address = address
            self.script = script
            self.sensor = sensor
            self.connector = connector
        }
    }

    /// Makes the two ends of one connection: the first for the gateway, the second for the sensor.
    public typealias BearerPairFactory = @Sendable () throws -> (any ATTBearer, any ATTBearer)

    /// The sensors, `virtual-1` first.
    public let members: [Member]

    /// The address of virtual sensor `number` (1-based): `CA:FE:00:00:hi:lo`, a static random
    /// address (top bits 11) that is also locally administered, so it never collides with hardware.
    public static func address(of number: Int) -> BluetoothAddress {
        let octets: [UInt8] = [
            0xCA, 0xFE, 0, 0, UInt8(truncatingIfNeeded: number >> 8), UInt8(truncatingIfNeeded: number),
        ]
        let text = octets.map { byte in
            let digits = Array("0123456789ABCDEF")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined(separator: ":")
        // A fixed, well-formed address: parsing cannot fail.
        return BluetoothAddress(string: text, kind: .random)!
    }

    /// Builds `configuration.count` sensors pacing on `clock`.
    ///
    /// - Parameters:
    ///   - pacing: `.realTime` in the daemon; tests may run them as fast as possible.
    ///   - motion: knobs of the scripted motion (tests turn distractors off).
    ///   - makeBearers: the connection's two ends; `LoopbackATTBearer.pair()` by default, the
    ///     executable passes an `AF_UNIX` socket pair so the socket bearer is exercised too.
    public init(
        configuration: VirtualSensorsConfiguration, clock: C,
        pacing: VirtualSensorConfiguration.Pacing = .realTime,
        faults: VirtualSensorConfiguration.Faults = .none, motion: MotionOptions = MotionOptions(),
        logger: Logger = Logger(label: "sportsensord.virtual-sensor"),
        makeBearers: @escaping BearerPairFactory = { LoopbackATTBearer.pair() }
    ) throws(VirtualSensorError) {
        var members: [Member] = []
        let scripts = configuration.scripts.isEmpty ? [MotionScript.tableTennis] : configuration.scripts
        for number in 1...max(1, configuration.count) where number <= configuration.count {
            let alias = "virtual-\(number)"
            let address = Self.address(of: number)
            let script = scripts[(number - 1) % scripts.count]
            let sensorConfiguration = VirtualSensorConfiguration(
                seed: UInt64(number), name: alias, address: address, sampleRate: configuration.rate, faults: faults,
                pacing: pacing, samplesWhileIdle: pacing == .realTime)
            let source = MotionScriptSource(
                script: script, seed: UInt64(number), rate: Double(configuration.rate), options: motion)
            let sensor = try VirtualSensor(
                configuration: sensorConfiguration, source: source, clock: clock, logger: logger)
            let link = LinkState()
            let outOfRange = configuration.outOfRange
            let connector = ClosureSensorConnector { _ in
                let now = clock.now
                let refusal = link.state.withLockedValue { state -> VirtualSensorError? in
                    guard let outOfRange, let left = state.leftRange else { return nil }
                    guard left.duration(to: now) >= outOfRange.duration else {
                        return VirtualSensorError(
                            .outOfRange, "\(alias) is out of range (simulated by virtual.out_of_range_every)")
                    }
                    state.leftRange = nil
                    return nil
                }
                if let refusal { throw refusal }
                let (near, far) = try makeBearers()
                let previous = link.state.withLockedValue { $0.serving }
                let serving = Task {
                    // One connection at a time: the last one must have let go of the sensor.
                    await previous?.value
                    let dropped = await Self.serve(sensor, on: far, dropAfter: outOfRange?.every, clock: clock) {
                        link.state.withLockedValue { $0.leftRange = clock.now }
                    }
                    if dropped {
                        logger.info(
                            "virtual sensor out of range",
                            metadata: [
                                "ble.address": "\(address)",
                                "sensor.away_s": "\(outOfRange.map { $0.duration.inSeconds } ?? 0)",
                            ])
                    }
                    await far.close()
                }
                link.state.withLockedValue { $0.serving = serving }
                return near
            }
            members.append(
                Member(alias: alias, address: address, script: script, sensor: sensor, connector: connector))
        }
        self.members = members
    }

    /// A fleet of the given members (a harness's sensors emulated in another process).
    public init(members: [Member]) {
        self.members = members
    }

    /// A member's connection: the task serving it and when the sensor last left the range.
    private final class LinkState: Sendable {
        struct Value: Sendable {
            var serving: Task<Void, Never>?
            var leftRange: C.Instant?
        }
        let state = NIOLockedValueBox(Value())
    }

    /// Serves one connection until it ends; with `dropAfter`, ends it from the sensor's side after
    /// that long (the link drops as when the sensor leaves the range), calling `leavesRange` just
    /// before, so a reconnection attempt can never see the link gone but the sensor still in range.
    /// Returns true when it dropped.
    private static func serve(
        _ sensor: VirtualSensor<C>, on bearer: any ATTBearer, dropAfter: Duration?, clock: C,
        leavesRange: @escaping @Sendable () -> Void
    ) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                // Ends with the link; why it ended (the gateway's side closed it, or the drop
                // below) is not the sensor's concern.
                try? await sensor.run(on: bearer)
                return false
            }
            if let dropAfter {
                group.addTask {
                    guard (try? await clock.sleep(for: dropAfter)) != nil else { return false }
                    // Closing the sensor's end ends `run` and shows the gateway a dropped link.
                    leavesRange()
                    await bearer.close()
                    return true
                }
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
