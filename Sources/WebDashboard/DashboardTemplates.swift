// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import HTTPTypes
import Hummingbird
import Mustache

/// The dashboard's pages (Mustache templates) and static assets (CSS, ES modules), compiled into
/// the binary from `Resources/`: the daemon serves them with no files to install, no build step
/// and nothing fetched from elsewhere.
struct DashboardTemplates: Sendable {
    let library: MustacheLibrary

    /// The pages, by name.
    static let pages: [String: [UInt8]] = [
        "layout": PackageResources.layout_mustache, "login": PackageResources.login_mustache,
        "board": PackageResources.board_mustache, "sessions": PackageResources.sessions_mustache,
        "session": PackageResources.session_mustache, "athlete": PackageResources.athlete_mustache,
        "leaderboard": PackageResources.leaderboard_mustache,
    ]

    /// The assets under `/assets/`, by file name, with their content types.
    static let assets: [String: (type: String, bytes: [UInt8])] = [
        "dashboard.css": ("text/css; charset=utf-8", PackageResources.dashboard_css),
        "board.js": ("text/javascript; charset=utf-8", PackageResources.board_js),
        "common.js": ("text/javascript; charset=utf-8", PackageResources.common_js),
    ]

    /// Parses every page; a broken template is a bug found by the first test that renders it.
    init() throws {
        var library = MustacheLibrary()
        for (name, bytes) in Self.pages {
            try library.register(String(decoding: bytes, as: UTF8.self), named: name)
        }
        self.library = library
    }

    /// `template` rendered with `values` as an HTML response.
    func page(_ template: String, _ values: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        let html = library.render(values, withTemplate: template) ?? "template \(template) is missing"
        return Response(
            status: status, headers: Self.pageHeaders, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// Headers every page gets: no third-party anything (the CSP allows this origin only), no framing.
    static let pageHeaders: HTTPFields = [
        .contentType: "text/html; charset=utf-8",
        .contentSecurityPolicy:
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
            + "frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
        .xContentTypeOptions: "nosniff",
        .referrerPolicy: "same-origin",
        .cacheControl: "no-store",
    ]
}

extension HTTPField.Name {
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
}
