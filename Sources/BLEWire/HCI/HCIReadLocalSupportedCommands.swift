// SPDX-License-Identifier: GPL-2.0-or-later

/// Read Local Supported Commands (0x1002): asks which HCI commands the controller implements
/// (Core Vol 4 Part E 7.4.2). It has no parameters; the answer is `HCISupportedCommands`.
public struct HCIReadLocalSupportedCommands: HCICommand {
    /// Read Local Supported Commands.
    public static let opcode = HCIOpcode.readLocalSupportedCommands

    /// Creates the command.
    public init() {}

    /// Accepts only an empty parameter list.
    public init(parameters: ArraySlice<UInt8>) throws(WireError) {
        try WireReader(parameters, context: "Read Local Supported Commands").expectEnd()
    }

    /// Appends nothing: the command has no parameters.
    public func encodeParameters(into buffer: inout [UInt8]) {}
}
