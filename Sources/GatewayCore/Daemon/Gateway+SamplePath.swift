// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import ControlProtocol
import Foundation
import NIOConcurrencyHelpers
import SDUSensor
import SensorLinks

/// What a sensor's link delivers: samples into its session (or the auto-start rule), on the
/// thread that read their notification (``ChannelSampleSink``), state changes into the channel,
/// the metrics and the event stream, in a task per sensor.
extension Gateway {
    /// Makes the link hand its samples to ``samplesArrived(_:on:)``; before the link runs.
    func deliverSamples(of channel: SensorChannel<C>) {
        channel.link.deliverSamples(to: ChannelSampleSink(gateway: self, channel: channel))
    }

    /// One notification's samples, on the thread that read it, no lock held. The channel's lock
    /// is taken and released to find the session, then the pipeline takes its own. Auto-start,
    /// which waits, runs in a task of its own.
    @_specialize(where C == ContinuousClock)
    func samplesArrived(_ batch: [IndexedSample], on channel: SensorChannel<C>) {
        metrics.notifications.increment()
        metrics.samples.increment(by: Int64(batch.count))
        if let pipeline = channel.pipeline {
            pipeline.ingest(batch)
        } else if dependencies.configuration.autoStart, Self.startsMoving(channel, batch), !isShuttingDown {
            jobSink.yield { await self.sessions.autoStart(on: channel) }
        }
    }

    /// The link's state changes, until its run ends.
    func consume(_ channel: SensorChannel<C>) async {
        for await linkState in channel.link.events {
            await linkChanged(channel, linkState)
        }
    }

    /// True once when an idle sensor without a session starts moving.
    private static func startsMoving(_ channel: SensorChannel<C>, _ batch: [IndexedSample]) -> Bool {
        channel.state.withLockedValue { state in
            guard case .free = state.session, !state.autoStartPending else { return false }
            var moved = false
            for sample in batch where state.activity.observe(sample.acceleration) { moved = true }
            if moved { state.autoStartPending = true }
            return moved
        }
    }

    private func linkChanged(_ channel: SensorChannel<C>, _ linkState: LinkState) async {
        let detail: String? =
            switch linkState {
            case .connected, .stopped: nil
            case .lost(let error), .gaveUp(let error): error.message
            case .retrying(let delay, let attempt): "in \(delay), attempt \(attempt)"
            }
        let (pipeline, label, reconnected) = channel.state.withLockedValue { state in
            let wasConnected = state.linkState?.isConnected
            state.linkState = linkState
            var reconnected = false
            if linkState.isConnected {
                reconnected = wasConnected == false && state.record.lastSeen != nil
                state.record.lastSeen = Date()
            }
            var pipeline: SessionPipeline<C>?
            if case .live(let live) = state.session { pipeline = live }
            return (pipeline, state.record.alias ?? "\(channel.address)", reconnected)
        }
        if reconnected { metrics.reconnects.increment() }
        switch linkState {
        case .lost, .gaveUp:
            // A link in backoff holds no slot: a sensor waiting for one connects meanwhile.
            channel.adapterPool?.release(channel.address)
        default:
            break
        }
        pipeline?.linkChanged(linkState)
        metrics.sensorsConnected.record(registry.connectedCount)
        bus.publish(
            .link(LinkPayload(sensor: label, address: "\(channel.address)", state: linkState.wireName, detail: detail)))
        switch linkState {
        case .connected:
            if !channel.isVirtual { await save(channel.record) }
        case .gaveUp:
            await sessions.end(on: channel, reason: .linkLost)
        default:
            break
        }
    }

    /// Every 5 s: the links' lost samples and malformed notifications into the metrics, and the
    /// bus's drops.
    func pollLinkMetrics() async {
        var seen: [BluetoothAddress: (lost: Int, malformed: Int)] = [:]
        var seenDrops = 0
        while !Task.isCancelled {
            do { try await dependencies.clock.sleep(for: .seconds(5)) } catch { return }
            guard !isShuttingDown else { return }
            for link in registry.all.map(\.link) {
                let statistics = link.statistics
                let previous = seen[link.address] ?? (0, 0)
                metrics.lostSamples.increment(by: Int64(max(0, statistics.missingSamples - previous.lost)))
                metrics.malformedNotifications.increment(
                    by: Int64(max(0, statistics.malformedNotifications - previous.malformed)))
                seen[link.address] = (statistics.missingSamples, statistics.malformedNotifications)
            }
            let drops = bus.droppedCount
            metrics.eventBusDropped.increment(by: Int64(max(0, drops - seenDrops)))
            seenDrops = drops
        }
    }
}

/// A link's sink in the gateway: the samples of one channel into ``Gateway/samplesArrived(_:on:)``.
/// Strong references: the link lets go of its sink when its run ends, which ends the cycle.
final class ChannelSampleSink<C: Clock>: SensorSampleSink where C.Duration == Duration {
    let gateway: Gateway<C>
    let channel: SensorChannel<C>

    init(gateway: Gateway<C>, channel: SensorChannel<C>) {
        self.gateway = gateway
        self.channel = channel
    }

    func samplesArrived(_ batch: [IndexedSample]) {
        gateway.samplesArrived(batch, on: channel)
    }
}
