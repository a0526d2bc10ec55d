// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import BLEWire

/// The LE scan protocol between host and controller as a pure state machine: events in, actions
/// out. No sockets, no clock; ``LEScanner`` performs the actions on a raw HCI socket.
///
/// ## The exchange
///
/// 1. ``start()`` sends Read Local Supported Commands.
/// 2. Its answer decides the command set: **extended** (LE Set Extended Scan Parameters/Enable,
///    octet 37 bits 5 and 6 of the bitmap) when the controller has it, **legacy** (LE Set Scan
///    Parameters/Enable) otherwise. Extended is preferred because a Bluetooth 5 controller that
///    has seen one extended command (Linux uses them when it can) refuses every legacy one with
///    *Command Disallowed* until it is reset, and vice versa.
/// 3. Set scan parameters, then enable scanning, each waiting for its Command Complete (or a
///    failing Command Status). If the extended parameters are refused with *Command Disallowed*,
///    the controller is in legacy mode (another host spoke legacy to it first), so the legacy set
///    is tried once before giving up.
/// 4. While scanning, LE Advertising Reports and LE Extended Advertising Reports become
///    ``LEDiscovery`` values; a scan response is merged with the advertisement of the same
///    address, and fragments of long extended advertisements are joined.
/// 5. ``stop()``, a refused command, ``commandTimedOut(_:)`` and ``transportFailed(_:)`` all end
///    with the disable command of the set in use (scan enable 0x00) whenever a scan command was
///    sent, then ``Action/finish(_:)``. After both sets were refused the controller's mode is
///    unknown, so both disables are sent. The disable is sent even after a refusal: the commonest
///    cause of *Command Disallowed* is a scan left enabled by a process that was killed, and only
///    a disable clears it for the next attempt.
///
/// Events from other programs on the same controller (raw HCI sockets see every event) are
/// ignored: only the Command Complete/Status for the command this procedure is waiting for
/// moves it on, and reports count only once this procedure has enabled scanning.
///
/// Duplicate filtering is off by default (``LEScanConfiguration/DuplicatePolicy/reportAll``):
/// the gateway needs a steady RSSI to tell whether a sensor is still near, and with filtering on
/// a sensor that left and came back is not reported again.
public struct LEScanProcedure<Instant: InstantProtocol>: Sendable {
    /// Which family of scan commands the controller is driven with.
    public enum CommandSet: String, Sendable, Hashable, CustomStringConvertible {
        /// LE Set Scan Parameters (0x200B) and LE Set Scan Enable (0x200C), Bluetooth 4.0+.
        case legacy
        /// LE Set Extended Scan Parameters (0x2041) and Enable (0x2042), Bluetooth 5.0+.
        case extended

        /// `legacy` or `extended`.
        public var description: String { rawValue }
    }

    /// Where the procedure is.
    public enum Phase: Sendable, Hashable {
        /// ``start()`` not called yet.
        case idle
        /// Waiting for Read Local Supported Commands.
        case readingSupportedCommands
        /// Waiting for the set-scan-parameters command of this set.
        case settingParameters(CommandSet)
        /// Waiting for the scan-enable command of this set.
        case enabling(CommandSet)
        /// Scanning with this set.
        case scanning(CommandSet)
        /// Over; every later event is ignored.
        case finished
    }

    /// What the I/O layer must do, in order.
    public enum Action: Sendable, Equatable {
        /// Write this command (after the H4 type byte 0x01). Unless the procedure has finished,
        /// it now waits for the command's answer: call ``commandTimedOut(_:)`` if none comes
        /// within the configured timeout.
        case send(HCICommandPacket)
        /// The controller is scanning with this command set.
        case started(CommandSet)
        /// An advertiser was seen.
        case discovered(LEDiscovery<Instant>)
        /// Something worth a log line that changes nothing (a fallback, a malformed event).
        case note(String)
        /// The scan is over: close the socket and end the stream, with this error if it failed.
        /// Always the last action; nothing follows.
        case finish(TransportError?)
    }

    /// The configuration the scan runs with.
    public let configuration: LEScanConfiguration
    /// Where the procedure is.
    public private(set) var phase: Phase = .idle
    /// The opcode of the command whose answer the procedure waits for, if any.
    public var pendingCommand: HCIOpcode? { commands.pendingCommand }
    /// The command set of the last scan command sent; the disable uses the same set.
    public private(set) var commandSetInUse: CommandSet?
    /// HCI events that could not be parsed (counted, dropped).
    public var malformedEventCount: Int { commands.malformedEventCount }

    private var commands = HCICommandTracker()
    private var triedLegacyFallback = false
    private var advertisers: LEAdvertiserTable

    /// A procedure that will scan with `configuration`.
    public init(configuration: LEScanConfiguration = LEScanConfiguration()) {
        self.configuration = configuration
        advertisers = LEAdvertiserTable(capacity: configuration.maximumRememberedAdvertisers)
    }

    /// Advertising data that did not parse completely (what parsed was still used).
    public var malformedAdvertisingDataCount: Int { advertisers.malformedDataCount }

    // MARK: - Events

    /// Starts: validates the configuration and asks the controller which commands it supports.
    public mutating func start() -> [Action] {
        guard phase == .idle else { return [] }
        do throws(TransportError) {
            try configuration.validate()
        } catch {
            phase = .finished
            return [.finish(error)]
        }
        phase = .readingSupportedCommands
        return [send(HCIReadLocalSupportedCommands().packet)]
    }

    /// Handles one packet read from the raw HCI socket: the H4 type byte, then the packet.
    /// Anything but an event packet is ignored; a malformed event is counted and noted.
    public mutating func received(_ bytes: [UInt8], at instant: Instant) -> [Action] {
        guard phase != .finished else { return [] }
        switch commands.parse(bytes) {
        case .event(let event): return handle(event, at: instant)
        case .malformed(let note): return [.note(note)]
        case nil: return []
        }
    }

    /// Handles one HCI event.
    public mutating func handle(_ event: HCIEventPacket, at instant: Instant) -> [Action] {
        guard phase != .finished else { return [] }
        do throws(WireError) {
            // A successful Command Status is not an answer: these commands finish with Command
            // Complete.
            if let answer = try commands.answer(in: event) { return completed(answer) }
            guard event.eventCode == .leMeta else { return [] }
            return try advertisingReport(try HCILEMetaEvent(event), at: instant)
        } catch {
            return [.note(commands.malformed(event, error))]
        }
    }

    /// The consumer stopped (or the task was cancelled): disable scanning if a scan command was
    /// sent, then finish without an error.
    public mutating func stop() -> [Action] {
        end(with: nil)
    }

    /// The command `opcode` got no answer in time.
    public mutating func commandTimedOut(_ opcode: HCIOpcode) -> [Action] {
        guard phase != .finished, opcode == pendingCommand else { return [] }
        return end(with: .notAnswered(opcode, named: Self.name(of: opcode)))
    }

    /// The socket failed (a read or write error): try to disable scanning, then finish with `error`.
    public mutating func transportFailed(_ error: TransportError) -> [Action] {
        end(with: error)
    }

    // MARK: - Steps

    private mutating func completed(_ answer: HCICommandTracker.Answer) -> [Action] {
        let (opcode, status) = (answer.opcode, answer.status)
        switch phase {
        case .readingSupportedCommands:
            var notes: [Action] = []
            var set = CommandSet.legacy
            if status == .success, let complete = answer.complete {
                do throws(WireError) {
                    set = try HCISupportedCommands(complete).supportsExtendedScanning ? .extended : .legacy
                } catch {
                    notes.append(.note("the supported-commands bitmap did not parse (\(error)): using legacy scanning"))
                }
            } else {
                notes.append(.note("Read Local Supported Commands failed with \(status): using legacy scanning"))
            }
            return notes + setParameters(set)
        case .settingParameters(let set):
            if status == .success {
                phase = .enabling(set)
                return [send(enableCommand(set, enable: true))]
            }
            if set == .extended && status == .commandDisallowed && !triedLegacyFallback {
                triedLegacyFallback = true
                return [
                    .note(
                        "the controller refused the extended scan parameters with Command Disallowed; it is in "
                            + "legacy mode (another host used legacy commands since its reset): retrying with legacy"
                    )
                ] + setParameters(.legacy)
            }
            return end(with: Self.refusal(opcode, status))
        case .enabling(let set):
            guard status == .success else { return end(with: Self.refusal(opcode, status)) }
            phase = .scanning(set)
            return [.started(set)]
        case .idle, .scanning, .finished:
            return []
        }
    }

    private mutating func setParameters(_ set: CommandSet) -> [Action] {
        phase = .settingParameters(set)
        commandSetInUse = set
        let interval = UInt16(clamping: configuration.intervalUnits)
        let window = UInt16(clamping: configuration.windowUnits)
        let packet: HCICommandPacket
        switch set {
        case .legacy:
            packet =
                HCILESetScanParametersCommand(
                    scanType: configuration.mode.rawValue, interval: interval, window: window,
                    ownAddressType: configuration.ownAddressType, filterPolicy: 0x00
                ).packet
        case .extended:
            packet =
                HCILESetExtendedScanParametersCommand(
                    ownAddressType: configuration.ownAddressType, filterPolicy: 0x00, phy: .le1M,
                    scanType: configuration.mode.rawValue, interval: interval, window: window
                ).packet
        }
        return [send(packet)]
    }

    private func enableCommand(_ set: CommandSet, enable: Bool) -> HCICommandPacket {
        let filter = enable && configuration.duplicates == .filterInController
        switch set {
        case .legacy:
            return HCILESetScanEnableCommand(enable: enable, filterDuplicates: filter).packet
        case .extended:
            return HCILESetExtendedScanEnableCommand(enable: enable, filterDuplicates: filter ? 0x01 : 0x00).packet
        }
    }

    private mutating func send(_ packet: HCICommandPacket) -> Action {
        commands.sending(packet)
        return .send(packet)
    }

    /// Ends the procedure: the disable of the set in use if a scan command was sent, then finish.
    private mutating func end(with error: TransportError?) -> [Action] {
        switch phase {
        case .finished:
            return []
        case .idle, .readingSupportedCommands:
            phase = .finished
            commands.clear()
            return [.finish(error)]
        case .settingParameters(.legacy) where triedLegacyFallback:
            // Both sets were refused, so the controller's mode is unknown: a scan left enabled in
            // extended mode would refuse the legacy disable, so send both (one is refused).
            phase = .finished
            commands.clear()
            return [
                .send(enableCommand(.extended, enable: false)), .send(enableCommand(.legacy, enable: false)),
                .finish(error),
            ]
        case .settingParameters, .enabling, .scanning:
            phase = .finished
            commands.clear()
            guard let set = commandSetInUse else { return [.finish(error)] }
            return [.send(enableCommand(set, enable: false)), .finish(error)]
        }
    }

    // MARK: - Reports

    private mutating func advertisingReport(_ meta: HCILEMetaEvent, at instant: Instant) throws(WireError) -> [Action] {
        switch phase {
        case .enabling, .scanning: break
        default: return []
        }
        var reports: [LEAdvertiserTable.Report] = []
        if HCILEAdvertisingReportEvent.decodes(subeventCode: meta.subeventCode) {
            for report in try HCILEAdvertisingReportEvent(meta).reports {
                reports.append(
                    LEAdvertiserTable.Report(
                        address: report.address,
                        isScanResponse: report.isScanResponse,
                        isConnectable: report.isScanResponse ? nil : report.eventType <= 0x01,
                        rssi: report.rssi == 127 ? nil : report.rssi,
                        txPower: nil,
                        data: report.data
                    ))
            }
        } else if HCILEExtendedAdvertisingReportEvent.decodes(subeventCode: meta.subeventCode) {
            for report in try HCILEExtendedAdvertisingReportEvent(meta).reports {
                // Anonymous advertisements (address type 0xFF) have no address to report.
                guard report.addressType != 0xFF else { continue }
                guard
                    let data = advertisers.assemble(
                        address: report.address, sid: report.advertisingSID, isScanResponse: report.isScanResponse,
                        dataStatus: report.dataStatus, data: report.data)
                else { continue }
                reports.append(
                    LEAdvertiserTable.Report(
                        address: report.address,
                        isScanResponse: report.isScanResponse,
                        isConnectable: report.isConnectable,
                        rssi: report.rssi == 127 ? nil : report.rssi,
                        txPower: report.txPower == 127 ? nil : report.txPower,
                        data: data
                    ))
            }
        } else {
            return []
        }
        return reports.map { .discovered(advertisers.discovery(for: $0, at: instant)) }
    }

    // MARK: - Errors

    /// The error for a command the controller refused with `status`, with the fix in its message.
    static func refusal(_ opcode: HCIOpcode, _ status: HCIErrorCode) -> TransportError {
        switch status {
        case .commandDisallowed:
            return .refused(
                opcode, named: name(of: opcode), status: status, code: .adapterBusy,
                fix: "another program is scanning or the controller is busy: stop it (`bluetoothctl scan off`) "
                    + "or stop bluetoothd's discovery (`systemctl stop bluetooth` if nothing else needs it), then "
                    + "retry; if it persists, reset the adapter (`btmgmt power off; btmgmt power on`), which also "
                    + "clears a scan left on by a killed program and a mix of legacy and extended scan commands")
        case .unknownCommand:
            return .refused(
                opcode, named: name(of: opcode), status: status,
                fix: "this controller cannot scan for LE devices: use a Bluetooth 4.0 or newer adapter")
        case .invalidParameters, .unsupportedFeature:
            return .refused(
                opcode, named: name(of: opcode), status: status,
                fix: "it rejects the scan settings: use the default interval and window, and own address type 0 "
                    + "(public) unless a random address was set on the controller")
        default:
            return .refused(
                opcode, named: name(of: opcode), status: status,
                fix: "reset the adapter (`btmgmt power off; btmgmt power on`) and check the kernel log (`dmesg`), "
                    + "then retry")
        }
    }

    /// `LE Set Scan Enable (0x200C)`.
    static func name(of opcode: HCIOpcode) -> String {
        let name: String
        switch opcode {
        case .readLocalSupportedCommands: name = "Read Local Supported Commands"
        case .leSetScanParameters: name = "LE Set Scan Parameters"
        case .leSetScanEnable: name = "LE Set Scan Enable"
        case .leSetExtendedScanParameters: name = "LE Set Extended Scan Parameters"
        case .leSetExtendedScanEnable: name = "LE Set Extended Scan Enable"
        default: name = "HCI command"
        }
        return "\(name) (\(opcode))"
    }
}
