// SPDX-License-Identifier: GPL-2.0-or-later
import GATTClient
import GatewayConfig
import GatewayCore
import SensorLinks
import VirtualSensor

extension VirtualSensorFleet {
    /// The fleet `configuration` makes in the daemon (the same aliases, addresses and scripts), with
    /// every sensor emulated in another process: each connection of `virtual-N` is opened by
    /// `connect("virtual-N")` (`bench-gateway-host`, whose sensors `bench-gateway` serves, so the
    /// gateway's own cost can be measured apart).
    static func remote(
        configuration: VirtualSensorsConfiguration,
        connect: @escaping @Sendable (_ alias: String) throws -> any ATTBearer
    ) -> VirtualSensorFleet {
        let scripts = configuration.scripts.isEmpty ? [.tableTennis] : configuration.scripts
        let members = (0..<max(0, configuration.count)).map { index in
            let alias = "virtual-\(index + 1)"
            return Member(
                alias: alias, address: address(of: index + 1), script: scripts[index % scripts.count], sensor: nil,
                connector: ClosureSensorConnector { _ in try connect(alias) })
        }
        return VirtualSensorFleet(members: members)
    }
}
