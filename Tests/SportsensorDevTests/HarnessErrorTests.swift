// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
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
}
