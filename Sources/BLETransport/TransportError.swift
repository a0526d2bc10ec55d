// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import CodedErrors
import SystemPackage

/// A failure of the Bluetooth transport: what went wrong, in words that name the fix, plus the
/// system call and `errno` that caused it.
///
/// Build one from a failed call with ``init(syscall:errno:)``, which knows the failures the
/// Bluetooth sockets produce (no kernel support, missing capabilities, no adapter, adapter down or
/// busy, link lost...). The ``code`` is for programs, the ``message`` for people.
public struct TransportError: CodedError, Sendable, Equatable {
    /// What kind of failure this is; stable across releases, for programs to branch on.
    public struct Code: RawRepresentable, NamedCode {
        /// The code's name, such as `"linkLost"`.
        public var rawValue: String

        /// A code with this name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The kernel has no Bluetooth sockets (`EAFNOSUPPORT`, `EPFNOSUPPORT`, `EPROTONOSUPPORT`).
        public static let noBluetoothSupport = Code(rawValue: "noBluetoothSupport")
        /// The process lacks `CAP_NET_RAW`/`CAP_NET_ADMIN` (`EPERM`, `EACCES`).
        public static let permissionDenied = Code(rawValue: "permissionDenied")
        /// No adapter with that index or address (`ENODEV`).
        public static let noSuchAdapter = Code(rawValue: "noSuchAdapter")
        /// The adapter exists but is powered off (`ENETDOWN`).
        public static let adapterDown = Code(rawValue: "adapterDown")
        /// Another program holds the adapter, the link or the ATT channel, or is scanning (`EBUSY`,
        /// `EALREADY`, `EADDRINUSE`).
        public static let adapterBusy = Code(rawValue: "adapterBusy")
        /// The device refused the connection (`ECONNREFUSED`).
        public static let connectionRefused = Code(rawValue: "connectionRefused")
        /// The device did not answer in time (`ETIMEDOUT`).
        public static let timedOut = Code(rawValue: "timedOut")
        /// The device is out of range or not advertising (`EHOSTUNREACH`, `EHOSTDOWN`).
        public static let hostUnreachable = Code(rawValue: "hostUnreachable")
        /// An established link went away (`ENOTCONN`, `ECONNRESET`, `ECONNABORTED`, `EPIPE`).
        public static let linkLost = Code(rawValue: "linkLost")
        /// The adapter has no room for another connection: the controller answered Connection
        /// Limit Exceeded (HCI 0x09, `EMLINK`) or Memory Capacity Exceeded (HCI 0x07, `ENOMEM`).
        public static let connectionLimit = Code(rawValue: "connectionLimit")
        /// The peer rejected the link for security reasons: authentication failure (HCI 0x05) or
        /// pairing not allowed (HCI 0x18), both `EACCES` while connecting.
        public static let securityRejected = Code(rawValue: "securityRejected")
        /// The waiting task was cancelled; the attempt was aborted and its socket closed.
        public static let cancelled = Code(rawValue: "cancelled")
        /// The process or system ran out of file descriptors (`EMFILE`, `ENFILE`).
        public static let tooManyOpenFiles = Code(rawValue: "tooManyOpenFiles")
        /// The bearer was closed by this process; nothing was sent.
        public static let closed = Code(rawValue: "closed")
        /// A PDU was empty or larger than the link can carry (`EMSGSIZE`).
        public static let invalidPDU = Code(rawValue: "invalidPDU")
        /// Any other failure; the message carries the system's description.
        public static let system = Code(rawValue: "system")
        /// The controller refused an HCI command with a status other than *Command Disallowed*.
        public static let controllerRefused = Code(rawValue: "controllerRefused")
        /// The controller did not answer an HCI command in time.
        public static let controllerNotResponding = Code(rawValue: "controllerNotResponding")
        /// A configuration value is out of range; nothing was sent.
        public static let invalidConfiguration = Code(rawValue: "invalidConfiguration")
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong and how to fix it, for a person.
    public var message: String
    /// The `errno` of the failed system call, if a system call failed.
    public var errno: Errno?
    /// The name of the failed system call, such as `"socket"`, if a system call failed.
    public var syscall: String?
    /// The HCI command the controller refused or did not answer, if the controller caused the
    /// failure.
    public var hciCommand: HCIOpcode?
    /// The status the controller returned for ``hciCommand``, if it answered.
    public var hciStatus: HCIErrorCode?

    /// An error with an explicit code and message.
    public init(code: Code, message: String, errno: Errno? = nil, syscall: String? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
        self.syscall = syscall
    }

    /// The HCI command and the controller's answer when the controller caused the failure, else
    /// the failed system call and its `errno`: `socket: Address family not supported (errno 97)`.
    public var details: [String] {
        if let hciCommand { return ["HCI command \(hciCommand): \(hciStatus?.description ?? "no answer")"] }
        guard let syscall, let errno else { return [] }
        return ["\(syscall): \(errno.description) (errno \(errno.rawValue))"]
    }
}

extension TransportError {
    /// The error a failed Bluetooth socket call means, with a message that names the fix.
    ///
    /// - Parameters:
    ///   - syscall: the name of the call that failed (`"socket"`, `"bind"`, `"connect"`...).
    ///   - errno: the `errno` it failed with.
    public init(syscall: String, errno: Errno) {
        let (code, message) = Self.meaning(of: errno, in: syscall)
        self.init(code: code, message: message, errno: errno, syscall: syscall)
    }

    /// The error a failed step of an L2CAP connection attempt means (`connect(2)`, or the
    /// `SO_ERROR` the kernel reports when a non-blocking connect ends), with a message that names
    /// the fix.
    ///
    /// While connecting, the kernel reports the controller's HCI status through its
    /// `bt_to_errno()` table (net/bluetooth/lib.c), so some errnos mean something else than on an
    /// established link: `ETIMEDOUT` (0x08 Connection Timeout, or the kernel's own LE connection
    /// timeout) and `EHOSTDOWN` (0x04 Page Timeout, 0x3C Advertising Timeout) mean the sensor never
    /// answered; `ENOTCONN` (0x02 Unknown Connection Identifier) is how some kernels end
    /// an LE Create Connection they cancelled after a timeout; `EMLINK` (0x09 Connection Limit
    /// Exceeded, 0x0A) and `ENOMEM` (0x07 Memory Capacity Exceeded) mean the controller is out of
    /// connection slots; `EBUSY` (0x0C Command Disallowed, or an ATT channel to that device that
    /// already exists) and `EALREADY` (0x0B ACL Connection Already Exists, or an attempt already in
    /// progress on this socket) mean someone else holds the link; `EACCES` (0x05, 0x18) is a
    /// security rejection; `ENOSYS` is the kernel's fallback for statuses its table lacks, above
    /// all 0x3E Connection Failed to be Established. Every other errno means what
    /// ``init(syscall:errno:)`` says.
    ///
    /// - Parameters:
    ///   - syscall: the step that failed (`"connect"`, `"getsockopt(SO_ERROR)"`...).
    ///   - errno: the `errno` it failed with.
    public init(connecting syscall: String, errno: Errno) {
        let code: Code
        let message: String
        switch errno {
        case .timedOut, .hostIsDown, .socketNotConnected:
            code = .timedOut
            message =
                "the sensor did not answer: is it switched on, in range and not connected to a phone? "
                + "Check that it advertises (scan for it), then retry"
        case .tooManyLinks, .noMemory:
            code = .connectionLimit
            message =
                "the Bluetooth adapter is out of connection slots (HCI 0x09 Connection Limit Exceeded or 0x07 "
                + "Memory Capacity Exceeded): disconnect another device (`bluetoothctl disconnect`), connect "
                + "fewer sensors per adapter, or add a second adapter"
        case .resourceBusy, .alreadyInProcess, .socketIsConnected:
            code = .adapterBusy
            message =
                "the adapter is busy with this sensor or another connection attempt: another program "
                + "(bluetoothd, `bluetoothctl connect`) may already hold a link or an ATT channel to it; "
                + "disconnect it there (`bluetoothctl disconnect ADDRESS`) or wait for the other attempt to "
                + "finish, then retry"
        case .connectionRefused:
            code = .connectionRefused
            message =
                "the sensor refused the connection (HCI 0x0D-0x0F Connection Rejected): make sure it is not "
                + "connected to a phone or another gateway, then retry"
        case .permissionDenied:
            code = .securityRejected
            message =
                "the sensor rejected the link for security reasons (authentication failure or pairing not "
                + "allowed): remove any stale pairing (`bluetoothctl remove ADDRESS`) and retry; the sensor "
                + "needs no pairing"
        case .noFunction:
            code = .hostUnreachable
            message =
                "the link to the sensor could not be established (HCI 0x3E Connection Failed to be "
                + "Established, or another controller status the kernel has no errno for): move it closer, "
                + "make sure it is still advertising, then retry"
        case .connectionReset, .connectionAbort:
            code = .linkLost
            message =
                "the link dropped while it was being set up (the sensor ended it, or lost power or range): "
                + "retry; if it keeps happening, switch the sensor off and on"
        case .noRouteToHost:
            code = .hostUnreachable
            message =
                "no adapter can reach the sensor: bring an adapter up (`btmgmt power on`), check that the "
                + "chosen adapter exists and supports LE, and that the address type (public/random) is right"
        default:
            (code, message) = Self.meaning(of: errno, in: syscall)
        }
        self.init(code: code, message: message, errno: errno, syscall: syscall)
    }

    /// The error a failed read or write on an established link means.
    ///
    /// Once connected, the kernel ends the link with the controller's disconnection reason run
    /// through `bt_to_errno()`: `ETIMEDOUT` is 0x08 Connection Timeout (the link supervision
    /// timeout: the sensor went out of range or lost power), `ECONNRESET` is 0x13-0x15 (the sensor
    /// ended the link, ran low on resources, or powered off), `ECONNABORTED` is 0x16 (this host
    /// ended it), `EHOSTDOWN` and `ENOTCONN` a link that is no longer there. All of them are
    /// `linkLost`; other errnos mean what ``init(syscall:errno:)`` says.
    ///
    /// - Parameters:
    ///   - syscall: the call that failed (`"recv"`, `"send"`).
    ///   - errno: the `errno` it failed with.
    public init(onLink syscall: String, errno: Errno) {
        switch errno {
        case .timedOut, .hostIsDown:
            self.init(
                code: .linkLost,
                message:
                    "the Bluetooth link timed out (supervision timeout: the sensor went out of range, was "
                    + "switched off or ran out of battery): bring it back in range; the gateway reconnects",
                errno: errno,
                syscall: syscall
            )
        case .connectionAbort:
            self.init(
                code: .linkLost,
                message:
                    "this computer ended the Bluetooth link (another program disconnected the sensor, e.g. "
                    + "`bluetoothctl disconnect`, or the adapter was reset): the gateway reconnects",
                errno: errno,
                syscall: syscall
            )
        default:
            self.init(syscall: syscall, errno: errno)
        }
    }

    private static func meaning(of errno: Errno, in syscall: String) -> (Code, String) {
        switch errno {
        case .addressFamilyNotSupported, .protocolFamilyNotSupported, .protocolNotSupported:
            return (
                .noBluetoothSupport,
                "this kernel has no Bluetooth support (AF_BLUETOOTH): load the `bluetooth` module "
                    + "(`modprobe bluetooth`) or use a kernel built with CONFIG_BT"
            )
        case .notPermitted, .permissionDenied:
            return (
                .permissionDenied,
                "\(syscall) was refused: Bluetooth sockets need CAP_NET_RAW and CAP_NET_ADMIN: run as root "
                    + "or grant them, see the systemd unit (AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN)"
            )
        case .operationNotSupportedByDevice:  // ENODEV
            return (
                .noSuchAdapter,
                "no such Bluetooth adapter: list the adapters with `btmgmt info` or `hciconfig` and pick "
                    + "one that exists (hci0, hci1...), or plug the adapter in"
            )
        case .networkDown:
            return (
                .adapterDown,
                "the Bluetooth adapter is down: bring it up with `btmgmt power on` or `hciconfig hci0 up`, "
                    + "and check `rfkill list` for a blocked radio"
            )
        case .resourceBusy, .alreadyInProcess:
            return (
                .adapterBusy,
                "another program is using the adapter or scanning: stop it (`bluetoothctl scan off`, or "
                    + "stop the other gateway), then retry"
            )
        case .addressInUse:
            return (
                .adapterBusy,
                "another program already serves the ATT channel on this adapter (bluetoothd's GATT server, or a "
                    + "second virtual sensor): give the virtual sensor an adapter of its own, or stop the other "
                    + "server"
            )
        case .connectionRefused:
            return (
                .connectionRefused,
                "the sensor refused the connection: make sure it is not connected to a phone or another "
                    + "gateway, then retry"
            )
        case .timedOut:
            return (
                .timedOut,
                "the sensor did not answer in time: check that it is switched on, charged and within a few "
                    + "metres of the adapter, then retry"
            )
        case .noRouteToHost, .hostIsDown:
            return (
                .hostUnreachable,
                "the sensor is unreachable: check that it is switched on and advertising (scan for it), "
                    + "and that the address and address type (public/random) are right"
            )
        case .socketNotConnected, .connectionReset, .connectionAbort, .brokenPipe, .networkReset:
            return (
                .linkLost,
                "the Bluetooth link was lost (sensor out of range, switched off or out of battery): "
                    + "bring it back in range; the gateway reconnects"
            )
        case .messageTooLong:
            return (
                .invalidPDU,
                "the PDU is larger than the link's MTU: split the value or negotiate a larger ATT MTU first"
            )
        case .tooManyOpenFiles, .tooManyOpenFilesInSystem:
            return (
                .tooManyOpenFiles,
                "out of file descriptors: raise the limit (`ulimit -n`, LimitNOFILE= in the systemd unit) "
                    + "or connect fewer sensors"
            )
        default:
            return (
                .system,
                "\(syscall) failed: \(errno.description): check the adapter with `btmgmt info` and the "
                    + "kernel log (`dmesg`), then retry"
            )
        }
    }
}

extension Result where Failure == Errno {
    /// The success value, or the ``TransportError`` that explains the failure of the named call.
    ///
    /// ```swift
    /// let fd = try syscall("socket") { socket(...) }.transportValue("socket")
    /// ```
    public func transportValue(_ syscall: StaticString) throws(TransportError) -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let errno): throw TransportError(syscall: syscall.description, errno: errno)
        }
    }
}
