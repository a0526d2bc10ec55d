// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import ControlProtocol
import Foundation
import SessionStore

/// Who writes a store: the running daemon when it serves this state directory (it is then the
/// only writer, and a member of its group may not write the files anyway), else this process,
/// holding the store's lock.
enum StoreWriter {
    /// The daemon's endpoint when a daemon answers on `socket` and serves `directory`; nil
    /// otherwise.
    static func daemon(socket: String?, serving directory: StateDirectory) async -> ControlEndpoint? {
        let path = GatewayPaths().controlSocket(option: socket).path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let endpoint = ControlEndpoint.unixSocket(path: path)
        let status = try? await ControlClient.with(endpoint) { client in
            try await client.get(ControlRoute.status.request(), as: GatewayStatus.self)
        }
        guard let status, canonical(status.stateDirectory) == canonical(directory.path) else { return nil }
        return endpoint
    }

    private static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
    }
}

/// `--socket`, for the store commands that write: they go through the daemon when it runs.
struct DaemonSocketOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The daemon's control socket; while a daemon serving this state directory answers there, the "
                + "write goes through it.",
            valueName: "path"))
    var socket: String?
}
