// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import Hummingbird

extension RequestBodies {
    /// `POST /v1/sessions/import`'s body, parsed part by part as it arrives (`ImportBodyParser`):
    /// the daemon holds the samples (24 bytes each), at most 64 kB of the other fields and one
    /// part of the body, never the whole body nor a JSON tree of it. At most `limit` bytes.
    static func importRequest(from request: Request, limit: Int, example: String) async throws -> ImportRequest {
        var parser = ImportBodyParser()
        var received = 0
        do {
            for try await part in request.body {
                received += part.readableBytes
                guard received <= limit else { throw HTTPError(.contentTooLarge) }
                try parser.consume(part.readableBytesView)
            }
            guard received > 0 else {
                throw ControlError(
                    .invalidRequest, "\(request.method) \(request.uri.path) needs a JSON body",
                    fix: "send a body like \(example) with Content-Type: application/json")
            }
            let (fields, samples) = try parser.finish()
            var body = try JSONDecoder.controlAPI.decode(ImportRequest.self, from: Data(fields))
            body.samples = samples
            return body
        } catch let error as ImportBodyParser.Failure {
            throw ControlError(
                .invalidRequest, "the body is not a valid ImportRequest: \(error.message)",
                fix: "send a body like \(example)")
        } catch let error as DecodingError {
            throw ControlError(
                .invalidRequest, "the body is not a valid ImportRequest: \(describe(error))",
                fix: "send a body like \(example)")
        }
    }
}
