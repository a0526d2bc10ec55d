// SPDX-License-Identifier: GPL-2.0-or-later
import Detection

extension SummaryMetric {
    /// The metric a request names (a leaderboard's, a target's), or a 400 naming the choices.
    public static func requested(_ name: String) throws(ControlError) -> SummaryMetric {
        switch named(name) {
        case .success(let metric): return metric
        case .failure(let error): throw ControlError(.invalidRequest, error.message, fix: error.fix)
        }
    }
}
