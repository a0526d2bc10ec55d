// SPDX-License-Identifier: GPL-2.0-or-later

/// An HCI status / error code (Core Vol 1 Part F). `0x00` is success; every other value names
/// why a command or connection failed.
public struct HCIErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code byte.
    public var rawValue: UInt8

    /// Wraps a code byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Success (0x00).
    public static let success = HCIErrorCode(rawValue: 0x00)
    /// Unknown HCI Command (0x01).
    public static let unknownCommand = HCIErrorCode(rawValue: 0x01)
    /// Unknown Connection Identifier (0x02).
    public static let unknownConnectionIdentifier = HCIErrorCode(rawValue: 0x02)
    /// Memory Capacity Exceeded (0x07).
    public static let memoryCapacityExceeded = HCIErrorCode(rawValue: 0x07)
    /// Connection Timeout (0x08): the supervision timeout expired.
    public static let connectionTimeout = HCIErrorCode(rawValue: 0x08)
    /// Connection Limit Exceeded (0x09).
    public static let connectionLimitExceeded = HCIErrorCode(rawValue: 0x09)
    /// Command Disallowed (0x0C).
    public static let commandDisallowed = HCIErrorCode(rawValue: 0x0C)
    /// Invalid HCI Command Parameters (0x12).
    public static let invalidParameters = HCIErrorCode(rawValue: 0x12)
    /// Remote User Terminated Connection (0x13).
    public static let remoteUserTerminated = HCIErrorCode(rawValue: 0x13)
    /// Connection Terminated By Local Host (0x16).
    public static let localHostTerminated = HCIErrorCode(rawValue: 0x16)
    /// Unsupported Feature or Parameter Value (0x11).
    public static let unsupportedFeature = HCIErrorCode(rawValue: 0x11)
    /// Connection Failed to be Established (0x3E).
    public static let connectionFailedToBeEstablished = HCIErrorCode(rawValue: 0x3E)

    /// The name of a known code, nil for others.
    public var name: String? {
        switch rawValue {
        case 0x00: "Success"
        case 0x01: "Unknown HCI Command"
        case 0x02: "Unknown Connection Identifier"
        case 0x07: "Memory Capacity Exceeded"
        case 0x08: "Connection Timeout"
        case 0x09: "Connection Limit Exceeded"
        case 0x0C: "Command Disallowed"
        case 0x11: "Unsupported Feature or Parameter Value"
        case 0x12: "Invalid HCI Command Parameters"
        case 0x13: "Remote User Terminated Connection"
        case 0x16: "Connection Terminated By Local Host"
        case 0x3E: "Connection Failed to be Established"
        default: nil
        }
    }

    /// `Connection Timeout (0x08)`.
    public var description: String {
        "\(name ?? "HCI error") (0x\(BluetoothUUID.hex([rawValue])))"
    }
}
