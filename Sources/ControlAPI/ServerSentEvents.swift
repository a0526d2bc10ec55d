// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import GatewayCore
import Hummingbird
import Logging
import ServiceLifecycle

/// `GET /v1/events`: the gateway's events as a Server-Sent Events stream.
///
/// Each `GatewayEvent` becomes `event: <kind>\ndata: <one line of JSON>\n\n`; a `: keep-alive`
/// comment goes out after every `keepAliveInterval` so idle proxies keep the connection and a
/// client that went away is noticed (its write fails). The stream ends, and the subscription
/// with it, when the client disconnects, the gateway ends the stream, or the server shuts down
/// gracefully.
enum ServerSentEvents {
    /// The comment sent while nothing else is.
    static let keepAliveFrame = ": keep-alive\n\n"

    /// How many frames wait for a slow client before the oldest are dropped.
    static let bufferedFrames = 1024

    /// One event's frame: `event: <kind>\ndata: <json>\n\n`, from the payload encoded when the
    /// event was published (``PublishedEvent``), so no stream encodes it again. The JSON has no
    /// line breaks (the encoder escapes those inside strings), so one `data:` line carries it.
    static func frame(kind: String, json: String) -> String {
        "event: \(kind)\ndata: \(json)\n\n"
    }

    /// The streaming response over `events`, a subscription the caller opened before answering,
    /// so nothing the gateway emits after the client sees the headers is missed.
    static func response(
        events: AsyncStream<PublishedEvent>, keepAliveInterval: Duration, logger: Logger
    ) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        let body = ResponseBody { writer in
            let (frames, outbox) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(bufferedFrames))
            try await withGracefulShutdownHandler {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await published in events {
                            if let json = published.payloadJSON {
                                outbox.yield(frame(kind: published.event.kind, json: json))
                            } else {
                                logger.error(
                                    "cannot encode an event for the stream, skipped",
                                    metadata: [
                                        "event.kind": "\(published.event.kind)",
                                        "error": "\(published.encodingFailure ?? "")",
                                    ])
                            }
                        }
                        outbox.finish()
                    }
                    group.addTask {
                        while true {
                            try await Task.sleep(for: keepAliveInterval)
                            outbox.yield(keepAliveFrame)
                        }
                    }
                    defer { group.cancelAll() }
                    for await frame in frames {
                        try await writer.write(ByteBuffer(string: frame))
                    }
                }
            } onGracefulShutdown: {
                outbox.finish()
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}
