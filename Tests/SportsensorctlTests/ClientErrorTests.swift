import ControlProtocol
// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import Testing

@testable import sportsensorctl

@Suite("client errors and socket path")
struct ClientErrorTests {
    static let socket = ControlEndpoint.unixSocket(path: "/run/sportsensord/control.sock")

    @Test(
        "refused and missing socket: cannot reach, with the systemctl hint, exit 69", arguments: [ECONNREFUSED, ENOENT])
    func unreachable(errno: Int32) {
        let error = ClientError.connecting(to: Self.socket, errno: errno, cause: nil)
        #expect(error.code == .unreachable)
        #expect(
            error.description
                == "unreachable: cannot reach sportsensord at /run/sportsensord/control.sock; is the service running? "
                + "`systemctl status sportsensord`")
        #expect(error.exitCode == 69)
    }

    @Test("EACCES on the socket: permission denied, with the group fix, exit 77")
    func permissionDenied() {
        let error = ClientError.connecting(to: Self.socket, errno: EACCES, cause: nil)
        #expect(error.code == .permissionDenied)
        #expect(error.message == "permission denied on /run/sportsensord/control.sock")
        #expect(
            error.fix
                == "add yourself to the `sportsensor` group (`sudo usermod -aG sportsensor $USER`, then log in again)")
        #expect(error.exitCode == 77)
    }

    @Test("TCP: unreachable names the URL and the reason")
    func tcp() {
        let error = ClientError.connecting(
            to: .tcp(baseURL: "http://127.0.0.1:7070", token: nil), errno: ECONNREFUSED, cause: nil)
        #expect(error.message.hasPrefix("cannot reach sportsensord at http://127.0.0.1:7070: "))
        #expect(error.exitCode == 69)
    }

    @Test(
        "each ControlErrorBody code maps to its exit code",
        arguments: [
            ("not-found", 404, Int32(65)), ("conflict", 409, 65), ("invalid-request", 400, 65),
            ("unavailable", 503, 69),
            ("unauthorized", 401, 77), ("forbidden", 403, 77), ("internal", 500, 1), ("something-new", 418, 1),
        ])
    func bodyCodes(code: String, status: Int, exit: Int32) throws {
        let body = ControlErrorBody(
            code: code, error: "no sensor is called anna", fix: "list them with sportsensorctl sensors")
        let bytes = Array(try JSONEncoder.controlAPI.encode(body))
        let error = ClientError.answer(status: status, reason: "Whatever", body: bytes)
        #expect(error.code == .daemon)
        #expect(error.body == body)
        #expect(error.description == "daemon: no sensor is called anna; list them with sportsensorctl sensors")
        #expect(error.exitCode == exit)
    }

    @Test("an error answer without a ControlErrorBody maps by HTTP status")
    func bareStatus() {
        let forbidden = ClientError.answer(status: 403, reason: "Forbidden", body: Array("nope".utf8))
        #expect(forbidden.message == "sportsensord answered 403 Forbidden")
        #expect(forbidden.fix == "pass the token from the daemon's config with --token")
        #expect(forbidden.exitCode == 77)
        let unauthorized = ClientError.answer(status: 401, reason: "Unauthorized", body: [])
        #expect(unauthorized.body?.code == "unauthorized")
        #expect(unauthorized.exitCode == 77)
        #expect(ClientError.answer(status: 503, reason: "Unavailable", body: []).exitCode == 69)
        #expect(ClientError.answer(status: 502, reason: "Bad Gateway", body: []).exitCode == 1)
    }

    @Test("the other failures' exit codes: lost connection 69, broken answer 76, bad option 64")
    func otherCodes() {
        #expect(ClientError(code: .connectionLost, message: "x").exitCode == 69)
        #expect(ClientError(code: .protocolViolation, message: "x").exitCode == 76)
        #expect(ClientError(code: .invalidOption, message: "x").exitCode == 64)
    }

    @Test("endpoints: --url with the token (or $SPORTSENSOR_TOKEN), http+unix URLs with the socket as host")
    func endpoints() throws {
        var options = try ClientOptions.parse(["--url", "http://127.0.0.1:7070", "--token", "t0k"])
        #expect(options.endpoint(environment: [:]) == .tcp(baseURL: "http://127.0.0.1:7070", token: "t0k"))
        options = try ClientOptions.parse(["--url", "http://127.0.0.1:7070/"])
        #expect(
            options.endpoint(environment: ["SPORTSENSOR_TOKEN": "env"])
                == .tcp(baseURL: "http://127.0.0.1:7070/", token: "env"))
        #expect(
            options.endpoint(environment: [:]).url(for: "/v1/status")?.absoluteString
                == "http://127.0.0.1:7070/v1/status")
        #expect(throws: (any Error).self) { try ClientOptions.parse(["--url", "127.0.0.1:7070"]) }
        #expect(throws: (any Error).self) { try ClientOptions.parse(["--url", "http://x:1", "--socket", "/tmp/s"]) }
        let url = try #require(
            ControlEndpoint.unixSocket(path: "/run/sportsensord/control.sock").url(for: "/v1/scan?seconds=5"))
        #expect(url.scheme == "http+unix")
        #expect(url.absoluteString == "http+unix://%2Frun%2Fsportsensord%2Fcontrol.sock/v1/scan?seconds=5")
    }

    @Test("stop without an ID: the only live session, else an error that says how to choose")
    func stopChoice() throws {
        let one = TailRendererTests.session("5f0c1234-aaaa", sensor: "anna", live: true)
        #expect(try StopCommand.choose(from: [one], sensor: nil) == "5f0c1234-aaaa")
        #expect {
            _ = try StopCommand.choose(from: [], sensor: "anna")
        } throws: { error in
            let error = error as? ClientError
            return error?.message == "no live session on anna" && error?.exitCode == 65
        }
        let two = TailRendererTests.session("77aa0000-bbbb", sensor: "bob", live: true)
        #expect {
            _ = try StopCommand.choose(from: [one, two], sensor: nil)
        } throws: { error in
            let error = error as? ClientError
            return error?.message == "2 sessions are live: 5f0c1234 (anna), 77aa0000 (bob)" && error?.exitCode == 64
        }
    }

    @Test("tables align their columns and drop trailing spaces")
    func table() {
        var table = TextTable(["NAME", "RSSI"], alignments: [.left, .right])
        table.append(["BC05FC978B7510AB", "-61 dBm"])
        table.append(["x", "-5 dBm"])
        #expect(table.rendered == "NAME                 RSSI\nBC05FC978B7510AB  -61 dBm\nx                  -5 dBm\n")
        let sorted = GatewayFormatting.sortedDiscoveries([
            DiscoveryInfo(
                address: "AA:00:00:00:00:01", addressType: "public", name: "TV", rssi: -30, isSduSensor: false),
            DiscoveryInfo(
                address: "FC:97:8B:75:10:AB", addressType: "random", name: "BC05", rssi: -80, isSduSensor: true),
            DiscoveryInfo(address: "FC:97:8B:75:10:AC", addressType: "random", name: nil, rssi: -50, isSduSensor: true),
        ])
        #expect(sorted.map(\.address) == ["FC:97:8B:75:10:AC", "FC:97:8B:75:10:AB", "AA:00:00:00:00:01"])
    }

    @Test("adapters and status show links of the budget, the sensors on each adapter and who waits for a slot")
    func adapterBudgets() {
        let adapters = [
            AdapterInfo(
                name: "hci0", address: "00:1A:7D:DA:71:13", up: true, linkBudget: 5,
                sensors: ["FC:97:8B:75:10:AB", "FC:97:8B:75:10:AC"]),
            AdapterInfo(name: "hci1", address: "00:1A:7D:DA:71:14", up: false, linkBudget: 5),
        ]
        let table = GatewayFormatting.adapters(adapters)
        #expect(table.contains("hci0     00:1A:7D:DA:71:13  up       2/5  FC:97:8B:75:10:AB FC:97:8B:75:10:AC"))
        #expect(table.contains("hci1     00:1A:7D:DA:71:14  DOWN     0/5  -"))
        let status = GatewayFormatting.status(
            GatewayStatus(
                version: "0.1.0", uptimeSeconds: 60, stateDirectory: "/var/lib/sportsensord", storeHealthy: true,
                adapters: adapters, sensorsPaired: 3, sensorsConnected: 2, liveSessions: 2, sensorsWaitingForSlot: 1))
        #expect(status.contains("hci0 00:1A:7D:DA:71:13 up, 2/5 links, hci1 00:1A:7D:DA:71:14 DOWN, 0/5 links"))
        #expect(status.contains("3 paired, 2 connected, 1 waiting for a free adapter slot (add an adapter or raise"))
    }
}
