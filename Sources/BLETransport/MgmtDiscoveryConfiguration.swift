// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire

/// How a discovery through the kernel's management interface runs (see ``MgmtDiscoveryProcedure``).
public struct MgmtDiscoveryConfiguration: Sendable, Hashable {
    /// What to discover; LE public and random devices by default.
    public var addressTypes: MgmtAddressTypes
    /// How long the kernel may take to answer Start Discovery before the discovery fails.
    public var commandTimeout: Duration
    /// The first wait before Start Discovery is sent again after another program's discovery made
    /// the kernel answer Busy; it doubles with every further Busy up to ``busyRetryMaximum``.
    public var busyRetryInitial: Duration
    /// The longest wait between two tries while another program discovers.
    public var busyRetryMaximum: Duration
    /// The wait before this gateway's discovery starts again after the kernel ended it.
    public var restartDelay: Duration
    /// How many advertisers are remembered to merge scan responses with advertisements.
    public var maximumRememberedAdvertisers: Int

    /// A configuration.
    public init(
        addressTypes: MgmtAddressTypes = .le,
        commandTimeout: Duration = .seconds(3),
        busyRetryInitial: Duration = .seconds(1),
        busyRetryMaximum: Duration = .seconds(16),
        restartDelay: Duration = .seconds(1),
        maximumRememberedAdvertisers: Int = 512
    ) {
        self.addressTypes = addressTypes
        self.commandTimeout = commandTimeout
        self.busyRetryInitial = busyRetryInitial
        self.busyRetryMaximum = busyRetryMaximum
        self.restartDelay = restartDelay
        self.maximumRememberedAdvertisers = maximumRememberedAdvertisers
    }

    /// The wait before try `attempt + 1` after `attempt` Busy answers in a row (1-based).
    public func busyRetryDelay(afterBusyAnswers attempt: Int) -> Duration {
        var delay = busyRetryInitial
        for _ in 1..<max(1, min(attempt, 30)) {
            delay *= 2
            if delay >= busyRetryMaximum { return busyRetryMaximum }
        }
        return min(delay, busyRetryMaximum)
    }

    /// Checks the values, so a mistake is reported with its fix.
    ///
    /// - Throws: ``TransportError`` `invalidConfiguration`.
    public func validate() throws(TransportError) {
        guard addressTypes.includesLE else {
            throw Self.invalid("the address types \(addressTypes) include no LE type: use .le")
        }
        guard commandTimeout > .zero else {
            throw Self.invalid("the command timeout must be positive: use a few seconds")
        }
        guard busyRetryInitial > .zero, busyRetryMaximum >= busyRetryInitial, restartDelay >= .zero else {
            throw Self.invalid("the busy retry delays must be positive with the maximum at least the initial delay")
        }
        guard maximumRememberedAdvertisers > 0 else {
            throw Self.invalid("maximumRememberedAdvertisers must be at least 1: use a few hundred")
        }
    }

    private static func invalid(_ message: String) -> TransportError {
        TransportError(code: .invalidConfiguration, message: "invalid discovery configuration: " + message)
    }
}
