// SPDX-License-Identifier: GPL-2.0-or-later

import ControlProtocol
import SensorLinks

extension LinkState {
    /// The state's name on the wire (`LinkPayload.state`, `SensorInfo.linkState`).
    public var wireName: LinkStateName {
        switch self {
        case .connected: .connected
        case .lost: .lost
        case .retrying: .retrying
        case .gaveUp: .gaveUp
        case .stopped: .stopped
        }
    }

    /// The wire name of a link's state, `connecting` before its first change.
    static func wireName(_ state: LinkState?) -> LinkStateName { state?.wireName ?? .connecting }

    /// True for `connected`.
    var isConnected: Bool {
        if case .connected = self { return true }
        return false
    }
}
