// SPDX-License-Identifier: GPL-2.0-or-later
import GatewayTesting
import SDUSensor
import Testing
import VirtualSensor

@testable import sportsensor_dev

@Suite("sportsensor-dev demo", .timeLimit(.minutes(5)))
struct DemoTests {
    /// Runs the demo's core for `seconds` of samples at fast pacing and collects what it reports.
    static func run(
        seconds: Int, rate: Int = 100, dropFraction: Double = 0
    ) async throws -> (
        summary: DemoSummary, reported: [DemoSecond], samples: [AccelerationSample]
    ) {
        var reported: [DemoSecond] = []
        var samples: [AccelerationSample] = []
        let options = DemoOptions(
            seconds: seconds, rate: rate, dropFraction: dropFraction, seed: 7, pacing: .asFastAsPossible)
        let summary = try await runDemo(options, clock: ContinuousClock()) { event in
            switch event {
            case .second(let second): reported.append(second)
            case .sample(let sample): samples.append(sample)
            }
        }
        return (summary, reported, samples)
    }

    @Test("two seconds at 100 Hz: 100 samples a second, a sample counter, strokes that clip, rest at 1 g")
    func twoSeconds() async throws {
        let (summary, reported, samples) = try await Self.run(seconds: 2)
        #expect(reported == summary.seconds)
        #expect(summary.seconds.map(\.second) == [0, 1])
        #expect(summary.seconds.map(\.samples) == [100, 100])
        #expect(samples.count == 200)
        #expect(summary.sensor.samplesGenerated == 200)
        #expect(summary.decoder.samplesReceived == 200)
        #expect(summary.mtu == 23)
        for second in summary.seconds {
            #expect(second.counterMode == .sampleCounter)
            #expect(second.lostSamples == 0)
            #expect(second.malformedNotifications == 0)
            #expect((80...120).contains(second.recoveredRate))
            // Each second holds one stroke (at 0.3 s and 1.5 s): the forehand axis clips at full scale.
            #expect(second.peakMagnitude > 2.5)
            // It ends at rest: about 1 g, on z.
            let last = try #require(second.last)
            #expect(abs(last.magnitude - 1) < 0.1)
            #expect(abs(last.z - 1) < 0.1)
        }
        // Clipped at +1.99994 g on x, never beyond.
        #expect(samples.map(\.x).max() == SDUProfile.fullScaleG)
        #expect(samples.filter { $0.x == SDUProfile.fullScaleG }.count >= 4)
        // The recovered times increase.
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.t <= $1.t })
        let line = try #require(summary.seconds.first?.line)
        #expect(line.hasPrefix("second   0: 100 samples, "))
        #expect(line.contains("sample counter, lost 0, malformed 0"))
    }

    @Test("with drops the per-second lost counts add up to the samples the sensor withheld")
    func drops() async throws {
        let (summary, reported, samples) = try await Self.run(seconds: 3, dropFraction: 0.1)
        #expect(summary.sensor.notificationsDropped > 0)
        let lost = reported.reduce(0) { $0 + $1.lostSamples }
        #expect(lost == summary.decoder.lostSamples)
        #expect(lost > 0)
        let received = reported.reduce(0) { $0 + $1.samples }
        #expect(received == samples.count)
        #expect(received == summary.decoder.samplesReceived)
        // Every withheld sample is either counted lost or lies before the first or after the last
        // delivered notification, where no counter can see it.
        #expect(received + lost <= 300)
        #expect(received == 300 - 3 * summary.sensor.notificationsDropped)
        #expect(summary.line.contains("\(lost) lost"))
    }
}
