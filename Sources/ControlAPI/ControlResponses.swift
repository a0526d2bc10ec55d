// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import GatewayCore
import Hummingbird

/// Building the control API's responses: JSON bodies with `JSONEncoder.controlAPI`, and the
/// JSON error body.
public enum ControlResponses {
    /// `value` as JSON with `status`.
    public static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws(ControlError) -> Response
    {
        let data: Data
        do {
            data = try JSONEncoder.controlAPI.encode(value)
        } catch {
            throw ControlError(.internal, "cannot encode the answer as JSON: \(error)")
        }
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// An error answer: `body` as JSON with `status`.
    public static func error(status: HTTPResponse.Status, body: ControlErrorBody) -> Response {
        // A struct of three strings always encodes; the fallback only keeps this non-throwing.
        let data =
            (try? JSONEncoder.controlAPI.encode(body))
            ?? Data(#"{"code":"internal","error":"cannot encode the error"}"#.utf8)
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// A request's query parameters, checked against the names a route accepts. An empty value
/// counts as absent (`?athlete=` is no filter).
struct QueryParameters {
    /// The decoded parameters.
    let values: [String: String]

    /// Reads `request`'s query; any name outside `allowed` is a 400 naming the allowed ones.
    init(_ request: Request, allowed: [String]) throws(ControlError) {
        var values: [String: String] = [:]
        for (key, value) in request.uri.queryParameters {
            let name = String(key)
            guard allowed.contains(name) else {
                let expected = allowed.isEmpty ? "none" : allowed.joined(separator: ", ")
                throw ControlError(
                    .invalidRequest, "unknown query parameter '\(name)' on \(request.uri.path)",
                    fix: "the parameters it takes: \(expected)")
            }
            if !value.isEmpty, values[name] == nil { values[name] = String(value) }
        }
        self.values = values
    }

    /// Reads `request`'s query against the parameters `route` declares.
    init(_ request: Request, route: ControlRoute) throws(ControlError) {
        try self.init(request, allowed: route.query)
    }

    /// The value of `name`, nil when absent or empty.
    func string(_ name: String) -> String? { values[name] }

    /// `true` or `false`; anything else is a 400.
    func bool(_ name: String) throws(ControlError) -> Bool? {
        guard let text = values[name] else { return nil }
        switch text.lowercased() {
        case "true": return true
        case "false": return false
        default:
            throw ControlError(
                .invalidRequest, "\(name)=\(text) is not true or false", fix: "use \(name)=true or \(name)=false")
        }
    }

    /// An integer in `range`; anything else is a 400.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(ControlError) -> Int? {
        guard let text = values[name] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw ControlError(
                .invalidRequest,
                "\(name)=\(text) is not a whole number from \(range.lowerBound) to \(range.upperBound)",
                fix: "give \(name) as a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// A finite number in `range`; anything else is a 400.
    func number(_ name: String, in range: ClosedRange<Double>) throws(ControlError) -> Double? {
        guard let text = values[name] else { return nil }
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw ControlError(
                .invalidRequest,
                "\(name)=\(text) is not a number of seconds from \(Int(range.lowerBound)) to \(Int(range.upperBound))",
                fix: "give \(name) from \(Int(range.lowerBound)) to \(Int(range.upperBound))")
        }
        return value
    }
}

/// Decoding request bodies, with messages that say which field is wrong.
enum RequestBodies {
    /// Decodes `type` from `request`'s JSON body (at most `limit` bytes); a missing body,
    /// malformed JSON or a wrong field is a 400 naming the problem and the expected shape.
    static func decode<Body: Decodable>(
        _ type: Body.Type, from request: Request, limit: Int, example: String
    ) async throws -> Body {
        var buffer = ByteBuffer()
        for try await part in request.body {
            guard buffer.readableBytes + part.readableBytes <= limit else { throw HTTPError(.contentTooLarge) }
            buffer.writeImmutableBuffer(part)
        }
        guard buffer.readableBytes > 0 else {
            throw ControlError(
                .invalidRequest, "\(request.method) \(request.uri.path) needs a JSON body",
                fix: "send a body like \(example) with Content-Type: application/json")
        }
        do {
            return try JSONDecoder.controlAPI.decode(Body.self, from: Data(buffer: buffer))
        } catch let error as DecodingError {
            throw ControlError(
                .invalidRequest, "the body is not a valid \(Body.self): \(describe(error))",
                fix: "send a body like \(example)")
        }
    }

    /// `missing field 'address'`, `field 'alias' must be a string`, `not valid JSON`.
    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "missing field '\(path(context.codingPath + [key]))'"
        case .valueNotFound(_, let context):
            return "field '\(path(context.codingPath))' is null"
        case .typeMismatch(let type, let context):
            let what = type == String.self ? "a string" : type == Bool.self ? "true or false" : "\(type)"
            return context.codingPath.isEmpty
                ? "the body must be a JSON object" : "field '\(path(context.codingPath))' must be \(what)"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "not valid JSON" : "field '\(path(context.codingPath))' is invalid: \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    /// The snake_case path of a coding path (`athlete`, `items.0.name`).
    static func path(_ keys: [any CodingKey]) -> String {
        keys.map { key in key.intValue.map(String.init) ?? snakeCase(key.stringValue) }.joined(separator: ".")
    }

    /// `addressType` → `address_type`.
    static func snakeCase(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase {
                if !result.isEmpty { result += "_" }
                result += character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }
}
