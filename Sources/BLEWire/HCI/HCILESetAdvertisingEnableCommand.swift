// SPDX-License-Identifier: GPL-2.0-or-later

/// LE Set Advertising Enable (0x200A): start or stop legacy advertising (Core Vol 4 Part E 7.8.9).
///
/// A controller stops advertising by itself when a connectable advertisement leads to a
/// connection; the host enables it again once it wants the next connection.
public struct HCILESetAdvertisingEnableCommand: HCICommand {
    /// LE Set Advertising Enable.
    public static let opcode = HCIOpcode.leSetAdvertisingEnable

    /// Start (true) or stop (false) advertising.
    public var enable: Bool

    /// Creates the command.
    public init(enable: Bool) {
        self.enable = enable
    }

    /// Parses the one parameter byte; values other than 0 and 1 are `invalidValue`.
    public init(parameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(parameters, context: "LE Set Advertising Enable")
        enable = try HCIBoolean.read(&reader, "Advertising_Enable")
        try reader.expectEnd()
    }

    /// Appends the one parameter byte.
    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(enable ? 1 : 0)
    }
}
