// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import ControlProtocol
import Detection
import Foundation
import SDUSensor
import SessionStore

/// The control API's session routes over the session manager and the store.
extension Gateway {
    /// `GET /v1/sessions`.
    public func sessions(
        athlete: String?, sensor: String?, profile: String?, live: Bool?, limit: Int?
    ) async throws(ControlError) -> [SessionInfo] {
        var filter = SessionFilter(profile: profile, limit: live == nil ? limit : nil)
        let store = dependencies.store
        if let athlete {
            let found = try await health.mapStore { () async throws(StoreError) in
                try await store.athlete(named: athlete)
            }
            guard let found else { return [] }
            filter.athleteID = found.id
        }
        if let sensor {
            if let channel = registry.channel(named: sensor) {
                filter.sensor = channel.address
            } else if let address = BluetoothAddress(string: sensor) {
                let known = try await health.mapStore { () async throws(StoreError) in try await store.sensors() }
                filter.sensor = known.first { $0.address.octets == address.octets }?.address ?? address
            } else {
                throw ControlError(
                    .notFound, "no sensor is called \(sensor)", fix: "list them with `sportsensorctl sensors`")
            }
        }
        let frozen = filter
        var records = try await health.mapStore { () async throws(StoreError) in
            try await store.sessions(filter: frozen)
        }
        if let live {
            // Live is a session a pipeline records now: a row whose end the store could not take
            // (a full disk) has no end time but is not live.
            records = records.filter { isRecording($0) == live }
            if let limit { records = Array(records.prefix(max(0, limit))) }
        }
        var result: [SessionInfo] = []
        for record in records { result.append(await sessionInfo(record)) }
        return result
    }

    /// `GET /v1/sessions/{id}`.
    public func session(id: String) async throws(ControlError) -> SessionInfo {
        await sessionInfo(try await health.session(idPrefix: id, in: dependencies.store))
    }

    /// `POST /v1/sessions`.
    public func startSession(_ request: StartSessionRequest) async throws(ControlError) -> SessionInfo {
        guard !isShuttingDown else {
            throw ControlError(.unavailable, "the gateway is shutting down", fix: "start the session after the restart")
        }
        let channel = try channel(named: request.sensor)
        let profile = try DetectionProfile.requested(request.profile) ?? dependencies.configuration.defaultProfile
        var athlete: Athlete?
        if let name = request.athlete?.nilIfEmpty { athlete = try await findOrAddAthlete(name) }
        return try await sessions.begin(on: channel, profile: profile, athlete: athlete).info()
    }

    /// `POST /v1/sessions/{id}/stop`.
    public func stopSession(id: String) async throws(ControlError) -> SessionInfo {
        let record = try await health.session(idPrefix: id, in: dependencies.store)
        guard let sensor = record.sensor, let channel = registry.channel(at: sensor),
            channel.pipeline?.sessionID == record.idText
        else {
            throw ControlError(
                .conflict,
                "session \(record.idText) is not live"
                    + (record.endReason.map { " (it ended: \($0.rawValue))" } ?? ""),
                fix: "list live sessions with `sportsensorctl sessions --live`")
        }
        if let failure = await sessions.end(on: channel, reason: .stopped) {
            throw Self.unsavedEnd(failure, session: record.idText, stateDirectory: dependencies.stateDirectory)
        }
        let store = dependencies.store
        let ended = try await health.mapStore { () async throws(StoreError) in try await store.session(id: record.id) }
        return await sessionInfo(ended)
    }

    /// A stop whose session's end is not in the store: never reported as success.
    static func unsavedEnd(_ failure: StoreError, session: String, stateDirectory: String) -> ControlError {
        if failure.code == .spilled {
            return ControlError(
                .unavailable, failure.message,
                fix: "free space in \(stateDirectory) (`df -h \(stateDirectory)`), then restart sportsensord")
        }
        return ControlError(
            .unavailable,
            "session \(session) ended, but its last samples could not be saved nor spilled: \(failure.message)",
            fix: "free space in \(stateDirectory) now: the samples are lost when sportsensord stops")
    }

    /// True when a pipeline records `record` now.
    private func isRecording(_ record: SessionRecord) -> Bool {
        record.sensor.flatMap { registry.channel(at: $0) }?.pipeline?.sessionID == record.idText
    }

    /// A stored session as the API shows it: the live pipeline's view while it records.
    private func sessionInfo(_ read: SessionRecord) async -> SessionInfo {
        let channel = read.sensor.flatMap { registry.channel(at: $0) }
        if let live = channel?.pipeline, live.sessionID == read.idText {
            var info = live.info()
            info.unsavedSamples = Int(clamping: live.storeStatistics.droppedSamples)
            return info
        }
        let unsaved = sessions.unsavedSamples(of: read.idText)
        var record = read
        if unsaved == nil, record.endedAt == nil, let stored = try? await dependencies.store.session(id: record.id) {
            // A retry may have stored the end since `read`: show it ended, not open with nothing unsaved.
            record = stored
        }
        var counts: [String: Int] = [:]
        do {
            counts = try await dependencies.store.eventCounts(of: record.id)
        } catch {
            // The session is still listed (its row was read); its counts show as none.
            logger.warning(
                "could not count a session's events: \(error.message)",
                metadata: ["session.id": "\(record.idText)"])
        }
        return SessionInfo(
            id: record.idText, sensor: record.sensor.map { "\($0)" } ?? "", alias: channel?.record.alias,
            athlete: await athleteName(record.athleteID), profile: record.profile, startedAt: record.startedAt,
            endedAt: record.endedAt, endReason: record.endReason?.rawValue, isLive: false, eventCounts: counts,
            samples: Int(record.counts.received), lostSamples: Int(record.counts.lost),
            malformedNotifications: Int(record.counts.malformed), sampleRate: record.counts.sampleRate,
            unsavedSamples: Int(clamping: unsaved ?? record.unsavedSamples))
    }
}

extension DetectionProfile {
    /// The profile a request names; nil when it names none, a 400 naming the choices for a name
    /// that is no profile.
    static func requested(_ name: String?) throws(ControlError) -> DetectionProfile? {
        guard let name else { return nil }
        guard let profile = DetectionProfile(rawValue: name) else {
            throw ControlError(
                .invalidRequest, "unknown profile '\(name)'",
                fix: "use one of \(DetectionProfile.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return profile
    }
}

extension DetectionRules {
    /// The rules a request names, or a 400 naming the choices.
    static func requested(_ name: String) throws(ControlError) -> DetectionRules {
        guard let rules = DetectionRules(rawValue: name) else {
            throw ControlError(.invalidRequest, "unknown rules '\(name)'", fix: "use standard or baseline")
        }
        return rules
    }
}
