// SPDX-License-Identifier: GPL-2.0-or-later

/// The error code carried by an ATT Error Response (Core Vol 3 Part F 3.4.1.1).
public struct ATTErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code byte.
    public var rawValue: UInt8

    /// Wraps a code byte.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// The attribute handle given was not valid on this server.
    public static let invalidHandle = ATTErrorCode(rawValue: 0x01)
    /// The attribute cannot be read.
    public static let readNotPermitted = ATTErrorCode(rawValue: 0x02)
    /// The attribute cannot be written.
    public static let writeNotPermitted = ATTErrorCode(rawValue: 0x03)
    /// The attribute PDU was invalid.
    public static let invalidPDU = ATTErrorCode(rawValue: 0x04)
    /// The attribute requires authentication before it can be read or written.
    public static let insufficientAuthentication = ATTErrorCode(rawValue: 0x05)
    /// The server does not support the request received from the client.
    public static let requestNotSupported = ATTErrorCode(rawValue: 0x06)
    /// Offset specified was past the end of the attribute.
    public static let invalidOffset = ATTErrorCode(rawValue: 0x07)
    /// The attribute requires authorization before it can be read or written.
    public static let insufficientAuthorization = ATTErrorCode(rawValue: 0x08)
    /// Too many prepare writes have been queued.
    public static let prepareQueueFull = ATTErrorCode(rawValue: 0x09)
    /// No attribute found within the given handle range.
    public static let attributeNotFound = ATTErrorCode(rawValue: 0x0A)
    /// The attribute cannot be read using the Read Blob Request.
    public static let attributeNotLong = ATTErrorCode(rawValue: 0x0B)
    /// The encryption key size used for encrypting this link is too short.
    public static let insufficientEncryptionKeySize = ATTErrorCode(rawValue: 0x0C)
    /// The attribute value length is invalid for the operation.
    public static let invalidAttributeValueLength = ATTErrorCode(rawValue: 0x0D)
    /// The request has encountered an unlikely error and could not be completed.
    public static let unlikelyError = ATTErrorCode(rawValue: 0x0E)
    /// The attribute requires encryption before it can be read or written.
    public static let insufficientEncryption = ATTErrorCode(rawValue: 0x0F)
    /// The attribute type is not a supported grouping attribute.
    public static let unsupportedGroupType = ATTErrorCode(rawValue: 0x10)
    /// Insufficient resources to complete the request.
    public static let insufficientResources = ATTErrorCode(rawValue: 0x11)
    /// The server requests the client to rediscover the database.
    public static let databaseOutOfSync = ATTErrorCode(rawValue: 0x12)
    /// The attribute parameter value was not allowed.
    public static let valueNotAllowed = ATTErrorCode(rawValue: 0x13)
    /// Client Characteristic Configuration Descriptor improperly configured (Core Supplement).
    public static let cccdImproperlyConfigured = ATTErrorCode(rawValue: 0xFD)

    /// The specification's name for the code, or its hex value.
    public var description: String {
        Self.names[rawValue] ?? "0x" + BluetoothUUID.hex([rawValue])
    }

    private static let names: [UInt8: String] = [
        0x01: "Invalid Handle", 0x02: "Read Not Permitted", 0x03: "Write Not Permitted", 0x04: "Invalid PDU",
        0x05: "Insufficient Authentication", 0x06: "Request Not Supported", 0x07: "Invalid Offset",
        0x08: "Insufficient Authorization", 0x09: "Prepare Queue Full", 0x0A: "Attribute Not Found",
        0x0B: "Attribute Not Long", 0x0C: "Insufficient Encryption Key Size",
        0x0D: "Invalid Attribute Value Length", 0x0E: "Unlikely Error", 0x0F: "Insufficient Encryption",
        0x10: "Unsupported Group Type", 0x11: "Insufficient Resources", 0x12: "Database Out Of Sync",
        0x13: "Value Not Allowed", 0xFD: "CCCD Improperly Configured",
    ]
}
