// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire

/// LE discovery through the kernel's management interface as a pure state machine: mgmt events
/// in, actions out. No sockets, no clock; ``MgmtDiscovery`` performs the actions on an mgmt socket.
///
/// The kernel arbitrates the controller between every program that uses it (bluetoothd, its
/// background and connection scans, this gateway), so discovering through mgmt never fights the
/// kernel as a raw HCI scan does.
///
/// ## The exchange
///
/// 1. ``start()`` sends Start Discovery for the configured LE address types.
/// 2. Its Command Complete decides:
///    - **Success**: this procedure owns the discovery; Device Found events become
///      ``LEDiscovery`` values.
///    - **Busy**: another program (bluetoothd for `bluetoothctl scan on`, a desktop's Bluetooth
///      panel) discovers on the controller. The kernel sends Device Found to every trusted mgmt
///      socket whoever started the discovery, so its results are still reported; the procedure
///      says so once (``Action/otherDiscoveryActive(_:)``, with the fix) and tries again after a
///      doubling delay, at once when a Discovering event says the other discovery ended.
///   - anything else ends the procedure with an error naming the fix.
/// 3. The kernel ends an LE discovery by itself after about ten seconds, and when it creates an LE
///    connection (Discovering 0); the procedure starts it again after
///    ``MgmtDiscoveryConfiguration/restartDelay``, so a sensor that came into range is reported
///    anew (the controller filters repeated advertisements within one discovery) and a
///    connection being set up is left alone for a moment.
/// 4. ``stop()`` sends Stop Discovery only when this procedure's discovery runs, never for a
///    discovery another program started; a stop while Start Discovery is still unanswered waits
///    for the answer and stops what it started.
///
/// Events about other controllers, Device Found of BR/EDR devices and answers to commands this
/// procedure did not send are ignored. Command answers go only to the socket that sent the
/// command, so other programs' commands never reach it.
public struct MgmtDiscoveryProcedure<Instant: InstantProtocol>: Sendable {
    /// Where the procedure is.
    public enum Phase: Sendable, Hashable {
        /// ``start()`` not called yet.
        case idle
        /// Start Discovery sent, its answer not yet received.
        case starting
        /// This procedure's discovery runs.
        case discovering
        /// Start Discovery is tried again when the retry timer fires: another program's discovery
        /// runs, or the kernel ended this procedure's discovery a moment ago.
        case waiting
        /// ``stop()`` came while Start Discovery was unanswered.
        case stoppingAfterStart
        /// Over; every later event is ignored.
        case finished
    }

    /// What the I/O layer must do, in order.
    public enum Action: Sendable, Equatable {
        /// Write this command. While the procedure waits for its answer
        /// (``isAwaitingReply``), call ``commandTimedOut()`` if none comes within the configured
        /// timeout.
        case send(MgmtCommandPacket)
        /// Call ``retryTimerFired()`` after this delay (replacing any earlier timer).
        case scheduleRetry(Duration)
        /// This procedure's discovery runs.
        case started
        /// Another program discovers on the controller: the message says what it means and how to
        /// give the gateway its own discovery. Sent once per stretch of Busy answers.
        case otherDiscoveryActive(TransportError)
        /// A device was seen.
        case discovered(LEDiscovery<Instant>)
        /// Something worth a log line that changes nothing (a malformed event).
        case note(String)
        /// The discovery is over: close the socket and end the stream, with this error if it
        /// failed. Always the last action; nothing follows.
        case finish(TransportError?)
    }

    /// The controller, 0 for `hci0`.
    public let adapterIndex: UInt16
    /// The configuration the discovery runs with.
    public let configuration: MgmtDiscoveryConfiguration
    /// Where the procedure is.
    public private(set) var phase: Phase = .idle
    /// How many Busy answers came in a row.
    public private(set) var busyAnswers = 0
    /// mgmt events that could not be parsed (counted, dropped).
    public private(set) var malformedEventCount = 0

    private var advertisers: LEAdvertiserTable

    /// A procedure that will discover on adapter `adapterIndex`.
    public init(adapterIndex: UInt16, configuration: MgmtDiscoveryConfiguration = MgmtDiscoveryConfiguration()) {
        self.adapterIndex = adapterIndex
        self.configuration = configuration
        advertisers = LEAdvertiserTable(capacity: configuration.maximumRememberedAdvertisers)
    }

    /// Whether the procedure waits for the answer to Start Discovery.
    public var isAwaitingReply: Bool { phase == .starting || phase == .stoppingAfterStart }

    private var index: MgmtControllerIndex { MgmtControllerIndex(rawValue: adapterIndex) }
    private var name: String { "hci\(adapterIndex)" }

    // MARK: - Events

    /// Starts: validates the configuration and sends Start Discovery.
    public mutating func start() -> [Action] {
        guard phase == .idle else { return [] }
        do throws(TransportError) {
            try configuration.validate()
        } catch {
            phase = .finished
            return [.finish(error)]
        }
        return sendStart()
    }

    /// Handles one packet read from the mgmt socket.
    public mutating func received(_ bytes: [UInt8], at instant: Instant) -> [Action] {
        guard phase != .finished else { return [] }
        do throws(WireError) {
            return try handle(MgmtEventPacket(parsing: bytes), at: instant)
        } catch {
            malformedEventCount += 1
            return [.note("dropped a malformed mgmt event: \(error)")]
        }
    }

    /// Handles one mgmt event.
    public mutating func handle(_ event: MgmtEventPacket, at instant: Instant) throws(WireError) -> [Action] {
        guard phase != .finished, event.index == index else { return [] }
        switch event.code {
        case .commandComplete:
            let complete = try MgmtCommandCompleteEvent(event)
            return answered(complete.command, status: complete.status)
        case .commandStatus:
            let status = try MgmtCommandStatusEvent(event)
            guard status.status != .success else { return [] }
            return answered(status.command, status: status.status)
        case .deviceFound:
            let found = try MgmtDeviceFoundEvent(event)
            guard found.addressType != .bredr else { return [] }
            let report = LEAdvertiserTable.Report(
                address: found.address, isScanResponse: found.flags.contains(.scanResponse),
                isConnectable: found.flags.contains(.scanResponse) ? nil : !found.flags.contains(.notConnectable),
                rssi: found.rssi, txPower: nil, data: found.eir)
            return [.discovered(advertisers.discovery(for: report, at: instant))]
        case .discovering:
            let discovering = try MgmtDiscoveringEvent(event)
            guard !discovering.isDiscovering, discovering.addressTypes.includesLE else { return [] }
            switch phase {
            case .discovering:
                phase = .waiting
                return [.scheduleRetry(configuration.restartDelay)]
            case .waiting where busyAnswers > 0:
                // The other program's discovery ended: take over at once.
                return sendStart()
            default:
                return []
            }
        case .indexRemoved:
            return end(
                TransportError(
                    code: .noSuchAdapter,
                    message: "\(name) was removed while discovering: plug it in again (`btmgmt info` lists adapters)"
                ))
        default:
            return []
        }
    }

    /// The retry delay after a Busy answer passed.
    public mutating func retryTimerFired() -> [Action] {
        guard phase == .waiting else { return [] }
        return sendStart()
    }

    /// Start Discovery got no answer in time.
    public mutating func commandTimedOut() -> [Action] {
        switch phase {
        case .starting:
            return end(
                TransportError(
                    code: .controllerNotResponding,
                    message: "the kernel did not answer Start Discovery on \(name) within "
                        + "\(configuration.commandTimeout): the controller may be hung: reset it "
                        + "(`btmgmt --index \(adapterIndex) power off`, then `power on`, or replug it) and check `dmesg`"
                ))
        case .stoppingAfterStart:
            // Whatever the kernel does with the unanswered start, it ends an LE discovery by
            // itself within seconds.
            return end(nil)
        default:
            return []
        }
    }

    /// The socket failed (a read or write error).
    public mutating func transportFailed(_ error: TransportError) -> [Action] {
        guard phase != .finished else { return [] }
        return end(error)
    }

    /// The consumer is done: stop this procedure's discovery (never another program's) and finish.
    public mutating func stop() -> [Action] {
        switch phase {
        case .finished, .stoppingAfterStart:
            return []
        case .starting:
            phase = .stoppingAfterStart
            return []
        case .discovering:
            phase = .finished
            return [.send(stopCommand), .finish(nil)]
        case .idle, .waiting:
            phase = .finished
            return [.finish(nil)]
        }
    }

    // MARK: - Internals

    private var stopCommand: MgmtCommandPacket {
        MgmtStopDiscoveryCommand(addressTypes: configuration.addressTypes).packet(index: index)
    }

    private mutating func sendStart() -> [Action] {
        phase = .starting
        return [.send(MgmtStartDiscoveryCommand(addressTypes: configuration.addressTypes).packet(index: index))]
    }

    private mutating func answered(_ command: MgmtCommandCode, status: MgmtStatus) -> [Action] {
        guard command == .startDiscovery, isAwaitingReply else { return [] }
        if phase == .stoppingAfterStart {
            phase = .finished
            return status == .success ? [.send(stopCommand), .finish(nil)] : [.finish(nil)]
        }
        switch status {
        case .success:
            phase = .discovering
            busyAnswers = 0
            return [.started]
        case .busy:
            phase = .waiting
            busyAnswers += 1
            let retry = Action.scheduleRetry(configuration.busyRetryDelay(afterBusyAnswers: busyAnswers))
            guard busyAnswers == 1 else { return [retry] }
            return [.otherDiscoveryActive(otherDiscoveryError), retry]
        default:
            return end(Self.error(for: status, adapterIndex: adapterIndex))
        }
    }

    private var otherDiscoveryError: TransportError {
        TransportError(
            code: .adapterBusy,
            message: "another program is discovering on \(name) (bluetoothd for `bluetoothctl scan on` or a "
                + "desktop's Bluetooth panel): the gateway reports what that discovery finds and takes over when "
                + "it ends; for the gateway's own discovery stop the other one (`bluetoothctl scan off`)"
        )
    }

    private mutating func end(_ error: TransportError?) -> [Action] {
        phase = .finished
        return [.finish(error)]
    }

    /// The error a failed Start Discovery means, with the fix.
    static func error(for status: MgmtStatus, adapterIndex: UInt16) -> TransportError {
        let name = "hci\(adapterIndex)"
        switch status {
        case .notPowered:
            return TransportError(
                code: .adapterDown,
                message: "\(name) is powered off: power it on (`btmgmt --index \(adapterIndex) power on` or "
                    + "`bluetoothctl power on`)")
        case .rfkilled:
            return TransportError(
                code: .adapterDown, message: "\(name) is blocked by rfkill: unblock it (`rfkill unblock bluetooth`)")
        case .invalidIndex:
            return TransportError(
                code: .noSuchAdapter, message: "\(name) does not exist: `btmgmt info` lists the adapters")
        case .permissionDenied:
            return TransportError(
                code: .permissionDenied,
                message: "the kernel refused discovery: it needs CAP_NET_ADMIN: run as root, give the binary "
                    + "the capability (`setcap cap_net_raw,cap_net_admin+eip`), or use the systemd unit, which grants it"
            )
        case .notSupported:
            return TransportError(
                code: .adapterNotSupported, message: "\(name) cannot discover LE devices: use a Bluetooth 4.0+ adapter")
        default:
            return TransportError(
                code: .system,
                message: "Start Discovery on \(name) failed with \(status): check `dmesg` and `btmgmt info`")
        }
    }
}

extension TransportError.Code {
    /// The adapter cannot do what was asked (mgmt Not Supported): it has no LE.
    public static let adapterNotSupported = TransportError.Code(rawValue: "adapterNotSupported")
}
