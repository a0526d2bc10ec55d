// SPDX-License-Identifier: GPL-2.0-or-later
import Glibc
import SystemCalls
import SystemPackage

/// A deliberately small HTTP/1.1 client over a raw stream socket (`AF_UNIX` or loopback TCP),
/// for tests that must see what is on the wire: requests are written by hand, responses read
/// byte by byte as they arrive, so a test can read a streaming body piece by piece and then
/// hang up in the middle of it.
///
/// Reads never block a thread: the socket is non-blocking and an empty read sleeps 2 ms.
public final class RawHTTPClient {
    /// A failure of the raw client.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String
    }

    /// A whole response.
    public struct Message: Sendable {
        /// The status code.
        public var status: Int
        /// Header names in lower case, and their values.
        public var headers: [String: String]
        /// The body, de-chunked.
        public var body: [UInt8]
        /// The body as UTF-8 text.
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    private var descriptor: Int32
    /// Bytes read but not consumed yet.
    public private(set) var buffered: [UInt8] = []

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close()
    }

    /// Connects to the Unix stream socket at `path`.
    public static func connect(unixSocket path: String) throws -> RawHTTPClient {
        let descriptor = try check(syscall("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0) }, "socket")
        let client = RawHTTPClient(descriptor: descriptor)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
        }
        _ = try check(
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    syscall("connect") {
                        Glibc.connect(descriptor, socketAddress, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
            }, "connect to \(path)")
        try client.makeNonBlocking()
        return client
    }

    /// Connects to `127.0.0.1:port`.
    public static func connect(loopbackPort port: Int) throws -> RawHTTPClient {
        let descriptor = try check(syscall("socket") { socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0) }, "socket")
        let client = RawHTTPClient(descriptor: descriptor)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        _ = try check(
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    syscall("connect") {
                        Glibc.connect(descriptor, socketAddress, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }, "connect to 127.0.0.1:\(port)")
        try client.makeNonBlocking()
        return client
    }

    private static func check<T>(_ result: Result<T, Errno>, _ what: String) throws -> T {
        switch result {
        case .success(let value): return value
        case .failure(let errno): throw Failure(description: "\(what): \(errno)")
        }
    }

    private func makeNonBlocking() throws {
        let flags = try Self.check(syscall("fcntl") { fcntl(descriptor, F_GETFL) }, "fcntl")
        _ = try Self.check(syscall("fcntl") { fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }, "fcntl")
    }

    /// Closes the connection (a client hanging up).
    public func close() {
        guard descriptor >= 0 else { return }
        _ = syscall("close", retryingOnEINTR: false) { Glibc.close(descriptor) }
        descriptor = -1
    }

    /// Writes `text` completely.
    public func send(_ text: String) async throws {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let result = bytes.withUnsafeBytes { buffer in
                syscall("send") { Glibc.send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
            }
            switch result {
            case .success(let count): bytes = bytes.dropFirst(count)
            case .failure(.resourceTemporarilyUnavailable): try await Task.sleep(for: .milliseconds(2))
            case .failure(let errno): throw Failure(description: "send: \(errno)")
            }
        }
    }

    /// Sends one request: `method path`, `Host: localhost`, the extra header lines, and `body`
    /// with its length.
    public func sendRequest(
        _ method: String, _ path: String, headers: [String] = [], body: String? = nil, closing: Bool = false
    ) async throws {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\n"
        for header in headers { text += header + "\r\n" }
        if let body { text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        if closing { text += "Connection: close\r\n" }
        text += "\r\n" + (body ?? "")
        try await send(text)
    }

    /// Reads whatever arrived; false at end of file; throws once `deadline` passes.
    private func fill(before deadline: ContinuousClock.Instant) async throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            guard ContinuousClock.now < deadline else {
                throw Failure(description: "timed out; got: \(String(decoding: buffered, as: UTF8.self))")
            }
            let result = chunk.withUnsafeMutableBytes { buffer in
                syscall("recv") { Glibc.recv(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT)) }
            }
            switch result {
            case .success(0): return false
            case .success(let count):
                buffered += chunk.prefix(count)
                return true
            case .failure(.resourceTemporarilyUnavailable): try await Task.sleep(for: .milliseconds(2))
            case .failure(let errno): throw Failure(description: "recv: \(errno)")
            }
        }
    }

    /// Reads until `marker` has arrived and returns everything up to and including it.
    public func read(through marker: String, timeout: Duration = .seconds(10)) async throws -> String {
        let needle = Array(marker.utf8)
        let deadline = ContinuousClock.now + timeout
        while true {
            if let end = Self.firstRange(of: needle, in: buffered) {
                let text = String(decoding: buffered[..<end], as: UTF8.self)
                buffered.removeFirst(end)
                return text
            }
            guard try await fill(before: deadline) else {
                throw Failure(description: "end of file before '\(marker)'")
            }
        }
    }

    /// Reads until the peer closes; returns the bytes.
    public func readToEnd(timeout: Duration = .seconds(10)) async throws -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        while try await fill(before: deadline) {}
        defer { buffered = [] }
        return buffered
    }

    /// Reads a response head: the status and the headers (names in lower case).
    public func readHead(timeout: Duration = .seconds(10)) async throws -> (status: Int, headers: [String: String]) {
        let head = try await read(through: "\r\n\r\n", timeout: timeout)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: true)
        guard !lines.isEmpty else { throw Failure(description: "empty response head") }
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw Failure(description: "bad status line in \(head)")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            headers[name] = String(value)
        }
        return (status, headers)
    }

    /// Reads one chunk of a chunked body as it arrives; nil for the last (empty) chunk.
    public func readChunk(timeout: Duration = .seconds(10)) async throws -> String? {
        // "\r\n" is one Character, so dropLast(1) removes both bytes.
        let sizeLine = try await read(through: "\r\n", timeout: timeout).dropLast(1)
        guard let size = Int(sizeLine.split(separator: ";").first ?? "", radix: 16) else {
            throw Failure(description: "bad chunk size line '\(sizeLine)'")
        }
        let deadline = ContinuousClock.now + timeout
        while buffered.count < size + 2 {
            guard try await fill(before: deadline) else { throw Failure(description: "end of file inside a chunk") }
        }
        let data = String(decoding: buffered.prefix(size), as: UTF8.self)
        buffered.removeFirst(size + 2)
        return size == 0 ? nil : data
    }

    /// Sends a request with `Connection: close` and reads the whole response.
    public func exchange(
        _ method: String, _ path: String, headers: [String] = [], body: String? = nil, timeout: Duration = .seconds(10)
    ) async throws -> Message {
        try await sendRequest(method, path, headers: headers, body: body, closing: true)
        let (status, responseHeaders) = try await readHead(timeout: timeout)
        let raw = try await readToEnd(timeout: timeout)
        let body = responseHeaders["transfer-encoding"] == "chunked" ? try Self.dechunk(raw) : raw
        return Message(status: status, headers: responseHeaders, body: body)
    }

    /// The body of a chunked transfer, joined.
    public static func dechunk(_ raw: [UInt8]) throws -> [UInt8] {
        var body: [UInt8] = []
        var rest = raw[...]
        let crlf: [UInt8] = [13, 10]
        while true {
            guard let lineEnd = firstRange(of: crlf, in: Array(rest)) else {
                throw Failure(description: "chunked body without a size line")
            }
            let sizeText = String(decoding: rest.prefix(lineEnd - 2), as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else {
                throw Failure(description: "bad chunk size '\(sizeText)'")
            }
            rest = rest.dropFirst(lineEnd)
            if size == 0 { return body }
            guard rest.count >= size + 2 else { throw Failure(description: "truncated chunk") }
            body += rest.prefix(size)
            rest = rest.dropFirst(size + 2)
        }
    }

    /// The index just past the first occurrence of `needle` in `haystack`.
    static func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start + needle.count
        }
        return nil
    }
}
