// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Testing

@Suite("Control routes: one table for server and client")
struct ControlRouteTests {
    @Test("requests fill each parameter in order, percent-encoded")
    func parameters() {
        #expect(ControlRoute.stopSession.request("6F96").uri == "/v1/sessions/6F96/stop")
        #expect(ControlRoute.unpair.request("anna left/2").uri == "/v1/sensors/anna%20left%2F2")
        #expect(ControlRoute.unpair.request("anna left/2").method == .delete)
        #expect(ControlRoute.updateSensor.parameterNames == ["sensor"])
        #expect(ControlRoute.status.parameterNames.isEmpty)
    }

    @Test("queries keep their order and encode & = + and spaces")
    func query() {
        let request = ControlRoute.sessions.request(query: ["live": "true", "athlete": "anna b&c=d+e"])
        #expect(request.uri == "/v1/sessions?live=true&athlete=anna%20b%26c%3Dd%2Be")
        #expect(request.description == "GET " + request.uri)
    }

    @Test("every route is listed once, and no two share method and template")
    func unique() {
        let keys = ControlRoute.all.map { "\($0.method.rawValue) \($0.template)" }
        #expect(Set(keys).count == keys.count)
        #expect(ControlRoute.all.count == 33)
    }
}
