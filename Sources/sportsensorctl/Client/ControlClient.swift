// SPDX-License-Identifier: GPL-2.0-or-later
import AsyncHTTPClient
import ControlProtocol
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// `sportsensord`'s control API over its Unix socket (`http+unix`) or TCP: JSON requests decoded
/// with `JSONDecoder.controlAPI`, and the `/v1/events` stream. Every failure is a `ClientError`
/// whose message says what to do. Call `shutdown()` when done (or use `ControlClient.with`).
struct ControlClient: Sendable {
    /// Where the daemon is.
    let endpoint: ControlEndpoint
    private let http: HTTPClient
    /// How long an ordinary request may take, seconds.
    private let requestTimeout: Int64

    /// A client for `endpoint`. HTTP/1.1 only; a failed connection fails the request at once
    /// instead of retrying until the timeout, so "not running" is reported immediately.
    init(endpoint: ControlEndpoint, requestTimeout: Int64 = 30) {
        var configuration = HTTPClient.Configuration()
        configuration.httpVersion = .http1Only
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(5), read: nil)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.decompression = .disabled
        self.endpoint = endpoint
        self.requestTimeout = requestTimeout
        self.http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Runs `body` with a client and shuts it down afterwards, also when `body` throws.
    static func with<T>(
        _ endpoint: ControlEndpoint, _ body: (ControlClient) async throws -> T
    ) async throws -> T {
        let client = ControlClient(endpoint: endpoint)
        do {
            let result = try await body(client)
            await client.shutdown()
            return result
        } catch {
            await client.shutdown()
            throw error
        }
    }

    /// Closes the connections.
    func shutdown() async {
        try? await http.shutdown()
    }

    // MARK: Requests

    /// `request` without a body, the answer decoded as `T`.
    func get<T: Decodable>(_ request: ControlRequest, as type: T.Type = T.self) async throws(ClientError) -> T {
        try decode(T.self, from: try await perform(request, body: nil))
    }

    /// `request` with `body` as JSON, the answer decoded as `T`.
    func send<Body: Encodable, T: Decodable>(
        _ request: ControlRequest, json body: Body?, as type: T.Type = T.self, timeout: Int64? = nil
    ) async throws(ClientError) -> T {
        var bytes: [UInt8]?
        if let body {
            do {
                bytes = Array(try JSONEncoder.controlAPI.encode(body))
            } catch {
                throw ClientError(code: .invalidOption, message: "cannot encode the request: \(error)", cause: error)
            }
        }
        return try decode(T.self, from: try await perform(request, body: bytes, timeout: timeout))
    }

    /// `request` without a body, for answers without one (`DELETE` → 204).
    func send(_ request: ControlRequest) async throws(ClientError) {
        _ = try await perform(request, body: nil)
    }

    /// Performs one request; the body of a 2xx answer, else the daemon's error as a `ClientError`.
    func perform(
        _ request: ControlRequest, body: [UInt8]?, timeout: Int64? = nil
    ) async throws(ClientError) -> [UInt8] {
        let request = try makeRequest(request, body: body)
        let response: HTTPClientResponse
        let seconds = timeout ?? requestTimeout
        do {
            response = try await http.execute(request, timeout: .seconds(seconds))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            // Connected and sent: the daemon is there but slow, and may still do what was asked.
            throw ClientError(
                code: .connectionLost, message: "sportsensord at \(endpoint) did not answer within \(seconds) s",
                fix: "it may still have done it: look with `sportsensorctl status` or `sessions` before repeating; "
                    + "`journalctl -u sportsensord` says why it is slow",
                cause: error)
        } catch {
            throw connectionError(error)
        }
        let bytes: [UInt8]
        do {
            var buffer = try await response.body.collect(upTo: 64 << 20)
            bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        } catch {
            throw ClientError(
                code: .connectionLost, message: "sportsensord at \(endpoint) stopped answering mid-response",
                fix: "check `journalctl -u sportsensord` for a restart", cause: error)
        }
        guard (200..<300).contains(response.status.code) else {
            throw ClientError.answer(
                status: Int(response.status.code), reason: response.status.reasonPhrase, body: bytes)
        }
        return bytes
    }

    // MARK: Live events

    /// Subscribes to `GET /v1/events` and calls `onEvent` for each item in order, until the daemon
    /// ends the stream cleanly (returns) or the connection breaks (throws `connectionLost`).
    /// Cancelling the calling task ends the subscription.
    func events(_ onEvent: (ServerSentEvent) async throws -> Void) async throws {
        var request = try makeRequest(ControlRoute.events.request(), body: nil)
        request.headers.replaceOrAdd(name: "Accept", value: "text/event-stream")
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request, deadline: .distantFuture)
        } catch {
            throw connectionError(error)
        }
        guard (200..<300).contains(response.status.code) else {
            let body = (try? await response.body.collect(upTo: 1 << 20)).map { Array($0.readableBytesView) } ?? []
            throw ClientError.answer(
                status: Int(response.status.code), reason: response.status.reasonPhrase, body: body)
        }
        var parser = ServerSentEventParser()
        do {
            for try await chunk in response.body {
                for event in parser.push(chunk.readableBytesView) { try await onEvent(event) }
            }
        } catch let error as ClientError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw ClientError(
                code: .connectionLost, message: "lost sportsensord at \(endpoint) (the event stream broke off)",
                fix: "is the service still running? `systemctl status sportsensord`", cause: error)
        }
        parser.finish()
    }

    // MARK: Internals

    private func makeRequest(_ control: ControlRequest, body: [UInt8]?) throws(ClientError) -> HTTPClientRequest {
        guard let url = endpoint.url(for: control.uri) else {
            throw ClientError(
                code: .invalidOption, message: "cannot make a URL of \(endpoint) and \(control.uri)",
                fix: "check --socket or --url")
        }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = HTTPMethod(rawValue: control.method.rawValue)
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "sportsensorctl")
        if case .tcp(_, let token?) = endpoint { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(body)
        }
        return request
    }

    private func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(ClientError) -> T {
        do {
            return try JSONDecoder.controlAPI.decode(T.self, from: Data(bytes))
        } catch {
            throw ClientError(
                code: .protocolViolation,
                message: "sportsensord at \(endpoint) sent an answer this sportsensorctl cannot read (\(error))",
                fix: "are the daemon and sportsensorctl the same version? compare with `sportsensorctl status`",
                cause: error)
        }
    }

    private func connectionError(_ error: any Error) -> ClientError {
        if let error = error as? ClientError { return error }
        return ClientError.connecting(to: endpoint, errno: Self.errno(of: error), cause: error)
    }

    /// The errno behind a connection failure, when the error carries one.
    static func errno(of error: any Error) -> Int32? {
        if let error = error as? IOError { return error.errnoCode }
        if let error = error as? NIOConnectionError {
            for failure in error.connectionErrors {
                if let code = errno(of: failure.error) { return code }
            }
        }
        if let error = error as? ChannelError, case .connectTimeout = error { return ETIMEDOUT }
        if let error = error as? HTTPClientError, error == .connectTimeout { return ETIMEDOUT }
        return nil
    }
}
