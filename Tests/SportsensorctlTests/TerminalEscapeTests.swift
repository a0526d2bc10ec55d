// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import GatewayTesting
import Testing

/// ESC and BEL from an argument, the store or the daemon reach the terminal escaped (`\u{1B}`),
/// whichever command prints them: the run's output holds no raw control character.
@Suite("sportsensorctl: terminal escapes")
struct TerminalEscapeTests {
    static var executable: String { BuiltProducts.path(of: "sportsensorctl") ?? "sportsensorctl (not built)" }
    static let clear = "\u{1B}[2J\u{07}"

    /// Runs the tool and checks that nothing raw got out and the escape is shown as `\u{1B}`.
    static func expectEscaped(
        _ arguments: [String], status: Int32, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let result = try await runCommand(executable, arguments)
        let output = result.standardOutput + result.standardError
        #expect(result.status == status, "\(arguments): \(result)", sourceLocation: sourceLocation)
        #expect(
            !output.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" }, "\(arguments): \(result)",
            sourceLocation: sourceLocation)
        #expect(output.contains("\\u{1B}[2J\\u{7}"), "\(arguments): \(result)", sourceLocation: sourceLocation)
    }

    @Test("arguments echoed back by pair, sessions --since, show, import --sensor, leaderboard")
    func arguments() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable))
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let csv = try directory.write("a.csv", Array("t,x,y,z\n0,0,0,1\n0.01,0,0,1\n".utf8))
        let socket = "/tmp/ssctl-none-\(UUID().uuidString.prefix(8)).sock"
        try await Self.expectEscaped(["pair", Self.clear], status: 64)
        try await Self.expectEscaped(["sessions", "--state-dir", directory.path, "--since", Self.clear], status: 64)
        try await Self.expectEscaped(
            ["import", "--state-dir", directory.path, "--profile", "steps", "--sensor", Self.clear, csv], status: 64)
        try await Self.expectEscaped(["leaderboard", Self.clear, "--socket", socket], status: 64)
        _ = try await runCommand(
            Self.executable, ["import", "--state-dir", directory.path, "--profile", "steps", csv])
        try await Self.expectEscaped(["show", "--state-dir", directory.path, Self.clear], status: 66)
        try await Self.expectEscaped(["sportsensorctl-unknown", Self.clear], status: 64)
    }

    @Test("a daemon's error and a daemon's names (a sensor's alias) are shown escaped")
    func relayed() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable))
        let body = ControlErrorBody(code: "not-found", error: "no sensor is called \(Self.clear)", fix: "list them")
        let error = try UnixSocketHTTPServer(path: "/tmp/ssctl-\(UUID().uuidString.prefix(12)).sock") { _ in
            .full(status: 404, contentType: "application/json", body: Array(try! JSONEncoder.controlAPI.encode(body)))
        }
        defer { error.close() }
        try await Self.expectEscaped(["unpair", "x", "--socket", error.path], status: 65)
        let sensor = SensorInfo(
            address: "FC:97:8B:75:10:AB", addressType: "random", alias: Self.clear, name: nil, athlete: Self.clear,
            linkState: .connected, lastSeen: nil, isVirtual: false, liveSessionId: nil)
        let sensors = try UnixSocketHTTPServer(path: "/tmp/ssctl-\(UUID().uuidString.prefix(12)).sock") { _ in
            .full(
                status: 200, contentType: "application/json", body: Array(try! JSONEncoder.controlAPI.encode([sensor])))
        }
        defer { sensors.close() }
        try await Self.expectEscaped(["sensors", "--socket", sensors.path], status: 0)
        let paired = try UnixSocketHTTPServer(path: "/tmp/ssctl-\(UUID().uuidString.prefix(12)).sock") { _ in
            .full(status: 201, contentType: "application/json", body: Array(try! JSONEncoder.controlAPI.encode(sensor)))
        }
        defer { paired.close() }
        try await Self.expectEscaped(["pair", "FC:97:8B:75:10:AB", "--socket", paired.path], status: 0)
    }
}
