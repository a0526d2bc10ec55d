// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import SystemPackage

/// A failure of the Bluetooth transport: what went wrong, in words that name the fix, plus the
/// system call and `errno` that caused it.
///
/// Build one from a failed call with ``init(syscall:errno:)``, which knows the failures the
/// Bluetooth sockets produce (no kernel support, missing capabilities, no adapter, adapter down or
/// busy, link lost...). The ``code`` is for programs, the ``message`` for people.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is; stable across releases, for programs to branch on.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
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
        /// Another program holds the adapter or is scanning (`EBUSY`, `EALREADY`).
        public static let adapterBusy = Code(rawValue: "adapterBusy")
        /// The device refused the connection (`ECONNREFUSED`).
        public static let connectionRefused = Code(rawValue: "connectionRefused")
        /// The device did not answer in time (`ETIMEDOUT`).
        public static let timedOut = Code(rawValue: "timedOut")
        /// The device is out of range or not advertising (`EHOSTUNREACH`, `EHOSTDOWN`).
        public static let hostUnreachable = Code(rawValue: "hostUnreachable")
        /// An established link went away (`ENOTCONN`, `ECONNRESET`, `ECONNABORTED`, `EPIPE`).
        public static let linkLost = Code(rawValue: "linkLost")
        /// The process or system ran out of file descriptors (`EMFILE`, `ENFILE`).
        public static let tooManyOpenFiles = Code(rawValue: "tooManyOpenFiles")
        /// The bearer was closed by this process; nothing was sent.
        public static let closed = Code(rawValue: "closed")
        /// A PDU was empty or larger than the link can carry (`EMSGSIZE`).
        public static let invalidPDU = Code(rawValue: "invalidPDU")
        /// Any other failure; the message carries the system's description.
        public static let system = Code(rawValue: "system")

        /// The code's name.
        public var description: String { rawValue }
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

    /// The message, followed by the failed system call and its `errno` when there was one.
    public var description: String {
        if let hciCommand {
            return "\(message) [HCI command \(hciCommand): \(hciStatus?.description ?? "no answer")]"
        }
        guard let syscall, let errno else { return message }
        return "\(message) [\(syscall): \(errno.description) (errno \(errno.rawValue))]"
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
