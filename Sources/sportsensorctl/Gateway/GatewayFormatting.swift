import ControlProtocol
import Detection
// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation

/// How the client commands show the daemon's answers to a person.
enum GatewayFormatting {
    /// `3h 12m`, `4m 05s`, `12s`.
    static func duration(_ seconds: Double) -> String {
        let total = max(0, Int(saturating: seconds.rounded(.down)))
        let days = total / 86_400
        let hours = total % 86_400 / 3600
        let minutes = total % 3600 / 60
        let secs = total % 60
        if days > 0 { return "\(days)d \(hours)h" }
        if hours > 0 { return "\(hours)h \(two(minutes))m" }
        if minutes > 0 { return "\(minutes)m \(two(secs))s" }
        return "\(secs)s"
    }

    /// `12s ago`, `3m 10s ago`, or `-`.
    static func ago(_ date: Date?, now: Date) -> String {
        guard let date else { return "-" }
        return duration(now.timeIntervalSince(date)) + " ago"
    }

    /// The first 8 characters of a session UUID: enough for the daemon's unique-prefix lookup.
    static func shortID(_ id: String) -> String { String(id.prefix(8)) }

    /// `1.234` style fixed decimals, or `-`.
    static func fixed(_ value: Double?, decimals: Int) -> String {
        guard let value, value.isFinite else { return "-" }
        return String(format: "%.\(decimals)f", value)
    }

    /// `2024-05-01 14:03` in the local time zone.
    static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }

    /// The status as aligned key/value lines.
    static func status(_ status: GatewayStatus) -> String {
        let adapters =
            status.adapters.isEmpty
            ? "none (virtual sensors only)"
            : status.adapters.map(adapter).joined(separator: ", ")
        var table = TextTable(["", ""])
        table.showsHeaders = false
        table.rows = [
            ["version", status.version],
            ["uptime", duration(status.uptimeSeconds)],
            ["state directory", status.stateDirectory],
            ["store", storeState(status)],
            ["adapters", adapters],
            [
                "sensors",
                "\(status.sensorsPaired) paired, \(status.sensorsConnected) connected"
                    + (status.sensorsWaitingForSlot > 0
                        ? ", \(status.sensorsWaitingForSlot) waiting for a free adapter slot "
                            + "(add an adapter or raise [bluetooth] link_budget)" : ""),
            ],
            ["live sessions", "\(status.liveSessions)"],
        ]
        return table.rendered
    }

    /// `hci0 00:1A:7D:DA:71:13 up, 3/5 links`.
    /// The store line of `status`: degraded sessions keep their rows in memory until it can write.
    static func storeState(_ status: GatewayStatus) -> String {
        if status.storeDegradedSessions > 0 {
            return "DEGRADED: \(status.storeDegradedSessions) live session(s) cannot save (disk full or I/O error; "
                + "samples kept in memory and retried): free space in \(status.stateDirectory)"
        }
        return status.storeHealthy ? "healthy" : "UNHEALTHY (see `journalctl -u sportsensord`)"
    }

    static func adapter(_ adapter: AdapterInfo) -> String {
        "\(adapter.name) \(adapter.address) \(adapter.up ? "up" : "DOWN"), \(adapter.links)/\(adapter.linkBudget) links"
    }

    /// Scan results, SDU sensors first, then by signal strength.
    static func discoveries(_ discoveries: [DiscoveryInfo]) -> String {
        var table = TextTable(
            ["SDU", "NAME", "ADDRESS", "TYPE", "RSSI"], alignments: [.left, .left, .left, .left, .right])
        for discovery in sortedDiscoveries(discoveries) {
            table.append([
                discovery.isSduSensor ? "yes" : "-", discovery.name ?? "-", discovery.address, discovery.addressType,
                discovery.rssi.map { "\($0) dBm" } ?? "-",
            ])
        }
        return table.rendered
    }

    /// SDU sensors first, then the strongest signal, then by address: the order `scan` prints.
    static func sortedDiscoveries(_ discoveries: [DiscoveryInfo]) -> [DiscoveryInfo] {
        discoveries.sorted { a, b in
            if a.isSduSensor != b.isSduSensor { return a.isSduSensor }
            let ra = a.rssi ?? Int.min
            let rb = b.rssi ?? Int.min
            if ra != rb { return ra > rb }
            return a.address < b.address
        }
    }

    /// Paired sensors.
    static func sensors(_ sensors: [SensorInfo], now: Date) -> String {
        var table = TextTable(
            ["ALIAS", "ADDRESS", "NAME", "ATHLETE", "LINK", "ADAPTER", "INTERVAL", "LAST SEEN", "SESSION"])
        for sensor in sensors {
            table.append([
                sensor.alias ?? "-", sensor.address + (sensor.isVirtual ? " (virtual)" : ""), sensor.name ?? "-",
                sensor.athlete ?? "-", sensor.linkState.rawValue, sensor.adapter ?? "-",
                sensor.linkParameters.map { String(format: "%g ms", $0.intervalMs) } ?? "-",
                ago(sensor.lastSeen, now: now),
                sensor.liveSessionId.map(shortID) ?? "-",
            ])
        }
        return table.rendered
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
