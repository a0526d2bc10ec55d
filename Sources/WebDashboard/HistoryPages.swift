// SPDX-License-Identifier: GPL-2.0-or-later
import ControlAPI
import ControlProtocol
import Detection
import Foundation
import Hummingbird

/// History: the sessions list (filters, CSV/JSON of what it shows), a session's page (summary,
/// charts, its events as CSV/JSON), an athlete's page and the leaderboard. Everything is read
/// through `GatewayServices` (the live area and the roster), as the API serves it.
struct HistoryPages: Sendable {
    let services: GatewayServices
    let templates: DashboardTemplates

    /// The most sessions a list or a leaderboard reads.
    static let listLimit = 500

    func addRoutes(to router: Router<WebRequestContext>) {
        router.get(RouterPath(DashboardPaths.sessions)) { request, context -> Response in
            let filter = SessionFilter(request)
            let sessions = try await filter.apply(to: services)
            var values = DashboardPages.layoutValues(context, title: "Sessions", section: "sessions")
            values.merge(filter.values) { _, new in new }
            values["rows"] = sessions.map(HistoryRows.session)
            values["empty"] = sessions.isEmpty
            values["csv"] = DashboardPaths.sessions + ".csv" + filter.query
            values["json"] = DashboardPaths.sessions + ".json" + filter.query
            return templates.page("sessions", values)
        }
        router.get(RouterPath(DashboardPaths.sessions + ".csv")) { request, _ -> Response in
            // At most `listLimit` sessions (a few hundred kB) are held; the text is written as read.
            let sessions = try await SessionFilter(request).apply(to: services)
            return Downloads.csv(
                name: "sessions.csv", header: HistoryRows.sessionsCSVHeader, pages: PagedDownload.onePage(sessions),
                line: HistoryRows.sessionCSVLine)
        }
        router.get(RouterPath(DashboardPaths.sessions + ".json")) { request, _ -> Response in
            let sessions = try await SessionFilter(request).apply(to: services)
            return Downloads.json(name: "sessions.json", pages: PagedDownload.onePage(sessions))
        }
        router.get(RouterPath(DashboardPaths.sessions + "/{id}")) { _, context -> Response in
            let id = try context.parameters.require("id")
            let session = try await services.live.session(id: id)
            // The charts take every event, a page at a time, and keep a bounded number of points.
            var charts = SessionCharts(session)
            for try await page in try await services.live.sessionEventPages(id: session.id) { charts.add(page) }
            let summary = try? await services.live.sessionSummary(id: session.id)
            var values = DashboardPages.layoutValues(context, title: "Session", section: "sessions")
            values.merge(HistoryRows.sessionPage(session, charts: charts)) { _, new in new }
            if let summary { values.merge(SummaryRows.values(summary)) { _, new in new } }
            return templates.page("session", values)
        }
        router.get(RouterPath(DashboardPaths.sessions + "/{id}/events.csv")) { _, context -> Response in
            let session = try await services.live.session(id: try context.parameters.require("id"))
            return Downloads.csv(
                name: "session-\(session.id.prefix(8))-events.csv", header: HistoryRows.eventsCSVHeader,
                pages: try await services.live.sessionEventPages(id: session.id), line: HistoryRows.eventCSVLine)
        }
        router.get(RouterPath(DashboardPaths.sessions + "/{id}/events.json")) { _, context -> Response in
            let session = try await services.live.session(id: try context.parameters.require("id"))
            return Downloads.json(
                name: "session-\(session.id.prefix(8))-events.json",
                pages: try await services.live.sessionEventPages(id: session.id))
        }
        router.get(RouterPath(DashboardPaths.athletes + "/{name}")) { _, context -> Response in
            let name = try context.parameters.require("name")
            let sessions = try await services.live.sessions(
                athlete: name, sensor: nil, profile: nil, live: nil, limit: Self.listLimit)
            let bests = try await services.roster.personalBests(athlete: name)
            let info = try await services.roster.athletes().first { $0.name == name }
            var summaries: [(SessionInfo, SessionSummary)] = []
            for session in sessions.prefix(100) where !session.isLive {
                if let summary = try? await services.live.sessionSummary(id: session.id) {
                    summaries.append((session, summary))
                }
            }
            var values = DashboardPages.layoutValues(context, title: "Athlete \(name)", section: "sessions")
            values.merge(HistoryRows.athletePage(name: name, sessions: sessions, bests: bests, summaries: summaries)) {
                _, new in new
            }
            if let hand = info?.racketHand { values["racketHand"] = hand }
            return templates.page("athlete", values)
        }
        router.get(RouterPath(DashboardPaths.leaderboard)) { request, context -> Response in
            let board = try await LeaderboardQuery(request).run(services.roster)
            var values = DashboardPages.layoutValues(context, title: "Leaderboard", section: "leaderboard")
            values.merge(board) { _, new in new }
            return templates.page("leaderboard", values)
        }
        router.get(RouterPath(DashboardPaths.leaderboard + ".csv")) { request, _ -> Response in
            // The ranking holds one row per athlete; its text is written as read.
            let query = LeaderboardQuery(request)
            return Downloads.csv(
                name: "leaderboard.csv", header: query.csvHeader,
                pages: PagedDownload.onePage(try await query.rows(services.roster)),
                line: LeaderboardQuery.csvLine)
        }
    }
}

/// `?athlete=&profile=&from=YYYY-MM-DD&to=YYYY-MM-DD`: the sessions list's filters.
struct SessionFilter {
    var athlete: String?
    var profile: String?
    var from: Date?
    var to: Date?
    var raw: [String: String] = [:]

    init(_ request: Request) {
        let query = request.uri.queryParameters
        for key in ["athlete", "team", "profile", "from", "to"] {
            if let value = query[Substring(key)].map(String.init), !value.isEmpty { raw[key] = value }
        }
        athlete = raw["athlete"]
        profile = raw["profile"]
        from = raw["from"].flatMap(Self.day)
        to = raw["to"].flatMap(Self.day).map { $0.addingTimeInterval(86_400) }
    }

    static func day(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.date(from: text)
    }

    func apply(to services: GatewayServices) async throws -> [SessionInfo] {
        let sessions = try await services.live.sessions(
            athlete: athlete, sensor: nil, profile: profile, live: nil, limit: HistoryPages.listLimit)
        var members: Set<String>?
        if let team = raw["team"] {
            members = Set(try await services.roster.teams().first { $0.name == team }?.athletes ?? [])
        }
        return sessions.filter { session in
            (from.map { session.startedAt >= $0 } ?? true) && (to.map { session.startedAt < $0 } ?? true)
                && (members.map { session.athlete.map($0.contains) ?? false } ?? true)
        }
    }

    /// The filters for the form (`f_athlete`, …) and the profile choices with the selected one.
    var values: [String: Any] {
        var values: [String: Any] = [:]
        for (key, value) in raw { values["f_" + key] = value }
        values["profileChoices"] = DetectionProfile.allCases.map { profile in
            ["name": profile.rawValue, "selected": profile.rawValue == self.profile] as [String: Any]
        }
        return values
    }

    /// The same filters as a query string (`?athlete=anna`), for the download links.
    var query: String {
        guard !raw.isEmpty else { return "" }
        var components = URLComponents()
        components.queryItems = raw.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        return "?" + (components.percentEncodedQuery ?? "")
    }
}

/// File answers: what the page shows, as an attachment, written as the browser reads
/// (`PagedDownload`: one page of rows and one 64 kB piece held at a time).
enum Downloads {
    static func csv<Item: Sendable>(
        name: String, header: String, pages: AsyncThrowingStream<[Item], any Error>,
        line: @escaping @Sendable (Item) -> String
    ) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8", .contentDisposition: "attachment; filename=\"\(name)\"",
            ],
            body: PagedDownload.csv(header: header, pages: pages, line: line))
    }

    static func json<Item: Encodable & Sendable>(
        name: String, pages: AsyncThrowingStream<[Item], any Error>
    )
        -> Response
    {
        Response(
            status: .ok,
            headers: [.contentType: "application/json", .contentDisposition: "attachment; filename=\"\(name)\""],
            body: PagedDownload.jsonArray(pages: pages))
    }
}
