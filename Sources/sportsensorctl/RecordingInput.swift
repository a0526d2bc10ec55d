// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import CodedErrors
import ControlProtocol
import Foundation
import SDUSensor

/// An error reading a recording (a sample CSV or a btsnoop capture). The message says what was
/// wrong and what to do; `exitCode` follows sysexits(3).
struct InputError: CodedError {
    /// What went wrong.
    struct Code: NamedCode {
        let name: String
        /// The file could not be read.
        static let unreadable = Code(name: "unreadable")
        /// The sample CSV is malformed (the message names the line).
        static let malformedCSV = Code(name: "malformedCSV")
        /// A btsnoop file whose header or records are not valid.
        static let malformedCapture = Code(name: "malformedCapture")
        /// A valid capture without any SDU accelerometer samples.
        static let noSensorData = Code(name: "noSensorData")
        /// Several sensors in one capture and no `--address` to choose one.
        static let severalSensors = Code(name: "severalSensors")
        /// An option's value is not valid.
        static let invalidOption = Code(name: "invalidOption")
    }

    var code: Code
    var message: String
    var cause: (any Error)?

    /// 66 (EX_NOINPUT) for a file that cannot be read, 64 (EX_USAGE) for a bad option, else 65
    /// (EX_DATAERR): the input's content is the problem.
    var exitCode: Int32 {
        switch code {
        case .unreadable: 66
        case .invalidOption: 64
        default: 65
        }
    }
}

/// Reading recordings from files: sample CSVs and btsnoop captures, told apart by their first
/// bytes.
enum RecordingInput {
    /// The first eight bytes of every btsnoop file.
    static let btsnoopMagic: [UInt8] = Array("btsnoop".utf8) + [0]

    /// The file's bytes, or an error naming the path and the reason.
    static func read(_ path: String) throws(InputError) -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? error.localizedDescription
            throw InputError(
                code: .unreadable, message: "\(path): cannot read the file (\(reason)); check the path and permissions",
                cause: error)
        }
    }

    /// Refuses a recording whose times leave ``StoredRanges/time`` (seconds from the start, a week
    /// at most), naming the first such sample: `analyze` and `import` read the same files the same
    /// way, and no summary or listing then computes with a time like 1e300.
    static func checkTimes(_ times: some Sequence<Double>, path: String) throws(InputError) {
        for (position, t) in times.enumerated() {
            guard let problem = StoredRanges.time.problem(with: t, label: "sample \(position + 1)'s time t") else {
                continue
            }
            throw InputError(
                code: .malformedCSV,
                message: "\(path): \(problem) (seconds from the recording's start); subtract the first time from "
                    + "every time (epoch times need --started for the wall-clock start)")
        }
    }

    /// A sample rate recovered from the times, when it is one the store takes (a rate from two
    /// samples a microsecond apart is not a rate).
    static func plausibleRate(_ rate: Double?) -> Double? {
        rate.flatMap { StoredRanges.sampleRate.problem(with: $0) == nil ? $0 : nil }
    }

    /// True when `data` starts like a btsnoop capture.
    static func isCapture(_ data: Data) -> Bool {
        data.count >= btsnoopMagic.count && data.prefix(btsnoopMagic.count).elementsEqual(btsnoopMagic)
    }

    /// A decoded capture, and whether the file ended inside a record.
    struct DecodedCapture {
        var result: SDUCaptureDecoder.Result
        var datalink: BTSnoopDatalink
        /// Set when the capture was cut short (its last record is incomplete) or a record header
        /// was corrupt: every record before it was decoded.
        var stoppedEarly: WireError?
    }

    /// Decodes every SDU sensor in a btsnoop capture.
    static func decodeCapture(
        _ data: Data, path: String, configuration: SDUCaptureDecoder.Configuration
    ) throws(InputError) -> DecodedCapture {
        let outcome: Result<DecodedCapture, WireError> = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            do throws(WireError) {
                var reader = try BTSnoopReader(bytes: bytes)
                var decoder = SDUCaptureDecoder(configuration: configuration)
                var stoppedEarly: WireError?
                while true {
                    do throws(WireError) {
                        guard let record = try reader.next() else { break }
                        decoder.push(record)
                    } catch {
                        stoppedEarly = error
                        break
                    }
                }
                return .success(
                    DecodedCapture(result: decoder.finish(), datalink: reader.datalink, stoppedEarly: stoppedEarly))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let capture): return capture
        case .failure(let error):
            throw InputError(
                code: .malformedCapture,
                message: "\(path): not a readable btsnoop capture (\(error.message)); record one with `btmon -w FILE` "
                    + "or take Android's Bluetooth HCI snoop log",
                cause: error)
        }
    }

    /// The one sensor recording the user asked for: the only one in the capture, or the one
    /// `--address` named. Errors explain how to choose or why nothing was found.
    static func chooseRecording(
        _ capture: DecodedCapture, path: String, address: BluetoothAddress?, handle: UInt16?
    ) throws(InputError) -> SDUCaptureDecoder.SensorRecording {
        let recordings = capture.result.recordings
        if recordings.count == 1 { return recordings[0] }
        if recordings.count > 1 {
            let names = recordings.map(\.name).joined(separator: ", ")
            throw InputError(
                code: .severalSensors,
                message: "\(path): holds samples from \(recordings.count) sensors (\(names)); choose one with --address"
            )
        }
        var message = "\(path): no SDU accelerometer samples found"
        if let address { message += " from \(address)" }
        let candidates = capture.result.unidentifiedNotifications.sorted { $0.value > $1.value }
        if handle == nil, let busiest = candidates.first {
            let list = candidates.prefix(4).map { "0x\(hex4($0.key)) (\($0.value))" }.joined(separator: ", ")
            message +=
                ": the capture has notifications on handle(s) \(list) but no GATT discovery of the accelerometer "
                + "characteristic (it probably started after connecting); rerun with --handle 0x\(hex4(busiest.key))"
        } else if handle != nil {
            message += " on handle 0x\(hex4(handle!)); check the handle (notifications seen: "
            message +=
                candidates.isEmpty ? "none)" : candidates.map { "0x\(hex4($0.key))" }.joined(separator: ", ") + ")"
        } else {
            message += ": it holds no notifications from an LE peer; was the sensor connected while capturing?"
        }
        throw InputError(code: .noSensorData, message: message)
    }

    /// Parses `0x0015`, `0015` as hex, or a decimal handle such as `21`; the `0x` form is what
    /// `decode --stats` and btmon print.
    static func parseHandle(_ text: String) throws(InputError) -> UInt16 {
        let value: UInt16? =
            text.lowercased().hasPrefix("0x") ? UInt16(text.dropFirst(2), radix: 16) : UInt16(text, radix: 10)
        guard let value, value != 0 else {
            throw InputError(
                code: .invalidOption,
                message: "--handle \(text): expected an ATT handle from 1 to 65535, such as 0x0015 or 21")
        }
        return value
    }

    /// Parses `AA:BB:CC:DD:EE:FF`; the address type does not matter for matching a capture.
    static func parseAddress(_ text: String) throws(InputError) -> BluetoothAddress {
        guard let address = BluetoothAddress(string: text) else {
            throw InputError(
                code: .invalidOption, message: "--address \(text): expected a Bluetooth address like FC:97:8B:75:10:AB")
        }
        return address
    }

    static func hex4(_ value: UInt16) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
