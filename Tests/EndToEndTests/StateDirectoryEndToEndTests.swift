// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GatewayTesting
import Testing

/// sportsensord and a state directory other users can write: its own 0777 is tightened (and the
/// log says so), a shared sticky one (1777, like /tmp) is refused with 78 and the fix.
@Suite("End to end: a state directory writable by others", .serialized, .timeLimit(.minutes(5)))
struct StateDirectoryEndToEndTests {
    static func mode(_ path: String) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    }

    @Test("0777 of the daemon's own user is tightened to 0750, and the log says from what")
    func tightened() async throws {
        let directory = try RunningGateway.makeDirectory()
        let state = directory + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: state)
        try await RunningGateway.with(config: "[virtual]\nsensors = 1\n", in: directory) { gateway in
            let mode = try Self.mode(state)
            #expect(mode == 0o750)
            #expect(gateway.log.contains("writable by other users (mode 777): tightened it to 0750"), "\(gateway.log)")
        }
    }

    @Test("a shared sticky 1777 directory: exit 78 naming --state-dir, the directory untouched")
    func refused() async throws {
        let daemon = try #require(RunningGateway.daemonPath)
        let directory = try RunningGateway.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let state = directory + "/shared"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o1777], ofItemAtPath: state)
        try "[virtual]\nsensors = 1\n".write(toFile: directory + "/config.toml", atomically: true, encoding: .utf8)
        let run = try await runCommand(
            daemon,
            [
                "--config", directory + "/config.toml", "--state-dir", state, "--socket", directory + "/control.sock",
            ],
            timeout: .seconds(60))
        #expect(run.status == 78, "\(run)")
        #expect(run.standardError.contains("--state-dir"), "\(run)")
        #expect(try Self.mode(state) == 0o1777)
        #expect(!FileManager.default.fileExists(atPath: state + "/sportsensord.sqlite"))
    }
}
