// SPDX-License-Identifier: GPL-2.0-or-later

extension LinkState {
    /// The state's name on the wire (`LinkPayload.state`, `SensorInfo.linkState`).
    public var wireName: String {
        switch self {
        case .connected: "connected"
        case .lost: "lost"
        case .retrying: "retrying"
        case .gaveUp: "gave-up"
        case .stopped: "stopped"
        }
    }

    /// The wire name of a link's state, `connecting` before its first change.
    static func wireName(_ state: LinkState?) -> String { state?.wireName ?? "connecting" }

    /// True for `connected`.
    var isConnected: Bool {
        if case .connected = self { return true }
        return false
    }
}
