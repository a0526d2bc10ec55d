// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GatewayTesting
import Testing

/// What a build says it is: `sportsensord --version` and `/v1/status` give one string, the
/// version and the commit. This build is not `make deb`'s (no -DSPORTSENSOR_STAMPED), so its
/// commit is "unknown"; scripts/build-deb.sh checks the stamped one against git.
@Suite("End to end: the version the daemon reports", .timeLimit(.minutes(5)))
struct VersionEndToEndTests {
    @Test("--version and /v1/status agree: the base version and commit unknown outside make deb")
    func versionAndStatusAgree() async throws {
        let daemonPath = try #require(RunningGateway.daemonPath, "build the daemon first: swift build --build-tests")
        let version = try await runCommand(daemonPath, ["--version"], environment: [:], timeout: .seconds(30))
        #expect(version.status == 0, "\(version)")
        let said = version.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(said.wholeMatch(of: /[0-9]+\.[0-9]+\.[0-9]+ \(commit unknown\)/) != nil, "--version said \(said)")

        try await RunningGateway.with(config: "") { gateway in
            let status = try await gateway.controlJSON(["status", "--json"]) as? [String: Any]
            #expect(status?["version"] as? String == said)
        }
    }
}
