// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import GatewayCore
import GatewayTesting
import Hummingbird
import HummingbirdTesting
import Testing

@testable import ControlAPI

@Suite("Bearer token on TCP")
struct BearerTokenTests {
    static let token = "s3cret-token-0123456789"

    @Test("constant-time comparison: equal only for identical bytes, any length")
    func constantTimeEqual() {
        typealias Middleware = BearerTokenMiddleware<BasicRequestContext>
        let token = Array("abcdef".utf8)
        #expect(Middleware.constantTimeEqual(token, token))
        #expect(Middleware.constantTimeEqual([], []))
        #expect(!Middleware.constantTimeEqual(token, Array("abcdeg".utf8)))
        #expect(!Middleware.constantTimeEqual(token, Array("abcde".utf8)))
        #expect(!Middleware.constantTimeEqual(token, Array("abcdef\0".utf8)))
        #expect(!Middleware.constantTimeEqual(token, []))
        // Lengths that differ by a multiple of 256 must not look equal.
        #expect(!Middleware.constantTimeEqual([UInt8](repeating: 0, count: 256), []))
    }

    @Test("over live TCP: missing or wrong token 401 with a fix, right token 200, /metrics open")
    func liveTCP() async throws {
        let control = FakeGatewayControl()
        let app = Application(
            router: ControlRoutes.router(services: control.services, bearerToken: Self.token),
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let missing = try await client.execute(uri: "/v1/status", method: .get)
            #expect(missing.status == .unauthorized)
            #expect(missing.headers[.wwwAuthenticate] == "Bearer")
            let missingBody = try decode(ControlErrorBody.self, missing)
            #expect(missingBody.code == "unauthorized")
            #expect(missingBody.fix?.contains("Authorization: Bearer") == true)

            let wrong = try await client.execute(
                uri: "/v1/status", method: .get, headers: [.authorization: "Bearer \(Self.token)x"])
            #expect(wrong.status == .unauthorized)
            #expect(try decode(ControlErrorBody.self, wrong).error.contains("wrong"))

            let basic = try await client.execute(
                uri: "/v1/status", method: .get, headers: [.authorization: "Basic dXNlcjpwYXNz"])
            #expect(basic.status == .unauthorized)

            let right = try await client.execute(
                uri: "/v1/status", method: .get, headers: [.authorization: "Bearer \(Self.token)"])
            #expect(right.status == .ok)
            #expect(try decode(GatewayStatus.self, right) == FakeGatewayControl.Fixtures.status)

            let metrics = try await client.execute(uri: "/metrics", method: .get)
            #expect(metrics.status == .ok)
            #expect(metrics.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)

            // Only GET /metrics is exempt.
            let postMetrics = try await client.execute(uri: "/metrics", method: .post)
            #expect(postMetrics.status == .unauthorized)
        }
        #expect(control.calls == [.status])
    }

    @Test("the server's TCP listener needs the token, its Unix socket does not")
    func serverListeners() async throws {
        let control = FakeGatewayControl()
        let configuration = ControlServerConfiguration(
            socketPath: ControlServerHarness.temporarySocketPath(), socketGroup: nil,
            tcp: .init(port: 0, bearerToken: Self.token))
        try await ControlServerHarness.with(control.services, configuration: configuration) { listening in
            let port = try #require(listening.tcpPort)
            #expect(port > 0)
            let missing = try await RawHTTPClient.connect(loopbackPort: port).exchange("GET", "/v1/sensors")
            #expect(missing.status == 401)
            let right = try await RawHTTPClient.connect(loopbackPort: port).exchange(
                "GET", "/v1/sensors", headers: ["Authorization: Bearer \(Self.token)"])
            #expect(right.status == 200)
            let metrics = try await RawHTTPClient.connect(loopbackPort: port).exchange("GET", "/metrics")
            #expect(metrics.status == 200)
            let unix = try await RawHTTPClient.connect(unixSocket: listening.socketPath).exchange("GET", "/v1/sensors")
            #expect(unix.status == 200)
        }
        #expect(control.calls == [.sensors, .sensors])
    }

    @Test("an empty token refuses to start")
    func emptyToken() async throws {
        let path = ControlServerHarness.temporarySocketPath()
        defer { ControlServerHarness.removeDirectory(of: path) }
        let server = ControlServer(
            services: FakeGatewayControl().services,
            configuration: ControlServerConfiguration(
                socketPath: path, socketGroup: nil,
                tcp: .init(port: 0, bearerToken: "")))
        let error = await #expect(throws: ControlServerError.self) { try await server.run() }
        #expect(error?.code == .invalidConfiguration)
    }
}
