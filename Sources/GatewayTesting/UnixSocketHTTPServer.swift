// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import Foundation
import Glibc
import NIOConcurrencyHelpers
import SystemCalls
import SystemPackage

/// A request the test server received.
public struct TestHTTPRequest: Sendable, Hashable {
    /// `GET`, `POST`, ...
    public var method: String
    /// The request target: path and query.
    public var target: String
    /// Header values by lowercased name.
    public var headers: [String: String]
    /// The body (by Content-Length).
    public var body: [UInt8]
}

/// What the test server answers.
public enum TestHTTPResponse: Sendable {
    /// A whole body with Content-Length.
    case full(status: Int, contentType: String, body: [UInt8])
    /// A chunked body sent piece by piece (a pause of `interval` before each), then ended with the
    /// last chunk (`endsCleanly`) or by closing the connection in the middle of the stream.
    case chunked(status: Int, contentType: String, chunks: [[UInt8]], interval: Duration, endsCleanly: Bool)
    /// No answer at all: the connection is closed right after the request.
    case hangUp
}

/// A minimal HTTP/1.1 server on a Unix stream socket, one connection at a time on its own thread,
/// `Connection: close` after every answer: enough to run the real `http+unix` client against
/// canned answers. Not a general server: no pipelining, no request bodies in chunks.
public final class UnixSocketHTTPServer: Sendable {
    /// The socket's path.
    public let path: String
    private let listener: Int32
    private let log = RequestLog()
    private let stopped = DispatchSemaphore(value: 0)

    /// Binds and listens at `path` (which must not exist) and starts answering with `handler`.
    public init(path: String, handler: @escaping @Sendable (TestHTTPRequest) -> TestHTTPResponse) throws(Errno) {
        self.path = path
        let descriptor = try syscall("socket") {
            Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }.get()
        do throws(Errno) {
            try UnixSocketHTTPServer.bind(descriptor, to: path)
            _ = try syscall("listen") { Glibc.listen(descriptor, 8) }.get()
        } catch {
            _ = Glibc.close(descriptor)
            throw error
        }
        self.listener = descriptor
        let thread = Thread { [log, stopped] in
            while true {
                guard case .success(let connection) = syscall("accept", { Glibc.accept(descriptor, nil, nil) }) else {
                    break
                }
                if let request = UnixSocketHTTPServer.readRequest(connection) {
                    log.requests.withLockedValue { $0.append(request) }
                    UnixSocketHTTPServer.answer(connection, with: handler(request))
                }
                _ = Glibc.close(connection)
            }
            stopped.signal()
        }
        thread.start()
    }

    /// The requests received so far.
    public var requests: [TestHTTPRequest] { log.requests.withLockedValue { $0 } }

    /// Stops accepting, waits for the thread, closes the socket and removes its file.
    public func close() {
        _ = Glibc.shutdown(listener, Int32(SHUT_RDWR))
        stopped.wait()
        _ = Glibc.close(listener)
        _ = Glibc.unlink(path)
    }

    /// Binds `descriptor` to the filesystem path `path`.
    public static func bind(_ descriptor: Int32, to path: String) throws(Errno) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { throw Errno.fileNameTooLong }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        _ = try withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                syscall("bind") { Glibc.bind(descriptor, socketAddress, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }.get()
    }

    private static func readRequest(_ connection: Int32) -> TestHTTPRequest? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        func read() -> Bool {
            let count = buffer.withUnsafeMutableBytes { raw in
                syscall("recv") { Glibc.recv(connection, raw.baseAddress, raw.count, 0) }
            }
            guard case .success(let n) = count, n > 0 else { return false }
            received += buffer[0..<n]
            return true
        }
        var headerEnd: Int?
        while headerEnd == nil {
            guard read() else { return nil }
            headerEnd = received.indices.dropLast(3).first { Array(received[$0..<$0 + 4]) == separator }
        }
        let head = String(decoding: received[..<headerEnd!], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = head[0].split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let length = headers["content-length"].flatMap { Int($0) } ?? 0
        let bodyStart = headerEnd! + 4
        while received.count - bodyStart < length {
            guard read() else { return nil }
        }
        return TestHTTPRequest(
            method: String(requestLine[0]), target: String(requestLine[1]), headers: headers,
            body: Array(received[bodyStart..<bodyStart + length]))
    }

    private static func answer(_ connection: Int32, with response: TestHTTPResponse) {
        func send(_ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes { raw in
                    syscall("send") { Glibc.send(connection, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL)) }
                }
                guard case .success(let n) = sent else { return false }
                offset += n
            }
            return true
        }
        func head(_ status: Int, _ fields: String) -> [UInt8] {
            Array("HTTP/1.1 \(status) Test\r\n\(fields)Connection: close\r\n\r\n".utf8)
        }
        switch response {
        case .hangUp:
            return
        case .full(let status, let contentType, let body):
            _ = send(head(status, "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n") + body)
        case .chunked(let status, let contentType, let chunks, let interval, let endsCleanly):
            guard send(head(status, "Content-Type: \(contentType)\r\nTransfer-Encoding: chunked\r\n")) else { return }
            for chunk in chunks {
                Thread.sleep(forTimeInterval: interval.inSeconds)
                guard send(Array((String(chunk.count, radix: 16) + "\r\n").utf8) + chunk + Array("\r\n".utf8)) else {
                    return
                }
            }
            if endsCleanly { _ = send(Array("0\r\n\r\n".utf8)) }
        }
    }
}

/// The requests a server received, shared with its thread.
private final class RequestLog: Sendable {
    let requests = NIOLockedValueBox<[TestHTTPRequest]>([])
}
