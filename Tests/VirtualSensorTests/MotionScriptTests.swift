// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor
import Testing
import VirtualSensor

@Suite("Motion scripts")
struct MotionScriptTests {
    @Test("the same seed gives the same recording; another seed another", arguments: MotionScript.allCases)
    func deterministic(script: MotionScript) {
        let a = MotionGenerator.render(script: script, seed: 3, rate: 50, duration: 20)
        let b = MotionGenerator.render(script: script, seed: 3, rate: 50, duration: 20)
        let c = MotionGenerator.render(script: script, seed: 4, rate: 50, duration: 20)
        #expect(a.raw == b.raw && a.labels == b.labels)
        #expect(a.raw != c.raw)
        #expect(Double(a.raw.count) >= 20 * 50)
    }

    @Test("each script labels its events inside the recording")
    func labels() {
        let expectations: [(MotionScript, (MotionLabel) -> Bool)] = [
            (.tableTennis, { if case .hit = $0 { true } else { false } }),
            (.jumps, { if case .jump(let a, let b) = $0 { b > a } else { false } }),
            (.throwing, { if case .throw(let a, let b) = $0 { b - a >= 0.3 } else { false } }),
            (.steps, { if case .step = $0 { true } else { false } }),
        ]
        for (script, isEvent) in expectations {
            let recording = MotionGenerator.render(script: script, seed: 8, rate: 100, duration: 60)
            let events = recording.labels.filter(isEvent)
            #expect(events.count >= 3, "\(script)")
            let end = Double(recording.raw.count) / 100
            #expect(recording.labels.allSatisfy { $0.time >= 0 && $0.time < end })
        }
    }

    @Test("hard strokes saturate at the Int16 limits, and rest reads 1 g")
    func quantisation() {
        let strokes = MotionGenerator.render(script: .tableTennis, seed: 2, rate: 200, duration: 60)
        #expect(strokes.raw.contains { [$0.x, $0.y, $0.z].contains { $0 == Int16.max || $0 == Int16.min } })
        var options = MotionOptions()
        options.distractors = false
        options.calibrationErrors = false
        options.noise = 0
        let rest = MotionGenerator.render(script: .rest, seed: 1, rate: 50, duration: 5, options: options)
        for sample in rest.samples { #expect(abs(sample.magnitude - 1) < 0.03) }
    }

    @Test("the endless source streams the same readings as a render")
    func sourceMatchesRender() {
        let recording = MotionGenerator.render(script: .jumps, seed: 21, rate: 100, duration: 10)
        var source = MotionScriptSource(script: .jumps, seed: 21, rate: 100)
        for expected in recording.raw { #expect(source.nextSample() == expected) }
        for _ in 0..<20_000 { _ = source.nextSample() }  // keeps planning new segments
    }

    @Test("stdlib sin, cos and exp are accurate")
    func math() {
        #expect(abs(MotionMath.sin(MotionMath.pi / 6) - 0.5) < 1e-12)
        #expect(abs(MotionMath.cos(100) - 0.862_318_872_287_684) < 1e-11)
        #expect(abs(MotionMath.exp(1) - 2.718_281_828_459_045) < 1e-12)
        #expect(abs(MotionMath.exp(-3.5) - 0.030_197_383_422_318_5) < 1e-14)
    }
}
