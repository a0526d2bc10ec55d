// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import BLEWire
import SDUSensor

/// What a legacy LE advertiser sends and how often.
public struct LEAdvertisingConfiguration: Sendable, Hashable {
    /// The advertising data (at most 31 bytes encoded).
    public var advertisingData: AdvertisingData
    /// The scan response data (at most 31 bytes encoded), sent to active scanners.
    public var scanResponseData: AdvertisingData
    /// The advertising interval in units of 0.625 ms (0x0020...0x4000); 0x00A0 is 100 ms.
    public var intervalUnits: UInt16
    /// How long a command may wait for its Command Complete.
    public var commandTimeout: Duration
    /// When set, advertising is disabled and enabled again this often while no central is
    /// connected. A radio repeats advertisements by itself; BlueZ's `btvirt` emulator sends one
    /// advertising report per enable only, so a scanner started later would never see the
    /// advertiser without this. Leave it nil on real controllers.
    public var restartInterval: Duration?

    /// Creates a configuration; the defaults are 100 ms, 3 s command timeout, no restarts.
    public init(
        advertisingData: AdvertisingData, scanResponseData: AdvertisingData = AdvertisingData(),
        intervalUnits: UInt16 = 0x00A0, commandTimeout: Duration = .seconds(3), restartInterval: Duration? = nil
    ) {
        self.advertisingData = advertisingData
        self.scanResponseData = scanResponseData
        self.intervalUnits = intervalUnits
        self.commandTimeout = commandTimeout
        self.restartInterval = restartInterval
    }

    /// What an SDU sensor advertises: flags (LE General Discoverable, BR/EDR not supported) and
    /// the complete local name in the advertising data (so a passive scanner recognises it by its
    /// `BC05…` name), the 128-bit SDU service UUID in the scan response (both do not fit the 31
    /// bytes of one legacy advertisement).
    public static func sduSensor(name: String, restartInterval: Duration? = nil) -> LEAdvertisingConfiguration {
        LEAdvertisingConfiguration(
            advertisingData: AdvertisingData([.flags(0x06), .localName(complete: true, bytes: Array(name.utf8))]),
            scanResponseData: AdvertisingData([.serviceUUIDs128(complete: true, [SDUProfile.service])]),
            restartInterval: restartInterval
        )
    }

    /// Checks every value against the ranges the specification allows.
    ///
    /// - Throws: ``TransportError`` `invalidConfiguration` naming the value and the range.
    public func validate() throws(TransportError) {
        for (label, data) in [("advertising data", advertisingData), ("scan response data", scanResponseData)] {
            var bytes: [UInt8] = []
            data.encode(into: &bytes)
            guard bytes.count <= HCILESetAdvertisingDataCommand.maximumLength else {
                throw TransportError(
                    code: .invalidConfiguration,
                    message: "invalid advertising configuration: the \(label) is \(bytes.count) bytes, a legacy "
                        + "advertisement carries at most 31: move a structure to the other one or shorten the name"
                )
            }
        }
        guard (0x0020...0x4000).contains(intervalUnits) else {
            throw TransportError(
                code: .invalidConfiguration,
                message: "invalid advertising configuration: the interval is \(intervalUnits) units of 0.625 ms, "
                    + "allowed are 32...16384 (20 ms...10.24 s)"
            )
        }
        guard commandTimeout > .zero, (restartInterval ?? .seconds(1)) > .zero else {
            throw TransportError(
                code: .invalidConfiguration,
                message: "invalid advertising configuration: the command timeout and restart interval must be positive"
            )
        }
    }
}

/// Legacy LE advertising between host and controller as a pure state machine: events in,
/// actions out. No sockets, no clock; ``LEAdvertiser`` performs the actions on a raw HCI socket.
///
/// ## The exchange
///
/// 1. ``start()`` sends LE Set Advertising Parameters (connectable undirected, ADV_IND), then —
///    each after the previous Command Complete — LE Set Advertising Data, LE Set Scan Response
///    Data and LE Set Advertising Enable.
/// 2. An LE (Enhanced) Connection Complete in the peripheral role means a central connected; the
///    controller has stopped advertising by itself. The procedure remembers the handle.
/// 3. The Disconnection Complete of that handle enables advertising again, so the next central
///    (or the same one, reconnecting) finds the peripheral.
/// 4. With a restart interval (``LEAdvertisingConfiguration/restartInterval``), ``restartDue()``
///    disables and re-enables advertising while nobody is connected.
/// 5. ``stop()``, a refused command, ``commandTimedOut(_:)`` and ``transportFailed(_:)`` end with
///    LE Set Advertising Enable 0x00 whenever an enable was sent, then ``Action/finish(_:)``, so
///    the controller never keeps advertising for a process that is gone.
///
/// Events of other programs (a raw HCI socket sees every event of the adapter) are ignored: only
/// the answer to the command being waited for moves the procedure on.
public struct LEAdvertisingProcedure: Sendable {
    /// Where the procedure is.
    public enum Phase: Sendable, Hashable {
        /// ``start()`` not called yet.
        case idle
        /// Sending parameters, data, scan response and the first enable.
        case configuring
        /// Advertising, nobody connected.
        case advertising
        /// A central is connected on this handle; the controller is not advertising.
        case connected(handle: UInt16)
        /// Over; every later event is ignored.
        case finished
    }

    /// What the I/O layer must do, in order.
    public enum Action: Sendable, Equatable {
        /// Write this command (after the H4 type byte 0x01). Unless the procedure has finished,
        /// call ``commandTimedOut(_:)`` if no answer comes within the configured timeout.
        case send(HCICommandPacket)
        /// The controller advertises (first time, after a disconnection, or after a restart).
        case advertising
        /// A central connected.
        case connected(peer: BluetoothAddress, handle: UInt16)
        /// The central's link ended with this reason.
        case disconnected(handle: UInt16, reason: HCIErrorCode)
        /// Something worth a log line that changes nothing.
        case note(String)
        /// Advertising is over: close the socket, with this error if it failed. Always last.
        case finish(TransportError?)
    }

    /// The configuration the advertiser runs with.
    public let configuration: LEAdvertisingConfiguration
    /// Where the procedure is.
    public private(set) var phase: Phase = .idle
    /// The opcode of the command whose answer the procedure waits for, if any.
    public var pendingCommand: HCIOpcode? { commands.pendingCommand }
    /// HCI events that could not be parsed (counted, dropped).
    public var malformedEventCount: Int { commands.malformedEventCount }

    private var commands = HCICommandTracker()

    /// Commands still to send before advertising runs.
    private var queued: [HCICommandPacket] = []
    /// Whether an enable was sent, so a disable is owed on the way out.
    private var enableSent = false
    /// What the enable command currently awaited is for: true when it follows a restart's disable.
    private var restarting = false
    /// Whether the enable awaited is a restart's, which is not announced.
    private var silentEnable = false

    /// A procedure that will advertise with `configuration`.
    public init(configuration: LEAdvertisingConfiguration) {
        self.configuration = configuration
    }

    // MARK: - Events

    /// Starts: validates the configuration and sends the advertising parameters.
    public mutating func start() -> [Action] {
        guard phase == .idle else { return [] }
        do throws(TransportError) {
            try configuration.validate()
        } catch {
            phase = .finished
            return [.finish(error)]
        }
        phase = .configuring
        let interval = configuration.intervalUnits
        queued = [
            HCILESetAdvertisingParametersCommand(intervalMin: interval, intervalMax: interval).packet,
            HCILESetAdvertisingDataCommand(configuration.advertisingData).packet,
            HCILESetScanResponseDataCommand(configuration.scanResponseData).packet,
            HCILESetAdvertisingEnableCommand(enable: true).packet,
        ]
        return sendNext()
    }

    /// Handles one packet read from the raw HCI socket: the H4 type byte, then the packet.
    public mutating func received(_ bytes: [UInt8]) -> [Action] {
        guard phase != .finished else { return [] }
        switch commands.parse(bytes) {
        case .event(let event): return handle(event)
        case .malformed(let note): return [.note(note)]
        case nil: return []
        }
    }

    /// Handles one HCI event.
    public mutating func handle(_ event: HCIEventPacket) -> [Action] {
        guard phase != .finished else { return [] }
        do throws(WireError) {
            if let answer = try commands.answer(in: event) { return completed(answer.opcode, status: answer.status) }
            switch event.eventCode {
            case .disconnectionComplete:
                let disconnection = try HCIDisconnectionCompleteEvent(event)
                guard case .connected(let handle) = phase, handle == disconnection.connectionHandle,
                    disconnection.status == .success
                else { return [] }
                phase = .advertising
                let actions: [Action] = [.disconnected(handle: handle, reason: disconnection.reason)]
                return actions + enable(restart: false)
            case .leMeta:
                return try connectionComplete(try HCILEMetaEvent(event))
            default:
                return []
            }
        } catch {
            return [.note(commands.malformed(event, error))]
        }
    }

    /// The restart interval elapsed: disable and enable advertising again if nobody is connected
    /// and no command is outstanding.
    public mutating func restartDue() -> [Action] {
        guard phase == .advertising, pendingCommand == nil else { return [] }
        restarting = true
        return [send(HCILESetAdvertisingEnableCommand(enable: false).packet)]
    }

    /// The consumer stopped: disable advertising if an enable was sent, then finish.
    public mutating func stop() -> [Action] {
        end(with: nil)
    }

    /// The command `opcode` got no answer in time.
    public mutating func commandTimedOut(_ opcode: HCIOpcode) -> [Action] {
        guard phase != .finished, opcode == pendingCommand else { return [] }
        return end(with: .notAnswered(opcode, named: Self.name(of: opcode)))
    }

    /// The socket failed: try to disable advertising, then finish with `error`.
    public mutating func transportFailed(_ error: TransportError) -> [Action] {
        end(with: error)
    }

    // MARK: - Steps

    private mutating func completed(_ opcode: HCIOpcode, status: HCIErrorCode) -> [Action] {
        if status != .success, opcode == .leSetAdvertisingEnable, restarting || silentEnable, case .connected = phase {
            // A central connected while a restart's command was on its way: the controller
            // stopped advertising by itself, so it refuses the disable (already off; btvirt says
            // Command Disallowed) or the enable (now a peripheral). Nothing is lost; the
            // disconnection re-enables.
            let command = restarting ? "disable" : "enable"
            restarting = false
            silentEnable = false
            return [.note("a restart's advertising \(command) was refused (\(status)) after a central connected")]
        }
        guard status == .success else { return end(with: Self.refusal(opcode, status)) }
        switch phase {
        case .configuring:
            if !queued.isEmpty { return sendNext() }
            phase = .advertising
            return [.advertising]
        case .advertising where opcode == .leSetAdvertisingEnable:
            if restarting {
                // The disable of a restart completed: enable again.
                return enable(restart: true)
            }
            if silentEnable {
                // A restart's enable: nothing changed for the consumer.
                silentEnable = false
                return []
            }
            return [.advertising]
        case .connected where opcode == .leSetAdvertisingEnable:
            // A restart's disable completed after a central connected: stay quiet until it leaves.
            restarting = false
            return []
        case .idle, .advertising, .connected, .finished:
            return []
        }
    }

    private mutating func connectionComplete(_ meta: HCILEMetaEvent) throws(WireError) -> [Action] {
        let status: HCIErrorCode
        let handle: UInt16
        let role: UInt8
        let peer: BluetoothAddress
        if HCILEConnectionCompleteEvent.decodes(subeventCode: meta.subeventCode) {
            let event = try HCILEConnectionCompleteEvent(meta)
            (status, handle, role, peer) = (event.status, event.connectionHandle, event.role, event.peerAddress)
        } else if HCILEEnhancedConnectionCompleteEvent.decodes(subeventCode: meta.subeventCode) {
            let event = try HCILEEnhancedConnectionCompleteEvent(meta)
            (status, handle, role, peer) = (event.status, event.connectionHandle, event.role, event.peerAddress)
        } else {
            return []
        }
        // Role 0x01: this controller is the peripheral, i.e. a central answered our advertising.
        guard role == 0x01, phase == .advertising || phase == .configuring else { return [] }
        guard status == .success else {
            return [.note("a central's connection attempt failed with \(status)")]
        }
        phase = .connected(handle: handle)
        return [.connected(peer: peer, handle: handle)]
    }

    private mutating func sendNext() -> [Action] {
        let packet = queued.removeFirst()
        if packet.opcode == .leSetAdvertisingEnable { enableSent = true }
        return [send(packet)]
    }

    private mutating func enable(restart: Bool) -> [Action] {
        restarting = false
        silentEnable = restart
        enableSent = true
        return [send(HCILESetAdvertisingEnableCommand(enable: true).packet)]
    }

    private mutating func send(_ packet: HCICommandPacket) -> Action {
        commands.sending(packet)
        return .send(packet)
    }

    private mutating func end(with error: TransportError?) -> [Action] {
        guard phase != .finished else { return [] }
        phase = .finished
        commands.clear()
        var actions: [Action] = []
        if enableSent { actions.append(.send(HCILESetAdvertisingEnableCommand(enable: false).packet)) }
        actions.append(.finish(error))
        return actions
    }

    static func name(of opcode: HCIOpcode) -> String {
        switch opcode {
        case .leSetAdvertisingParameters: "LE Set Advertising Parameters (\(opcode))"
        case .leSetAdvertisingData: "LE Set Advertising Data (\(opcode))"
        case .leSetScanResponseData: "LE Set Scan Response Data (\(opcode))"
        case .leSetAdvertisingEnable: "LE Set Advertising Enable (\(opcode))"
        default: "HCI command \(opcode)"
        }
    }

    static func refusal(_ opcode: HCIOpcode, _ status: HCIErrorCode) -> TransportError {
        let fix: String
        let code: TransportError.Code
        switch status {
        case .commandDisallowed:
            code = .adapterBusy
            fix =
                "another program advertises on this adapter (bluetoothd's advertising, `btmgmt advertising on`), "
                + "or the controller is in extended-advertising mode since the kernel used extended commands: "
                + "`btmgmt advertising off`, or `btmgmt power off; btmgmt power on`, then retry"
        case .unknownCommand:
            code = .controllerRefused
            fix = "the controller cannot advertise on LE: use a Bluetooth 4.0 or newer adapter"
        default:
            code = .controllerRefused
            fix = "`btmgmt power off; btmgmt power on`, check `dmesg`, retry"
        }
        return .refused(opcode, named: name(of: opcode), status: status, code: code, fix: fix)
    }
}
