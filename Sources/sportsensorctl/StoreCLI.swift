// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLEWire
import ControlProtocol
import Detection
import Foundation
import Logging
import SDUSensor
import SessionStore

/// `--state-dir`, shared by every command that opens the session store.
struct StateDirectoryOptions: ParsableArguments {
    @Option(
        name: .customLong("state-dir"),
        help: ArgumentHelp(
            "The directory holding the session database (default: $SPORTSENSOR_STATE_DIR, else "
                + "/var/lib/sportsensord when it exists, else ~/.local/share/sportsensord).",
            valueName: "dir"))
    var stateDir: String?

    /// The directory the rules choose.
    var directory: StateDirectory { StateDirectory(path: GatewayPaths().stateDirectory(option: stateDir).path) }

    /// Opens the store to change it (SQLite in WAL mode lets this run next to the daemon):
    /// migrates an older schema. The store logs warnings only: what a command did is its output.
    func openStore() throws(StoreError) -> SessionStore {
        try SessionStore.open(at: directory, options: options)
    }

    /// Opens the store to read it, changing nothing: works on the daemon's directory through its
    /// group and on a read-only file system.
    func openStoreReadOnly() throws(StoreError) -> SessionStore {
        try SessionStore.openReadOnly(at: directory, options: options)
    }

    private var options: SessionStore.Options {
        var logger = Logger(label: "sportsensorctl.store")
        logger.logLevel = .warning
        return SessionStore.Options(logger: logger)
    }
}

/// A failure of a store command: what to tell the user and the sysexits(3) status.
struct CommandFailure: Error, CustomStringConvertible {
    /// The exit status.
    var exitCode: Int32
    /// What went wrong and how to fix it.
    var message: String

    var description: String { message }

    /// 64 (EX_USAGE): a bad option or argument.
    static func usage(_ message: String) -> CommandFailure { CommandFailure(exitCode: 64, message: message) }
    /// 65 (EX_DATAERR): the input's content is wrong.
    static func data(_ message: String) -> CommandFailure { CommandFailure(exitCode: 65, message: message) }
    /// 66 (EX_NOINPUT): what was asked for does not exist.
    static func noInput(_ message: String) -> CommandFailure { CommandFailure(exitCode: 66, message: message) }
    /// 73 (EX_CANTCREAT): an output file cannot be created.
    static func cannotCreate(_ message: String) -> CommandFailure { CommandFailure(exitCode: 73, message: message) }

    /// The status for a store error: 66 no such session, 64 an ambiguous prefix or bad argument,
    /// 65 a damaged, foreign or newer-schema database (the data is the problem), 73 a state
    /// directory or file that cannot be created or written, 75 (EX_TEMPFAIL) a lock held too
    /// long or a session still recording, 74 (EX_IOERR) a full disk and other SQLite failures.
    static func exitCode(for error: StoreError) -> Int32 {
        switch error.code {
        case .notFound: 66
        case .ambiguousPrefix, .invalidArgument: 64
        case .corrupt, .newerSchema, .notOurDatabase, .badChunk: 65
        case .permission: 73
        case .busy, .sessionLive: 75
        default: 74
        }
    }
}

/// Runs a command body, turning every failure into `error: …` on standard error and the exit
/// status its kind calls for (thrown as `ExitCode`).
func reportingFailures(_ body: () async throws -> Void) async throws {
    let status: Int32
    let message: String
    do {
        try await body()
        return
    } catch let error as StoreError {
        (status, message) = (CommandFailure.exitCode(for: error), error.message)
    } catch let error as InputError {
        (status, message) = (error.exitCode, error.message)
    } catch let error as CommandFailure {
        (status, message) = (error.exitCode, error.message)
    } catch let error as ClientError {
        (status, message) = (error.exitCode, error.description)
    }
    writeStandardError("error: \(message)\n")
    throw ExitCode(status)
}

// MARK: Parsing

/// Parsing of the store commands' option values.
enum StoreArguments {
    /// `90d`, `12h`, `2w`, `30m`, `45s` (decimals allowed, `1.5d`) → seconds.
    static func duration(_ text: String) throws(CommandFailure) -> TimeInterval {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard let unit = trimmed.last, let seconds = units[unit], let value = Double(trimmed.dropLast()),
            value.isFinite, value >= 0
        else {
            throw .usage(
                "'\(text)' is not a duration: write a number and a unit, s, m, h, d or w (for example 90d, 12h, 2w)")
        }
        return value * seconds
    }

    /// `2024-05-01` (midnight UTC) or a full ISO 8601 time such as `2024-05-01T14:30:00Z`.
    static func date(_ text: String, option: String) throws(CommandFailure) -> Date {
        let full = ISO8601DateFormatter()
        if let date = full.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = fractional.date(from: text) { return date }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        if text.count == 10, let date = day.date(from: text) { return date }
        throw .usage("\(option) \(text): expected an ISO 8601 date, 2024-05-01, or time, 2024-05-01T14:30:00Z (UTC)")
    }

    /// A profile name, with the list of valid ones when it is not.
    static func profile(_ text: String) throws(CommandFailure) -> DetectionProfile {
        guard let profile = DetectionProfile(rawValue: text) else {
            let names = DetectionProfile.allCases.map(\.rawValue).joined(separator: ", ")
            throw .usage("unknown profile '\(text)': choose one of \(names)")
        }
        return profile
    }

    /// `AA:BB:CC:DD:EE:FF`, public unless `random` is true.
    static func address(_ text: String, random: Bool = false) throws(CommandFailure) -> BluetoothAddress {
        guard let address = BluetoothAddress(string: text, kind: random ? .random : .public) else {
            throw .usage("--sensor \(text): expected a Bluetooth address like FC:97:8B:75:10:AB")
        }
        return address
    }
}

// MARK: Formatting

/// Output helpers shared by the store commands.
enum StoreFormat {
    /// `2024-05-01T14:30:00Z` (UTC, whole seconds).
    static func time(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// `1:02:03`, `2:03` or `0:07` for a number of seconds.
    static func duration(_ seconds: Double) -> String {
        // Beyond a million hours is a damaged row, not a duration: no trap on it.
        guard seconds.isFinite, seconds >= 0, seconds < 3.6e9 else { return "-" }
        let total = Int(seconds.rounded())
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        let two = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(secs))" : "\(minutes):\(two(secs))"
    }

    /// Rows aligned in columns two spaces apart; `numeric` columns are right-aligned.
    static func table(header: [String], rows: [[String]], numeric: Set<Int> = []) -> String {
        let rows = rows.map { $0.map { TerminalText.escaped($0) } }
        var widths = header.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (column, cell) in cells.enumerated() {
                let padding = String(repeating: " ", count: max(0, widths[column] - cell.count))
                let isLast = column == cells.count - 1
                if numeric.contains(column) {
                    text += padding + cell
                } else {
                    text += cell + (isLast ? "" : padding)
                }
                if !isLast { text += "  " }
            }
            return text
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }

    /// A JSON string literal.
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A JSON number with `decimals` digits, or `null` when not finite.
    static func number(_ value: Double, _ decimals: Int) -> String {
        value.isFinite ? SampleCSV.fixed(value, decimals: decimals) : "null"
    }

    /// A JSON object from (key, already-encoded value) pairs, in order.
    static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { "\(string($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }

    /// Writes text to standard output, escaped for the terminal (JSON has no raw control
    /// characters to escape, so it passes unchanged).
    static func write(_ text: String) {
        writeHumanOutput(text)
    }
}
