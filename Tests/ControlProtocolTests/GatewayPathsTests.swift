// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Testing

@Suite("Where the socket and the state directory are: one set of rules for daemon and CLI")
struct GatewayPathsTests {
    private static let nothingExists: @Sendable (String) -> Bool = { _ in false }

    private func paths(
        _ environment: [String: String], existing: Set<String> = [], userID: UInt32 = 1000
    )
        -> GatewayPaths
    {
        GatewayPaths(environment: environment, userID: userID, isDirectory: { existing.contains($0) })
    }

    @Test("socket: --socket beats everything, an empty option counts as none")
    func socketOption() {
        let all = paths(
            ["SPORTSENSOR_SOCKET": "/env.sock", "RUNTIME_DIRECTORY": "/run/x", "XDG_RUNTIME_DIR": "/run/user/1"],
            existing: ["/run/sportsensord"])
        #expect(all.controlSocket(option: "/opt.sock") == .init(path: "/opt.sock", rule: .commandLine))
        #expect(all.controlSocket(option: "") == .init(path: "/env.sock", rule: .environment))
    }

    @Test("socket: $SPORTSENSOR_SOCKET, then systemd's RUNTIME_DIRECTORY (its first entry)")
    func socketEnvironment() {
        #expect(
            paths(["SPORTSENSOR_SOCKET": "/env.sock"]).controlSocket()
                == .init(path: "/env.sock", rule: .environment))
        #expect(
            paths(["RUNTIME_DIRECTORY": "/run/sportsensord:/run/other"], existing: []).controlSocket()
                == .init(path: "/run/sportsensord/control.sock", rule: .systemd))
    }

    @Test("socket: /run/sportsensord when it exists, then XDG_RUNTIME_DIR (absolute only), then /tmp")
    func socketDefaults() {
        #expect(
            paths(["XDG_RUNTIME_DIR": "/run/user/1000"], existing: ["/run/sportsensord"]).controlSocket()
                == .init(path: "/run/sportsensord/control.sock", rule: .system))
        #expect(
            paths(["XDG_RUNTIME_DIR": "/run/user/1000/"]).controlSocket()
                == .init(path: "/run/user/1000/sportsensord.sock", rule: .user))
        #expect(
            paths(["XDG_RUNTIME_DIR": "relative"], userID: 7).controlSocket()
                == .init(path: "/tmp/sportsensord-7.sock", rule: .temporary))
        #expect(paths([:], userID: 0).controlSocket() == .init(path: "/tmp/sportsensord-0.sock", rule: .temporary))
    }

    @Test("a daemon started without XDG_RUNTIME_DIR listens where the CLI looks")
    func daemonAndClientAgree() {
        // The daemon (as systemd or a shell started it) and a client in another shell of the same
        // user: whatever the environment, both resolve to one path.
        for environment in [[:], ["XDG_RUNTIME_DIR": "/run/user/1000"], ["HOME": "/home/a"]] {
            let daemon = paths(environment).controlSocket(option: nil)
            let client = paths(environment).controlSocket(option: nil)
            #expect(daemon == client)
        }
    }

    @Test("state: --state-dir, $SPORTSENSOR_STATE_DIR, then systemd's STATE_DIRECTORY")
    func stateExplicit() {
        let environment = ["SPORTSENSOR_STATE_DIR": "/env", "STATE_DIRECTORY": "/var/lib/x", "HOME": "/home/a"]
        #expect(paths(environment).stateDirectory(option: "/srv/x") == .init(path: "/srv/x", rule: .commandLine))
        #expect(paths(environment).stateDirectory() == .init(path: "/env", rule: .environment))
        #expect(
            paths(["STATE_DIRECTORY": "/var/lib/sportsensord:/var/lib/other"]).stateDirectory()
                == .init(path: "/var/lib/sportsensord", rule: .systemd))
    }

    @Test("state: /var/lib/sportsensord whenever it exists (a group member reads the daemon's store)")
    func stateSystem() {
        #expect(
            paths(["HOME": "/home/a"], existing: ["/var/lib/sportsensord"]).stateDirectory()
                == .init(path: "/var/lib/sportsensord", rule: .system))
    }

    @Test("state: else XDG_DATA_HOME (absolute only), else ~/.local/share")
    func stateUser() {
        #expect(
            paths(["XDG_DATA_HOME": "/data", "HOME": "/home/a"]).stateDirectory()
                == .init(path: "/data/sportsensord", rule: .user))
        #expect(paths(["HOME": "/home/a/"]).stateDirectory().path == "/home/a/.local/share/sportsensord")
        #expect(
            paths(["XDG_DATA_HOME": "rel", "HOME": "/home/a"]).stateDirectory().path
                == "/home/a/.local/share/sportsensord")
    }

    @Test("the resolved path names its rule for doctor")
    func description() {
        #expect(
            GatewayPaths.Resolved(path: "/var/lib/sportsensord", rule: .system).description
                == "/var/lib/sportsensord (system)")
    }
}
