// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GatewayTesting
import Glibc
import Testing

@testable import sportsensor_dev

/// Run-time failures of the harnesses come out as `HarnessError`s whose message says what to do.
@Suite("sportsensor-dev: run-time failures name the fix")
struct HarnessErrorTests {
    @Test("a peer program that is not installed is peer-failed and names make bench-store")
    func missingPeer() {
        do {
            _ = try CompressionPeers.outputSize(["sportsensor-no-such-compressor"])
            Issue.record("a missing program gave a size")
        } catch let error as HarnessError {
            #expect(error.code == .peerFailed)
            #expect(error.message.contains("sportsensor-no-such-compressor exited with 127"))
            #expect(error.message.contains("make bench-store"))
            #expect("\(error)".hasPrefix("peer-failed: "))
        } catch {
            Issue.record("not a HarnessError: \(error)")
        }
    }

    @Test("a control socket nobody listens on is gateway-failed, names --socket and keeps the errno")
    func noGateway() {
        let path = FileManager.default.temporaryDirectory.path + "/sportsensor-no-gateway-\(UUID().uuidString).sock"
        do {
            _ = try UnixStream(path: path)
            Issue.record("connected to \(path)")
        } catch let error as HarnessError {
            #expect(error.code == .gatewayFailed)
            #expect(error.message.contains("is sportsensord running with --socket \(path)?"))
            #expect(error.cause != nil)
        } catch {
            Issue.record("not a HarnessError: \(error)")
        }
    }

    @Test("a gateway that closed its end: send is gateway-failed, keeps the errno and names the daemon's log")
    func gatewayGone() throws {
        let path = FileManager.default.temporaryDirectory.path + "/sportsensor-gone-\(UUID().uuidString).sock"
        defer { unlink(path) }
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(listener >= 0)
        defer { Glibc.close(listener) }
        try UnixSocketHTTPServer.bind(listener, to: path)
        try #require(listen(listener, 1) == 0)
        let stream = try UnixStream(path: path)
        defer { stream.close() }
        // The connection waits in the backlog: accepting it and closing it leaves the client's
        // end facing a closed peer, which a Unix stream answers at once with EPIPE.
        let accepted = accept(listener, nil, nil)
        try #require(accepted >= 0)
        Glibc.close(accepted)
        do {
            try stream.write(Array("GET /v1/status HTTP/1.1\r\n\r\n".utf8))
            Issue.record("a closed gateway took the request")
        } catch let error as HarnessError {
            #expect(error.code == .gatewayFailed)
            #expect(error.message.contains("journalctl -u sportsensord"))
            #expect(error.cause != nil)
        }
    }
}
