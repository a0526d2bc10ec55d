// SPDX-License-Identifier: GPL-2.0-or-later

/// The status a management command finishes with (BlueZ `doc/mgmt-protocol.rst`, "Error
/// Codes"). `0x00` is success.
public struct MgmtStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The status byte.
    public var rawValue: UInt8

    /// Wraps a status byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Success (0x00).
    public static let success = MgmtStatus(rawValue: 0x00)
    /// Unknown Command (0x01).
    public static let unknownCommand = MgmtStatus(rawValue: 0x01)
    /// Failed (0x03).
    public static let failed = MgmtStatus(rawValue: 0x03)
    /// Busy (0x0A): for discovery, another discovery (any program's) is running on the controller.
    public static let busy = MgmtStatus(rawValue: 0x0A)
    /// Rejected (0x0B): for Stop Discovery, no discovery of that type was running.
    public static let rejected = MgmtStatus(rawValue: 0x0B)
    /// Not Supported (0x0C).
    public static let notSupported = MgmtStatus(rawValue: 0x0C)
    /// Invalid Parameters (0x0D).
    public static let invalidParameters = MgmtStatus(rawValue: 0x0D)
    /// Not Powered (0x0F).
    public static let notPowered = MgmtStatus(rawValue: 0x0F)
    /// Invalid Index (0x11): no such controller.
    public static let invalidIndex = MgmtStatus(rawValue: 0x11)
    /// RFKilled (0x12).
    public static let rfkilled = MgmtStatus(rawValue: 0x12)
    /// Permission Denied (0x14): the socket is not trusted (no `CAP_NET_ADMIN`).
    public static let permissionDenied = MgmtStatus(rawValue: 0x14)

    private static let names = [
        "Success", "Unknown Command", "Not Connected", "Failed", "Connect Failed", "Authentication Failed",
        "Not Paired", "No Resources", "Timeout", "Already Connected", "Busy", "Rejected", "Not Supported",
        "Invalid Parameters", "Disconnected", "Not Powered", "Cancelled", "Invalid Index", "RFKilled",
        "Already Paired", "Permission Denied",
    ]

    /// The name of a known status, nil for others.
    public var name: String? {
        Int(rawValue) < Self.names.count ? Self.names[Int(rawValue)] : nil
    }

    /// `Busy (0x0a)`.
    public var description: String { "\(name ?? "mgmt status") (0x\(BluetoothUUID.hex([rawValue])))" }
}
