// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import GatewayCore
import Hummingbird
import Logging

/// Turns every error a route throws into a JSON `ControlErrorBody` answer: a `ControlError`
/// gets its code's status; Hummingbird's own errors (no such route, body too large) keep their
/// status; anything else is a bug and gets 500.
public struct ControlErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Where unexpected errors are logged.
    let logger: Logger

    /// The middleware, logging unexpected errors to `logger`.
    public init(logger: Logger) {
        self.logger = logger
    }

    /// Answers `next`'s errors as JSON error bodies.
    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as ControlError {
            if error.code == .internal {
                logger.error(
                    "control request failed", metadata: ["http.path": "\(request.uri.path)", "error": "\(error)"])
            }
            return ControlResponses.error(status: HTTPResponse.Status(code: error.code.httpStatus), body: error.body)
        } catch let error as HTTPError {
            return ControlResponses.error(status: error.status, body: Self.body(for: error, request: request))
        } catch {
            logger.error(
                "control request failed unexpectedly",
                metadata: ["http.path": "\(request.uri.path)", "error": "\(error)"])
            return ControlResponses.error(
                status: .internalServerError,
                body: ControlErrorBody(
                    code: ControlError.Code.internal.name, error: "unexpected error: \(error)",
                    fix: "this is a bug in sportsensord: report it with the daemon's log (journalctl -u sportsensord)"
                ))
        }
    }

    /// The body for one of Hummingbird's errors.
    static func body(for error: HTTPError, request: Request) -> ControlErrorBody {
        switch error.status {
        case .notFound:
            return ControlErrorBody(
                code: ControlError.Code.notFound.name,
                error: "no route \(request.method) \(request.uri.path)",
                fix: "the routes are listed in Docs/API.md (all under /v1, plus /metrics)")
        case .contentTooLarge:
            return ControlErrorBody(
                code: ControlError.Code.invalidRequest.name,
                error: "the request body is larger than \(ControlRoutes.maximumBodySize) bytes",
                fix: "send only the JSON object the route expects")
        default:
            let code =
                error.status.code >= 500 ? ControlError.Code.internal.name : ControlError.Code.invalidRequest.name
            return ControlErrorBody(code: code, error: error.body ?? error.status.reasonPhrase, fix: nil)
        }
    }
}
