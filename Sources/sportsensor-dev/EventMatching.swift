// SPDX-License-Identifier: GPL-2.0-or-later

/// The evaluation's one matching rule: in time order, each reference time takes the nearest
/// detection not taken yet within `tolerance` seconds. Both arrays ascending; the result gives, per
/// reference, the index of its detection or nil when it was missed.
func nearestMatches(references: [Double], detections: [Double], tolerance: Double) -> [Int?] {
    var used = [Bool](repeating: false, count: detections.count)
    var cursor = 0
    return references.map { time in
        while cursor < detections.count && detections[cursor] < time - tolerance { cursor += 1 }
        var best: Int?
        var index = cursor
        while index < detections.count && detections[index] <= time + tolerance {
            if !used[index], best.map({ abs(detections[index] - time) < abs(detections[$0] - time) }) ?? true {
                best = index
            }
            index += 1
        }
        if let best { used[best] = true }
        return best
    }
}
