// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLEHarness
import BLETransport
import BLEWire
import Foundation
import Logging
import NIOConcurrencyHelpers
import SDUSensor
import VirtualSensor

/// `sportsensor-dev virtual-sensor`: an emulated SDU sensor on a real (or `btvirt`) adapter.
struct VirtualSensorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "virtual-sensor",
        abstract: "Be an SDU sensor on a Bluetooth adapter: advertise as BC05…, serve the SDU GATT profile.",
        discussion: """
            Advertises on the adapter with raw HCI commands (flags and the BC05… name; the SDU \
            service UUID in the scan response), accepts ATT connections on the kernel's L2CAP \
            socket and serves each with the project's VirtualSensor, one after the other; the \
            sample counter starts at 0 and carries on across connections. Needs CAP_NET_RAW and \
            CAP_NET_ADMIN (root), and an adapter nothing else advertises on (no bluetoothd GATT \
            server on it). With --truth, every sample sent is written as sample CSV with \
            t = sample index / rate, the ground truth to compare a gateway's output against. \
            Ctrl-C (or SIGTERM) stops advertising and closes the link.
            """
    )

    @Option(help: "The adapter to advertise on (hci1 or 1).")
    var hci: AdapterName

    @Option(help: "Samples per second (25–400).")
    var rate = 100

    @Option(help: "The motion: rest, table-tennis, jump, throw, steps or arm-exercise.")
    var script: MotionScript = .tableTennis

    @Option(help: "Seed of the motion.")
    var seed: UInt64 = 1

    @Option(help: "The advertised name; default BC05 and the adapter address's 12 hex digits.")
    var name: String?

    @Option(
        name: .customLong("disconnect-after"),
        help: "Drop the first link (HCI Disconnect) after this many samples, then keep serving.")
    var disconnectAfter: Int?

    @Option(help: "Write every sample sent to this sample CSV (t = index / rate).")
    var truth: String?

    @Option(
        name: .customLong("readvertise-every"),
        help: "Seconds between advertising restarts while unconnected; 0 never (BlueZ's btvirt needs 1).")
    var readvertiseEvery = 0.0

    @Option(help: "Exit after serving this many connections (default: serve until stopped).")
    var connections: Int?

    func validate() throws {
        guard VirtualSensorConfiguration.sampleRates.contains(rate) else {
            throw ValidationError("--rate must be within 25–400 Hz")
        }
        if let disconnectAfter, disconnectAfter < 1 { throw ValidationError("--disconnect-after must be at least 1") }
        if let connections, connections < 1 { throw ValidationError("--connections must be at least 1") }
        guard readvertiseEvery >= 0, readvertiseEvery <= 60 else {
            throw ValidationError("--readvertise-every must be within 0–60 seconds")
        }
        if let name {
            var bytes: [UInt8] = []
            ADStructure.localName(complete: true, bytes: Array(name.utf8)).encode(into: &bytes)
            guard !name.isEmpty, bytes.count + 3 <= 31 else {
                throw ValidationError("--name must be 1–26 bytes (it shares 31 bytes with the flags)")
            }
        }
    }

    func run() async throws {
        let options = VirtualSensorRunOptions(
            adapterIndex: hci.index, rate: rate, script: script, seed: seed, name: name,
            disconnectAfter: disconnectAfter, truthPath: truth,
            readvertiseInterval: readvertiseEvery > 0 ? .milliseconds(Int(readvertiseEvery * 1000)) : nil,
            connections: connections)
        do {
            try await runCancellingOnSignals { try await runVirtualSensor(options) }
        } catch let error as TransportError {
            ConsoleLine.error("error: \(error)")
            throw ExitCode(2)
        } catch is CancellationError {
            ConsoleLine.out("virtual-sensor: stopped")
        }
    }
}

/// What `virtual-sensor` was asked to do.
struct VirtualSensorRunOptions: Sendable {
    var adapterIndex: UInt16
    var rate: Int
    var script: MotionScript
    var seed: UInt64
    var name: String?
    var disconnectAfter: Int?
    var truthPath: String?
    var readvertiseInterval: Duration?
    var connections: Int?
}

/// Writes the samples a virtual sensor sends as sample CSV, `t` = sample index / rate.
final class GroundTruthWriter: Sendable {
    private let file: SampleFileWriter
    private let rate: Double

    init(path: String, rate: Int) throws {
        file = try SampleFileWriter(path: path)
        self.rate = Double(rate)
    }

    /// Appends the samples of `notification` unless the sensor withheld it.
    func record(_ notification: VirtualSensorNotification) {
        guard notification.fate == .sent else { return }
        file.append(
            notification.samples.enumerated().map { offset, raw in
                let index = notification.firstSampleIndex + offset
                return SampleCSV.line(AccelerationSample(t: Double(index) / rate, raw: raw))
            })
    }

    func close() { file.close() }
}

/// Advertises, accepts and serves until cancelled (or `connections` were served).
func runVirtualSensor(_ options: VirtualSensorRunOptions) async throws {
    let logger = quietLogger("sportsensor-dev.virtual-sensor")
    let adapter = try HCIAdapter.adapter(index: options.adapterIndex)
    guard adapter.isUp else {
        throw TransportError(
            code: .adapterDown,
            message:
                "\(adapter.name) is down: `btmgmt --index \(adapter.index) power on` or `hciconfig \(adapter.name) up`")
    }
    let truth = try options.truthPath.map { try GroundTruthWriter(path: $0, rate: options.rate) }
    defer { truth?.close() }
    let configuration = VirtualSensorConfiguration(
        seed: options.seed, name: options.name, address: adapter.address, sampleRate: options.rate, initialCounter: 0)
    let sensor = try VirtualSensor(
        configuration: configuration,
        source: MotionScriptSource(script: options.script, seed: options.seed, rate: Double(options.rate)),
        clock: ContinuousClock(), logger: logger, onNotification: { truth?.record($0) })
    let listener = try L2CAPListener(adapter: adapter, logger: logger)
    let handle = CurrentConnection()
    ConsoleLine.out(
        "virtual-sensor: \(configuration.name) at \(adapter.address) on \(adapter.name), \(options.rate) Hz")

    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            let advertising = LEAdvertiser.advertise(
                adapter: adapter,
                configuration: .sduSensor(name: configuration.name, restartInterval: options.readvertiseInterval),
                logger: logger)
            for try await event in advertising {
                switch event {
                case .connected(_, let connection): handle.set(connection)
                case .disconnected: handle.set(nil)
                case .advertising: break
                }
                ConsoleLine.out("virtual-sensor: \(event)")
            }
        }
        group.addTask {
            do {
                try await serveConnections(
                    options, sensor: sensor, listener: listener, adapter: adapter, handle: handle)
            } catch {
                await listener.close()
                throw error
            }
            await listener.close()
        }
        // Either task ending ends the sensor: a failed advertiser, or the connections served.
        try await group.next()
        group.cancelAll()
    }
}

/// Accepts and serves connections one after the other; drops the first after
/// `disconnectAfter` samples when asked.
private func serveConnections(
    _ options: VirtualSensorRunOptions, sensor: VirtualSensor<ContinuousClock>, listener: L2CAPListener,
    adapter: HCIAdapter, handle: CurrentConnection
) async throws {
    let logger = quietLogger("sportsensor-dev.virtual-sensor")
    var served = 0
    while options.connections.map({ served < $0 }) ?? true {
        let (bearer, peer) = try await listener.accept()
        served += 1
        ConsoleLine.out("virtual-sensor: ATT connection \(served) from \(peer)")
        let dropper: Task<Void, Never>? = (served == 1 ? options.disconnectAfter : nil).map { limit in
            Task {
                while !Task.isCancelled, await sensor.statistics.samplesGenerated < limit {
                    try? await Task.sleep(for: .milliseconds(10))
                }
                guard !Task.isCancelled else { return }
                let samples = await sensor.statistics.samplesGenerated
                ConsoleLine.out("virtual-sensor: dropping the link after \(samples) samples")
                do {
                    guard let connection = handle.get() else {
                        throw TransportError(code: .closed, message: "no connection handle known")
                    }
                    try await HCIDisconnection.disconnect(handle: connection, adapter: adapter, logger: logger)
                } catch {
                    ConsoleLine.out("virtual-sensor: HCI Disconnect failed (\(error)); closing the ATT socket")
                    await bearer.close()
                }
            }
        }
        do {
            try await sensor.run(on: bearer)
        } catch is CancellationError {
            dropper?.cancel()
            throw CancellationError()
        } catch {
            ConsoleLine.out("virtual-sensor: link ended: \(error)")
        }
        dropper?.cancel()
        let statistics = await sensor.statistics
        ConsoleLine.out(
            "virtual-sensor: connection \(served) over, \(statistics.samplesGenerated) samples sent in total")
    }
}

/// The handle of the link the advertiser saw a central open, shared with the dropper.
final class CurrentConnection: Sendable {
    private let handle = NIOLockedValueBox<UInt16?>(nil)

    func set(_ value: UInt16?) { handle.withLockedValue { $0 = value } }

    func get() -> UInt16? { handle.withLockedValue { $0 } }
}

/// A logger for the library code a command drives: warnings and errors only, on standard error.
func quietLogger(_ label: String) -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = .warning
    return logger
}
