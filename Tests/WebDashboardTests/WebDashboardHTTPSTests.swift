// SPDX-License-Identifier: GPL-2.0-or-later
import AsyncHTTPClient
import ControlProtocol
import DashboardUsers
import Foundation
import GatewayTesting
import Logging
import NIOCore
import NIOSSL
import Testing

@testable import WebDashboard

/// The dashboard over HTTPS with a throw-away self-signed certificate (`openssl req -x509`): a
/// client that trusts exactly that certificate logs in, and the session cookie is `Secure`.
@Suite("Web dashboard over HTTPS")
struct WebDashboardHTTPSTests {
    /// A fresh directory for the certificates.
    static func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("web-tls-\(UUID().uuidString)").path
    }

    @Test("a client trusting the certificate gets the login page, logs in with a Secure cookie and sees the board")
    func servesHTTPS() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certificate = try SelfSignedCertificate.make(in: directory)
        let configuration = WebServerConfiguration(
            host: "127.0.0.1", port: 0, tls: (certificate: certificate.certificatePath, key: certificate.keyPath),
            usersFile: try WebDashboardRouterTests.usersFile())
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificate.certificatePath))
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow))
        do {
            try await WebServerHarness.with(FakeGatewayControl().services, configuration: configuration) { port in
                let base = "https://127.0.0.1:\(port)"
                let page = try await client.execute(HTTPClientRequest(url: base + "/login"), timeout: .seconds(30))
                #expect(page.status == .ok)
                let html = String(buffer: try await page.body.collect(upTo: 1 << 20))
                #expect(html.contains(#"action="/login""#))

                var login = HTTPClientRequest(url: base + "/login")
                login.method = .POST
                login.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                login.body = .bytes(ByteBuffer(string: "username=coach&password=coach-pass"))
                let answer = try await client.execute(login, timeout: .seconds(30))
                #expect(answer.status == .seeOther)
                _ = try await answer.body.collect(upTo: 1 << 20)
                let setCookie = try #require(answer.headers["set-cookie"].first)
                let attributes = setCookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                #expect(attributes.contains("Secure"), "\(setCookie)")
                #expect(attributes.contains("HttpOnly") && attributes.contains("SameSite=Strict"), "\(setCookie)")

                var board = HTTPClientRequest(url: base + "/")
                board.headers.add(name: "Cookie", value: String(setCookie.split(separator: ";")[0]))
                let boardAnswer = try await client.execute(board, timeout: .seconds(30))
                #expect(boardAnswer.status == .ok)
                _ = try await boardAnswer.body.collect(upTo: 1 << 20)
                // The client's pooled connections close before the server shuts down.
                try await client.shutdown()
            }
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    @Test("the cookie is Secure exactly when the listener speaks TLS")
    func secureFlag() {
        let users = DashboardUsersCache(
            file: DashboardUsersFile(path: "/nonexistent/users.json"), logger: Logger(label: "test.web"))
        for secure in [false, true] {
            let authentication = WebAuthentication(
                users: users, bearerToken: nil, secureCookies: secure, lifetime: 60)
            #expect(authentication.sessionCookie("abc").hasSuffix("; Secure") == secure)
            #expect(authentication.clearedCookie.hasSuffix("; Secure") == secure)
        }
    }

    @Test("a key that is not the certificate's is a configuration error naming both files, before binding")
    func mismatchedKey() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try SelfSignedCertificate.make(in: directory, name: "first")
        let second = try SelfSignedCertificate.make(in: directory, name: "second")
        let error = #expect(throws: WebServerError.self) {
            try WebServer.tlsConfiguration(certificate: first.certificatePath, key: second.keyPath)
        }
        #expect(error?.message.contains("does not belong to the certificate \(first.certificatePath)") == true)
        #expect(error?.message.contains(second.keyPath) == true)
        #expect(error?.message.contains("web.tls_cert, web.tls_key") == true)
        _ = try WebServer.tlsConfiguration(certificate: first.certificatePath, key: first.keyPath)

        let server = WebServer(
            services: FakeGatewayControl().services,
            configuration: WebServerConfiguration(
                host: "127.0.0.1", port: 0, tls: (certificate: first.certificatePath, key: second.keyPath),
                usersFile: "/nonexistent/users.json"))
        let thrown = await #expect(throws: WebServerError.self) { try await server.run() }
        #expect(thrown?.code == "web-configuration")

        // A key file that is no key at all names the key.
        try "not a key".write(toFile: directory + "/garbage.key", atomically: true, encoding: .utf8)
        let garbage = #expect(throws: WebServerError.self) {
            try WebServer.tlsConfiguration(certificate: first.certificatePath, key: directory + "/garbage.key")
        }
        #expect(garbage?.message.contains("cannot load the dashboard's TLS key \(directory)/garbage.key") == true)
    }
}
