// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import ControlProtocol
import Foundation
import SystemCalls

/// The options every command that talks to `sportsensord` shares.
struct ClientOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The daemon's control socket.",
            discussion: "Default: $SPORTSENSOR_SOCKET, else /run/sportsensord/control.sock when the service is "
                + "installed, else $XDG_RUNTIME_DIR/sportsensord.sock, else /tmp/sportsensord-UID.sock: where "
                + "sportsensord listens by the same rules.",
            valueName: "path"))
    var socket: String?

    @Option(help: ArgumentHelp("Reach the daemon over TCP instead of its socket.", valueName: "http://host:port"))
    var url: String?

    @Option(help: "The bearer token the daemon's TCP listener requires (default: $SPORTSENSOR_TOKEN).")
    var token: String?

    @Flag(help: "Print JSON instead of human-readable text.")
    var json = false

    func validate() throws {
        if let url, !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
            throw ValidationError("--url \(url): expected http://HOST:PORT, such as http://127.0.0.1:7070")
        }
        if url != nil, socket != nil { throw ValidationError("--url and --socket exclude each other: choose one") }
    }

    /// Prints `value`: as JSON with `--json`, else the text `human` makes of it.
    func output<T: Encodable>(_ value: T, _ human: (T) -> String) {
        if json { writeStandardOutput(controlJSON(value) + "\n") } else { writeHumanOutput(human(value)) }
    }

    /// The endpoint these options name.
    func endpoint(environment: [String: String] = ProcessInfo.processInfo.environment) -> ControlEndpoint {
        if let url { return .tcp(baseURL: url, token: token ?? environment["SPORTSENSOR_TOKEN"]) }
        return .unixSocket(path: GatewayPaths(environment: environment).controlSocket(option: socket).path)
    }
}

/// Runs a client command: a `ClientError` becomes `error: message (fix)` on standard error and
/// its exit code.
func runClientCommand(
    _ options: ClientOptions, _ body: (ControlClient) async throws -> Void
) async throws {
    do {
        try await ControlClient.with(options.endpoint()) { client in try await body(client) }
    } catch let error as ClientError {
        writeStandardError("error: \(error.description)\n")
        throw ExitCode(error.exitCode)
    }
}

/// Writes a message to standard error, unbuffered, escaped for the terminal (``TerminalText``):
/// every message the tool prints there goes through here. Every write is checked, but a standard
/// error that cannot be written (`2>/dev/full`) has nowhere left to be reported: the message is
/// dropped and the exit status still says what happened (`FileHandle.write` would trap instead).
func writeStandardError(_ text: String) {
    _ = WholeFileWriter.writeAll(Array(TerminalText.escaped(text, keepingLayout: true).utf8), to: STDERR_FILENO)
}

/// Writes text for a person to standard output, escaped for the terminal (``TerminalText``):
/// names and arguments in it cannot reach the terminal raw.
func writeHumanOutput(_ text: String) {
    writeStandardOutput(TerminalText.escaped(text, keepingLayout: true))
}

/// Writes to standard output at once (`print` buffers when stdout is a pipe).
func writeStandardOutput(_ text: String) {
    writeStandardOutput(Data(text.utf8))
}

/// The JSON that `--json` prints: the control API's own encoding, pretty and with sorted keys.
func controlJSON<T: Encodable>(_ value: T) -> String {
    let encoder = JSONEncoder.controlAPI
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(value) else { return "null" }
    return String(decoding: data, as: UTF8.self)
}
