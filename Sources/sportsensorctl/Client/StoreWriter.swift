// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import ControlProtocol
import Foundation
import SessionStore

/// Who writes a store: the running daemon when it serves this state directory (it is then the
/// only writer, and a member of its group may not write the files anyway), else this process,
/// holding the store's lock.
enum StoreWriter {
    /// The daemon's client when a daemon answers on `socket` and serves `directory`; nil otherwise.
    static func daemon(socket: String?, serving directory: StateDirectory) async -> ControlClient? {
        let path = GatewayPaths().controlSocket(option: socket).path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let client = ControlClient(endpoint: .unixSocket(path: path), requestTimeout: 10)
        if let status: GatewayStatus = try? await client.get(ControlRoute.status.request()),
            canonical(status.stateDirectory) == canonical(directory.path)
        {
            return client
        }
        await client.shutdown()
        return nil
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
