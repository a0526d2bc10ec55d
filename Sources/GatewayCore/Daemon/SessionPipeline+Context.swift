// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import ControlProtocol
import Detection
import SessionStore

extension SessionPipeline {
    /// Fixed facts about the session.
    public struct Context: Sendable {
        /// The session as created in the store.
        public var session: SessionRecord
        /// The sensor's address.
        public var address: BluetoothAddress
        /// The sensor's alias or address, as shown to people.
        public var sensorLabel: String
        /// The sensor's alias.
        public var alias: String?
        /// The athlete's name.
        public var athlete: String?
        /// The profile, rules and parameters detection runs with (stored with the session).
        public var settings: DetectionSettings
        /// Seconds on the link's sample clock at the session's start: sample time − this = session time.
        public var timeOffset: Double
        /// The athlete's body mass, kg, for the live kcal.
        public var massKg: Double?
        /// The athlete's personal bests before this session, which a `record` item announces beating.
        public var bests: [SummaryMetric: LeaderboardEntry]

        /// Creates a context.
        public init(
            session: SessionRecord, address: BluetoothAddress, sensorLabel: String, alias: String?, athlete: String?,
            settings: DetectionSettings, timeOffset: Double, massKg: Double? = nil,
            bests: [SummaryMetric: LeaderboardEntry] = [:]
        ) {
            self.massKg = massKg
            self.bests = bests
            self.session = session
            self.address = address
            self.sensorLabel = sensorLabel
            self.alias = alias
            self.athlete = athlete
            self.settings = settings
            self.timeOffset = timeOffset
        }
    }
}
