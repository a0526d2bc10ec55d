// SPDX-License-Identifier: GPL-2.0-or-later

/// Up to 16 samples (t, x, y, z) of one edge of a flight, stored inline (no allocation).
///
/// The falling edge keeps the newest samples of the current falling run (`keepNewest`), the
/// rising edge the first samples of its rising run.
@usableFromInline
struct EdgeSamples: Sendable {
    @usableFromInline static let capacity = 16
    @usableFromInline typealias Slots = (
        SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>,
        SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>,
        SIMD4<Double>, SIMD4<Double>
    )
    @usableFromInline var slots: Slots = (
        .zero, .zero, .zero, .zero, .zero, .zero, .zero, .zero, .zero, .zero, .zero, .zero, .zero, .zero, .zero, .zero
    )
    /// Index of the oldest sample.
    @usableFromInline var head = 0
    @usableFromInline var count = 0

    @inlinable init() {}

    @inlinable var isEmpty: Bool { count == 0 }

    @inlinable mutating func removeAll() {
        head = 0
        count = 0
    }

    /// Appends a sample; when full, drops the oldest (`keepNewest`) or ignores the new one.
    @inlinable @inline(__always) mutating func append(_ sample: SIMD4<Double>, keepNewest: Bool) {
        let capacity = EdgeSamples.capacity
        if count == capacity {
            guard keepNewest else { return }
            withUnsafeMutableBytes(of: &slots) {
                $0.storeBytes(of: sample, toByteOffset: head * 32, as: SIMD4<Double>.self)
            }
            head = (head + 1) & (capacity - 1)
            return
        }
        let index = (head + count) & (capacity - 1)
        withUnsafeMutableBytes(of: &slots) {
            $0.storeBytes(of: sample, toByteOffset: index * 32, as: SIMD4<Double>.self)
        }
        count += 1
    }

    /// True when an axis is at the ±2 g full scale within the `within` samples nearest the flight
    /// (the newest of a falling edge, the oldest of a rising one): the edge reached the clip so soon
    /// that its steep part had at most that many samples to draw a line through.
    @inlinable func clipped(nearFlight fromNewest: Bool, within: Int) -> Bool {
        for i in 0..<min(within, count) where isClipped(self[fromNewest ? count - 1 - i : i]) { return true }
        return false
    }

    /// The `index`-th oldest sample.
    @inlinable subscript(index: Int) -> SIMD4<Double> {
        let slot = (head + index) & (EdgeSamples.capacity - 1)
        return withUnsafeBytes(of: slots) { $0.load(fromByteOffset: slot * 32, as: SIMD4<Double>.self) }
    }
}

/// Locates a flight's edge (takeoff, release, landing or catch) between samples by extrapolating
/// the steep part of the edge to the moment the contact force is zero.
///
/// In flight the sensor reads only what moves it relative to its own free fall: a spinning
/// sensor's centripetal pull (fixed in the sensor's frame) or the arm's motion, whose mean over the
/// flight is the `floor` vector. Around an edge the contact force f grows linearly from zero, so the
/// distance r = |a − floor| of each reading from that floor is a line in time that is zero at the
/// edge. The same rule serves both ends of the flight, so what biases one end biases the other the
/// opposite way and the flight time keeps its accuracy:
///
/// 1. r is computed for the edge's samples, ordered from the flight outwards.
/// 2. The steep part starts after the last sample with r < `lowG` (clear of the noise and of the
///    floor's wobble) and runs for at most four samples while r grows and stays ≤ `highG` on unclipped
///    samples (the part of the edge nearest the floor, below the curved top of a push or landing); it
///    needs at least two samples.
/// 3. The sensor averages over one sample interval dt: the sample whose interval contains the edge
///    reads s·x²/(2dt) (x its overlap with the ramp), every later one exactly s·(t − edge). The
///    first reads less than a third of the next, a sample on the line at least a third (r ≥ s·dt/2
///    and the next is r + s·dt): such a first sample is left out. The same test at the top leaves
///    out a sample that averages over the ramp's end.
/// 4. A least-squares line through the remaining samples is intersected with r = 0, and the result
///    is kept between the steep part and the reading nearest the floor (less one interval).
///
/// Returns nil when fewer than two samples are on the steep part (an edge shorter than a sample
/// interval); the caller then uses `EdgeMoments`.
/// True when an axis of `sample` (t, x, y, z) is at the ±2 g full scale: its |a| is not the true one.
@inlinable func isClipped(_ sample: SIMD4<Double>) -> Bool {
    max(abs(sample.y), abs(sample.z), abs(sample.w)) >= 1.99
}

@inlinable func extrapolatedEdge(
    _ edge: EdgeSamples, fromNewest: Bool, floor: SIMD4<Double>, lowG: Double, highG: Double
) -> Double? {
    guard edge.count >= 2 else { return nil }
    // One view of the slots for the whole search: the subscript copies the 512-byte tuple per read.
    return withUnsafeBytes(of: edge.slots) { slots in
        extrapolatedEdge(
            slots, head: edge.head, count: edge.count, fromNewest: fromNewest, floor: floor, lowG: lowG, highG: highG)
    }
}

/// `extrapolatedEdge(_:fromNewest:floor:lowG:highG:)` over the ring buffer's raw slots.
@inlinable func extrapolatedEdge(
    _ slots: UnsafeRawBufferPointer, head: Int, count n: Int, fromNewest: Bool, floor: SIMD4<Double>, lowG: Double,
    highG: Double
) -> Double? {
    @inline(__always) func sample(_ i: Int) -> SIMD4<Double> {
        let slot = (head + (fromNewest ? n - 1 - i : i)) & (EdgeSamples.capacity - 1)
        return slots.load(fromByteOffset: slot * 32, as: SIMD4<Double>.self)
    }
    // r of every sample, once: the search below reads most of them several times.
    return withUnsafeTemporaryAllocation(of: Double.self, capacity: EdgeSamples.capacity) { r in
        for i in 0..<min(n, EdgeSamples.capacity) {
            let d = sample(i) - floor
            r[i] = (d.y * d.y + d.z * d.z + d.w * d.w).squareRoot()
        }
        // The steep part begins after the last sample (from the flight outwards) that is still near the floor.
        var first = -1
        for i in 0..<n where r[i] < lowG { first = i }
        first += 1
        guard first < n - 1 else { return nil }
        // The line runs while r grows and stays at most `highG` on unclipped samples.
        var last = first - 1
        while last + 1 < n {
            let next = sample(last + 1)
            let distance = r[last + 1]
            guard distance <= highG, !isClipped(next), last < first || distance > r[last], last < first + 3 else {
                break
            }
            last += 1
        }
        guard last > first else { return nil }
        var lowIndex = first
        var highIndex = last
        // The sample whose averaging interval holds the edge reads below the line (see step 3).
        if 3 * r[lowIndex] < r[lowIndex + 1] { lowIndex += 1 }
        if highIndex - lowIndex >= 2 {
            let top = r[highIndex] - r[highIndex - 1]
            let below = r[highIndex - 1] - r[highIndex - 2]
            if top < below / 2 { highIndex -= 1 }
        }
        guard highIndex > lowIndex else { return nil }
        var sumT = 0.0
        var sumR = 0.0
        let count = Double(highIndex - lowIndex + 1)
        let origin = sample(lowIndex).x
        for i in lowIndex...highIndex {
            sumT += sample(i).x - origin
            sumR += r[i]
        }
        let meanT = sumT / count
        let meanR = sumR / count
        var stt = 0.0
        var str = 0.0
        for i in lowIndex...highIndex {
            let s = sample(i)
            let dt = s.x - origin - meanT
            stt += dt * dt
            str += dt * (r[i] - meanR)
        }
        guard stt > 0 else { return nil }
        let slope = str / stt
        // r grows away from the flight: forwards in time for a landing, backwards for a takeoff.
        guard fromNewest ? slope < 0 : slope > 0 else { return nil }
        let zeroTime = origin + meanT - meanR / slope
        // The edge lies between the reading nearest the floor (less one interval: the sensor averages over it)
        // and the steep part.
        let interval = abs(sample(highIndex).x - sample(lowIndex).x) / (count - 1)
        var nearest = first
        for i in 0..<first where r[i] < r[nearest] { nearest = i }
        let anchor = sample(lowIndex).x
        let bound = sample(nearest).x
        return fromNewest
            ? min(max(zeroTime, anchor), max(bound + interval, anchor))
            : max(min(zeroTime, anchor), min(bound - interval, anchor))
    }
}
