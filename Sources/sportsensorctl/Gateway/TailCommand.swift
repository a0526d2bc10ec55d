// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import ControlProtocol
import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `sportsensorctl tail`: follow the live sessions.
struct TailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tail",
        abstract: "Follow live sessions: a table with one row per session, updated in place.",
        discussion: """
            On a terminal a table with a header and one row per live session (sensor, athlete, profile, count, \
            events per minute, the profile's best/last figure, forehand and backhand strokes, target, link \
            state, time) is redrawn as the counters arrive; piped, the header comes once and every update is a \
            row in the same columns. \
            --events prints every detection, link change and session start or end instead; --json prints the \
            daemon's event stream as JSON lines ({"event": KIND, "data": {...}}). Ctrl-C ends it (exit 0); if \
            the daemon goes away, tail exits 69.
            """)

    @Flag(help: "Print each event as it happens instead of the per-session lines.")
    var events = false

    @OptionGroup var client: ClientOptions

    func run() async throws {
        let mode: TailRenderer.Mode = events ? .events : (isatty(STDOUT_FILENO) == 1 ? .live : .plain)
        let json = client.json
        let subscription = Task {
            try await runClientCommand(client) { connection in
                var renderer = TailRenderer(mode: mode)
                var warnedUndecodable = false
                if !json { writeStandardOutput(renderer.start()) }
                try await connection.events { item in
                    if json {
                        if let line = TailCommand.jsonLine(item) { writeStandardOutput(line + "\n") }
                        return
                    }
                    do {
                        guard let event = try GatewayEvent(kind: item.event, payloadJSON: Data(item.data.utf8))
                        else { return }  // a kind a newer daemon added
                        let text = renderer.apply(event)
                        if !text.isEmpty { writeStandardOutput(text) }
                    } catch {
                        if !warnedUndecodable {
                            warnedUndecodable = true
                            writeStandardError(
                                "warning: skipping \(item.event) events this sportsensorctl cannot read (\(error)); "
                                    + "are the daemon and sportsensorctl the same version?\n")
                        }
                    }
                }
            }
        }
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let interrupts = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler { subscription.cancel() }
            source.resume()
            return source
        }
        defer { for source in interrupts { source.cancel() } }
        do {
            try await subscription.value
        } catch is CancellationError {
            return  // Ctrl-C: a normal way to stop following
        }
    }

    /// An SSE item as one JSON line, `{"data":…,"event":"counters"}`; nil when its data is not JSON.
    static func jsonLine(_ item: ServerSentEvent) -> String? {
        let data = Data(item.data.utf8)
        guard (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil else { return nil }
        return "{\"data\":\(item.data.replacingOccurrences(of: "\n", with: " ")),\"event\":\(jsonString(item.event))}"
    }
}
