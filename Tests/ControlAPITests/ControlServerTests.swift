// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import GatewayCore
import GatewayTesting
import Glibc
import Logging
import Testing

@testable import ControlAPI

/// Binds a Unix socket at `path` and closes it without removing the file: what a crashed
/// daemon leaves behind.
func makeStaleSocket(at path: String) throws {
    try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
        for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
    }
    let result = withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    try #require(result == 0)
}

/// The file's `stat`.
func fileStatus(_ path: String) throws -> stat {
    var info = stat()
    try #require(lstat(path, &info) == 0)
    return info
}

/// The name of this process's primary group.
func primaryGroupName() throws -> String {
    let group = try #require(getgrgid(getgid()))
    return String(cString: group.pointee.gr_name)
}

@Suite("Control server on the Unix socket")
struct ControlServerTests {
    @Test("serves JSON on a real Unix socket; the socket gets mode 0660 and the group; removed on shutdown")
    func servesOverUnixSocket() async throws {
        let control = FakeGatewayControl()
        let path = ControlServerHarness.temporarySocketPath()
        let group = try primaryGroupName()
        let configuration = ControlServerConfiguration(socketPath: path, socketGroup: group)
        try await ControlServerHarness.with(control.services, configuration: configuration) { listening in
            let info = try fileStatus(listening.socketPath)
            #expect(info.st_mode & S_IFMT == S_IFSOCK)
            #expect(info.st_mode & 0o777 == 0o660)
            #expect(info.st_gid == getgid())

            let client = try RawHTTPClient.connect(unixSocket: listening.socketPath)
            let response = try await client.exchange("GET", "/v1/status")
            #expect(response.status == 200)
            #expect(response.headers["content-type"] == "application/json")
            let status = try JSONDecoder.controlAPI.decode(GatewayStatus.self, from: Data(response.body))
            #expect(status == FakeGatewayControl.Fixtures.status)

            let notFound = try RawHTTPClient.connect(unixSocket: listening.socketPath)
            control.failure = ControlError(.notFound, "no sensor is called anna", fix: "list them")
            let error = try await notFound.exchange("DELETE", "/v1/sensors/anna")
            #expect(error.status == 404)
            let body = try JSONDecoder.controlAPI.decode(ControlErrorBody.self, from: Data(error.body))
            #expect(body == ControlErrorBody(code: "not-found", error: "no sensor is called anna", fix: "list them"))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("a missing group is not an error: the socket keeps mode 0660 and this user's group")
    func missingGroup() async throws {
        let configuration = ControlServerConfiguration(
            socketPath: ControlServerHarness.temporarySocketPath(), socketGroup: "no-such-group-\(getpid())")
        try await ControlServerHarness.with(FakeGatewayControl().services, configuration: configuration) { listening in
            let info = try fileStatus(listening.socketPath)
            #expect(info.st_mode & 0o777 == 0o660)
            #expect(info.st_gid == getegid())
        }
    }

    @Test("a stale socket nothing listens on is replaced")
    func staleSocketReplaced() async throws {
        let path = ControlServerHarness.temporarySocketPath()
        try makeStaleSocket(at: path)
        #expect(UnixSocketFile.probe(path: path) == .stale)
        let configuration = ControlServerConfiguration(socketPath: path, socketGroup: nil)
        try await ControlServerHarness.with(FakeGatewayControl().services, configuration: configuration) { listening in
            #expect(UnixSocketFile.probe(path: path) == .listening)
            let response = try await RawHTTPClient.connect(unixSocket: path).exchange("GET", "/v1/adapters")
            #expect(response.status == 200)
        }
    }

    @Test("a live socket is refused, and the running server keeps it")
    func liveSocketRefused() async throws {
        let path = ControlServerHarness.temporarySocketPath()
        let configuration = ControlServerConfiguration(socketPath: path, socketGroup: nil)
        try await ControlServerHarness.with(FakeGatewayControl().services, configuration: configuration) { listening in
            let second = ControlServer(services: FakeGatewayControl().services, configuration: configuration)
            let error = await #expect(throws: ControlServerError.self) { try await second.run() }
            #expect(error?.code == .socketInUse)
            #expect(error?.message.contains("another sportsensord is already listening on \(path)") == true)
            let response = try await RawHTTPClient.connect(unixSocket: path).exchange("GET", "/v1/status")
            #expect(response.status == 200)
        }
    }

    @Test("something that is not a socket at the path is left alone and refused")
    func regularFileRefused() async throws {
        let path = ControlServerHarness.temporarySocketPath()
        defer { ControlServerHarness.removeDirectory(of: path) }
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: path))
        let server = ControlServer(
            services: FakeGatewayControl().services,
            configuration: ControlServerConfiguration(socketPath: path, socketGroup: nil)
        )
        let error = await #expect(throws: ControlServerError.self) { try await server.run() }
        #expect(error?.code == .socketPathOccupied)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
    }

    @Test("a path too long for sockaddr_un is a configuration error")
    func pathTooLong() async throws {
        let path = "/tmp/" + String(repeating: "x", count: 120) + ".sock"
        let server = ControlServer(
            services: FakeGatewayControl().services,
            configuration: ControlServerConfiguration(socketPath: path, socketGroup: nil)
        )
        let error = await #expect(throws: ControlServerError.self) { try await server.run() }
        #expect(error?.code == .invalidConfiguration)
    }

    @Test("a truncated CSV stream closes the connection without the last chunk")
    func truncatedCSV() async throws {
        let control = FakeGatewayControl()
        control.answers.csvStreamFailure = ControlError(.unavailable, "the store failed")
        let configuration = ControlServerConfiguration(
            socketPath: ControlServerHarness.temporarySocketPath(), socketGroup: nil)
        try await ControlServerHarness.with(control.services, configuration: configuration) { listening in
            let client = try RawHTTPClient.connect(unixSocket: listening.socketPath)
            try await client.sendRequest("GET", "/v1/sessions/abc/samples.csv")
            let head = try await client.readHead()
            #expect(head.status == 200)
            let raw = try await client.readToEnd()
            #expect(throws: RawHTTPClient.Failure.self) { try RawHTTPClient.dechunk(raw) }
            #expect(String(decoding: raw, as: UTF8.self).contains("t,x_g,y_g,z_g"))
        }
    }

    @Test(
        "a connection that sends nothing, or stops halfway through a request's head, is closed after the idle timeout; an open event stream is not"
    )
    func idleConnections() async throws {
        let configuration = ControlServerConfiguration(
            socketPath: ControlServerHarness.temporarySocketPath(), socketGroup: nil,
            keepAliveInterval: .milliseconds(100), idleTimeout: .milliseconds(300))
        try await ControlServerHarness.with(FakeGatewayControl().services, configuration: configuration) { listening in
            let silent = try RawHTTPClient.connect(unixSocket: listening.socketPath)
            let halfway = try RawHTTPClient.connect(unixSocket: listening.socketPath)
            try await halfway.send("GET /v1/status HTTP/1.1\r\nHost: loc")
            let events = try RawHTTPClient.connect(unixSocket: listening.socketPath)
            try await events.sendRequest("GET", "/v1/events")
            #expect(try await events.readHead().status == 200)
            // Both idle ones end with no answer (the read sees the end of the stream).
            #expect(try await silent.readToEnd().isEmpty)
            #expect(try await halfway.readToEnd().isEmpty)
            // Well past the idle timeout the stream still delivers keep-alives.
            for _ in 0..<8 { _ = try await events.read(through: ": keep-alive") }
            events.close()
        }
    }
}
