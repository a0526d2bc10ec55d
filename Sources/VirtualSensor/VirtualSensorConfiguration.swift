// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import SDUSensor
import SeededRandomness

/// Everything that makes one virtual SDU sensor what it is: identity, stream shape, pacing and
/// the faults it injects. Every random choice derives from `seed`, so a configuration replays
/// exactly.
public struct VirtualSensorConfiguration: Hashable, Sendable {
    /// What the 2-byte header in front of the samples carries.
    public enum HeaderMode: Hashable, Sendable {
        /// The index of the notification's first sample, modulo 65536 (advances by k).
        case sampleCounter
        /// The notification's index, modulo 65536 (advances by 1).
        case packetCounter
        /// The same value in every notification: a sensor without a usable counter.
        case constant(UInt16)
        /// A fresh random value in every notification (seeded).
        case random
    }

    /// How fast notifications leave the sensor.
    public enum Pacing: Hashable, Sendable {
        /// One notification every k / sampleRate seconds on the sensor's clock, against absolute
        /// deadlines so the stream does not drift.
        case realTime
        /// As fast as the bearer accepts them: for pushing many samples through a test quickly.
        case asFastAsPossible
    }

    /// Faults injected into the notification stream. All decisions are seeded.
    public struct Faults: Hashable, Sendable {
        /// Fraction (0–1) of notifications not sent. Their samples are still generated and the
        /// counter still advances, so a receiver sees a gap in the header.
        public var dropFraction: Double
        /// Fraction (0–1) of the remaining notifications sent with 1–5 bytes cut off the end, so
        /// the payload length is not 2 + 6k.
        public var malformedFraction: Double
        /// Fraction (0–1) of notifications before which the counter jumps by `counterJump`.
        public var counterJumpFraction: Double
        /// How far the counter jumps, in header units (samples or packets); negative jumps
        /// backwards, as a sensor that resets its counter would.
        public var counterJump: Int
        /// After this many generated samples the sensor closes the link (nil: never).
        public var disconnectAfterSamples: Int?

        /// Faults as given; all off by default.
        public init(
            dropFraction: Double = 0,
            malformedFraction: Double = 0,
            counterJumpFraction: Double = 0,
            counterJump: Int = 0,
            disconnectAfterSamples: Int? = nil
        ) {
            self.dropFraction = dropFraction
            self.malformedFraction = malformedFraction
            self.counterJumpFraction = counterJumpFraction
            self.counterJump = counterJump
            self.disconnectAfterSamples = disconnectAfterSamples
        }

        /// No faults.
        public static let none = Faults()
    }

    /// Sample rates the sensor supports, in Hz.
    public static let sampleRates: ClosedRange<Int> = SDUProfile.sampleRates

    /// The advertised name and GAP Device Name, e.g. `BC05FC978B7510AB`.
    public var name: String
    /// The sensor's address (a random static one by default).
    public var address: BluetoothAddress
    /// Samples per second, 25–400.
    public var sampleRate: Int
    /// Samples in each notification; nil packs as many as fit the MTU: (MTU − 3 − 2) / 6.
    public var samplesPerNotification: Int?
    /// What the header carries.
    public var headerMode: HeaderMode
    /// The counter's value in the first notification.
    public var initialCounter: UInt16
    /// The seed every random choice derives from.
    public var seed: UInt64
    /// Injected faults.
    public var faults: Faults
    /// Real-time or as fast as possible.
    public var pacing: Pacing
    /// True: the sensor samples on while no client listens (between connections, or with
    /// notifications off), as a part with a free-running sample counter does; those samples are
    /// never sent, so the next notification's counter shows the gap. False (the default): the
    /// stream resumes where it stopped. Needs real-time pacing to mean anything.
    public var samplesWhileIdle: Bool
    /// The server's receive MTU, answered to Exchange MTU (23–517).
    public var serverMTU: UInt16
    /// GAP Appearance (0x0540: Generic Sensor).
    public var appearance: UInt16
    /// Device Information: Manufacturer Name String.
    public var manufacturerName: String
    /// Device Information: Model Number String.
    public var modelNumber: String
    /// Device Information: Serial Number String.
    public var serialNumber: String
    /// Device Information: Firmware Revision String.
    public var firmwareRevision: String

    /// A configuration; whatever is nil derives from `seed`: a random static address, the name
    /// `BC05` + the address's 12 hex digits, the serial number from the address, a random
    /// initial counter.
    public init(
        seed: UInt64 = 0,
        name: String? = nil,
        address: BluetoothAddress? = nil,
        sampleRate: Int = 100,
        samplesPerNotification: Int? = nil,
        headerMode: HeaderMode = .sampleCounter,
        initialCounter: UInt16? = nil,
        faults: Faults = .none,
        pacing: Pacing = .realTime,
        serverMTU: UInt16 = 23,
        samplesWhileIdle: Bool = false
    ) {
        var identity = SplitMix64(seed: seed ^ Self.identityStream)
        let address = address ?? BluetoothAddress.randomStatic(using: &identity)
        let hex = address.octets.map { byte in
            let digits = Array("0123456789ABCDEF")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
        self.seed = seed
        self.address = address
        self.name = name ?? "BC05" + hex
        self.sampleRate = sampleRate
        self.samplesPerNotification = samplesPerNotification
        self.headerMode = headerMode
        self.initialCounter = initialCounter ?? UInt16(truncatingIfNeeded: identity.next())
        self.faults = faults
        self.pacing = pacing
        self.serverMTU = serverMTU
        self.samplesWhileIdle = samplesWhileIdle
        self.appearance = 0x0540
        self.manufacturerName = "sportsensord"
        self.modelNumber = "SDU virtual sensor (emulated)"
        self.serialNumber = hex
        self.firmwareRevision = "vsensor-1"
    }

    /// The largest number of samples one notification can carry within `mtu`.
    public static func samplesFitting(mtu: Int) -> Int {
        max(0, (mtu - 3 - SDUProfile.headerLength) / SDUProfile.sampleLength)
    }

    /// Samples per notification at effective MTU `mtu`: the configured number, capped so the
    /// notification fits.
    public func samplesPerNotification(mtu: Int) -> Int {
        let fitting = Self.samplesFitting(mtu: mtu)
        return max(1, min(samplesPerNotification ?? fitting, fitting))
    }

    /// Throws the first setting that is out of range, naming the fix.
    public func validate() throws(VirtualSensorError) {
        guard !name.isEmpty, name.utf8.count <= 248 else {
            throw VirtualSensorError(
                .invalidName, "advertised name has \(name.utf8.count) bytes: give a name of 1–248 bytes")
        }
        guard Self.sampleRates.contains(sampleRate) else {
            throw VirtualSensorError(
                .invalidSampleRate, "sample rate \(sampleRate) Hz is outside 25–400 Hz: choose a rate in that range")
        }
        guard (23...517).contains(serverMTU) else {
            throw VirtualSensorError(.invalidMTU, "server MTU \(serverMTU) is outside 23–517: choose one in that range")
        }
        if let k = samplesPerNotification {
            let fitting = Self.samplesFitting(mtu: Int(serverMTU))
            guard (1...fitting).contains(k) else {
                throw VirtualSensorError(
                    .invalidSamplesPerNotification,
                    "\(k) samples per notification do not fit server MTU \(serverMTU) (at most \(fitting)): "
                        + "use 1–\(fitting) or raise serverMTU")
            }
        }
        let fractions = [
            ("dropFraction", faults.dropFraction), ("malformedFraction", faults.malformedFraction),
            ("counterJumpFraction", faults.counterJumpFraction),
        ]
        for (label, fraction) in fractions where !(fraction >= 0 && fraction <= 1) {
            throw VirtualSensorError(.invalidFault, "\(label) is \(fraction): give a fraction between 0 and 1")
        }
        if let limit = faults.disconnectAfterSamples, limit < 1 {
            throw VirtualSensorError(
                .invalidFault, "disconnectAfterSamples is \(limit): give at least 1, or nil to never disconnect")
        }
    }

    /// Independent random streams, so that turning one knob does not shift another's choices.
    static let identityStream: UInt64 = 0x1D3E_7177_0000_0001
    static let dropStream: UInt64 = 0xD409_0000_0000_0002
    static let malformedStream: UInt64 = 0x3A1F_0000_0000_0003
    static let jumpStream: UInt64 = 0x7B3F_0000_0000_0004
    static let headerStream: UInt64 = 0x4EAD_0000_0000_0005
}
