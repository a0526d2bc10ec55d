// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import BLEWire

/// How an LE scan runs: active or passive, how much of the radio's time it takes, and whether the
/// controller filters repeated advertisements.
///
/// The defaults suit a gateway that also keeps connections open: an active scan (so names sent
/// only in scan responses are seen) listening 50 ms out of every 100 ms, which leaves the radio
/// half its time for connection events, and every advertisement reported so RSSI keeps updating.
public struct LEScanConfiguration: Sendable, Hashable {
    /// Whether the scanner asks advertisers for their scan response.
    public enum Mode: UInt8, Sendable, Hashable, CustomStringConvertible {
        /// Listen only; advertisers never learn they were seen. Names carried only in scan
        /// responses are not received.
        case passive = 0x00
        /// Send a scan request to every scannable advertiser and receive its scan response,
        /// which is where many devices put their name.
        case active = 0x01

        /// `active` or `passive`.
        public var description: String { self == .active ? "active" : "passive" }
    }

    /// Whether the controller drops advertisements it has already reported.
    public enum DuplicatePolicy: Sendable, Hashable, CustomStringConvertible {
        /// Every advertisement is reported (the default). RSSI keeps updating, and a device that
        /// left and came back is seen again. Costs more events, which the scanner handles easily.
        case reportAll
        /// The controller reports each advertiser (roughly) once per scan. Saves events, but RSSI
        /// stops updating, and controllers with a small filter table forget and re-report devices
        /// unpredictably.
        case filterInController

        /// `reportAll` or `filterInController`.
        public var description: String { self == .reportAll ? "reportAll" : "filterInController" }
    }

    /// Active (default) or passive.
    public var mode: Mode
    /// How often a scan window starts; 2.5 ms to 10.24 s, in steps of 0.625 ms.
    public var interval: Duration
    /// How long each window listens; 2.5 ms up to ``interval``.
    public var window: Duration
    /// Whether repeated advertisements are reported.
    public var duplicates: DuplicatePolicy
    /// The address the controller sends scan requests from: 0x00 public (default), 0x01 random
    /// (only if a random address was set on the controller).
    public var ownAddressType: UInt8
    /// How long the scanner waits for the controller to answer one command before it gives up.
    public var commandTimeout: Duration
    /// How many advertisers the scanner remembers to merge scan responses with advertisements;
    /// the one seen longest ago is forgotten first.
    public var maximumRememberedAdvertisers: Int

    /// A configuration; see the type's documentation for the reasoning behind the defaults.
    public init(
        mode: Mode = .active,
        interval: Duration = .milliseconds(100),
        window: Duration = .milliseconds(50),
        duplicates: DuplicatePolicy = .reportAll,
        ownAddressType: UInt8 = 0x00,
        commandTimeout: Duration = .seconds(3),
        maximumRememberedAdvertisers: Int = 512
    ) {
        self.mode = mode
        self.interval = interval
        self.window = window
        self.duplicates = duplicates
        self.ownAddressType = ownAddressType
        self.commandTimeout = commandTimeout
        self.maximumRememberedAdvertisers = maximumRememberedAdvertisers
    }

    /// The scan interval in the controller's units of 0.625 ms, rounded to the nearest unit.
    public var intervalUnits: Int { Self.units(interval) }
    /// The scan window in the controller's units of 0.625 ms, rounded to the nearest unit.
    public var windowUnits: Int { Self.units(window) }

    /// The range both the legacy and the extended scan commands accept: 0x0004 to 0x4000 units
    /// (2.5 ms to 10.24 s).
    static let unitRange = 0x0004...0x4000

    /// Checks the timing against what the controller accepts, so a mistake is reported with its
    /// fix instead of as the controller's "Invalid HCI Command Parameters".
    ///
    /// - Throws: ``TransportError`` `invalidConfiguration`.
    public func validate() throws(TransportError) {
        guard Self.unitRange.contains(intervalUnits) else {
            throw Self.invalid("the scan interval \(interval) is outside 2.5 ms...10.24 s: pick one in that range")
        }
        guard Self.unitRange.contains(windowUnits) else {
            throw Self.invalid("the scan window \(window) is outside 2.5 ms...10.24 s: pick one in that range")
        }
        guard windowUnits <= intervalUnits else {
            throw Self.invalid(
                "the scan window \(window) is longer than the scan interval \(interval): make it at most the interval")
        }
        guard ownAddressType <= 0x03 else {
            throw Self.invalid("own address type \(ownAddressType) is not 0 (public), 1 (random), 2 or 3: use 0")
        }
        guard commandTimeout > .zero else {
            throw Self.invalid("the command timeout must be positive: use a few seconds")
        }
        guard maximumRememberedAdvertisers > 0 else {
            throw Self.invalid("maximumRememberedAdvertisers must be at least 1: use a few hundred")
        }
    }

    private static func units(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        // 0.625 ms = 625_000_000_000_000 attoseconds; 1 s = 1600 units.
        let unit: Int64 = 625_000_000_000_000
        let wholeUnits = seconds.multipliedReportingOverflow(by: 1600)
        guard !wholeUnits.overflow, seconds >= 0, attoseconds >= 0 else { return -1 }
        let fraction = (attoseconds + unit / 2) / unit
        let (sum, overflow) = wholeUnits.partialValue.addingReportingOverflow(fraction)
        return overflow || sum > Int64(Int32.max) ? Int(Int32.max) : Int(sum)
    }

    private static func invalid(_ message: String) -> TransportError {
        TransportError(code: .invalidConfiguration, message: "invalid scan configuration: " + message)
    }
}
