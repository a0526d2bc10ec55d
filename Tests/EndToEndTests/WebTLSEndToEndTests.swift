// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GatewayTesting
import Testing

/// The dashboard's TLS files through the daemon: what cannot serve HTTPS stops it as a
/// configuration error (78) before anything starts.
@Suite("sportsensord: the dashboard's TLS files")
struct WebTLSEndToEndTests {
    @Test("a key that is not the certificate's exits 78 naming both keys, and starts nothing")
    func mismatchedKey() async throws {
        let daemon = try #require(RunningGateway.daemonPath)
        let directory = try RunningGateway.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try SelfSignedCertificate.make(in: directory + "/tls", name: "first")
        let second = try SelfSignedCertificate.make(in: directory + "/tls", name: "second")
        let config = directory + "/config.toml"
        try """
        [web]
        listen = "127.0.0.1:0"
        tls_cert = "\(first.certificatePath)"
        tls_key = "\(second.keyPath)"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let result = try await runCommand(
            daemon, ["--config", config, "--state-dir", directory + "/state", "--socket", directory + "/c.sock"])
        #expect(result.status == 78, "\(result)")
        #expect(result.standardError.contains("configuration error"), "\(result)")
        #expect(
            result.standardError.contains("does not belong to the certificate \(first.certificatePath)"), "\(result)")
        #expect(result.standardError.contains("web.tls_cert, web.tls_key"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/c.sock"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/state"), "no store was created")
    }
}
