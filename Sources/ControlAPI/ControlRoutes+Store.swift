// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Hummingbird

extension ControlRoutes {
    /// Re-analysis, imports, pruning: store writes the daemon makes for a client.
    static func addStoreRoutes<Context: RequestContext>(to router: Router<Context>, control: any StoreAdministration) {
        router.on(.reanalyze) { request, context -> Response in
            let body = try await RequestBodies.decode(
                ReanalyzeRequest.self, from: request, limit: maximumBodySize,
                example: #"{"profile":"jump","set":["min_flight=0.2"]}"#)
            return try ControlResponses.json(
                try await control.reanalyze(id: try context.parameters.require("id"), body))
        }
        router.on(.importSession) { request, _ -> Response in
            let body = try await RequestBodies.importRequest(
                from: request, limit: maximumImportSize,
                example: #"{"profile":"jump","rules":"standard","set":[],"lost_samples":0,"#
                    + #""malformed_notifications":0,"samples":[[0,0,10,-20,16384]]}"#)
            return try ControlResponses.json(try await control.importSession(body), status: .created)
        }
        router.on(.prune) { request, _ -> Response in
            let body = try await RequestBodies.decode(
                PruneRequest.self, from: request, limit: maximumBodySize,
                example: #"{"started_before":"2026-01-01T00:00:00Z","samples_only":true,"vacuum":false}"#)
            return try ControlResponses.json(try await control.prune(body))
        }
    }
}
