// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import Testing

@Suite("NameRules")
struct NameRulesTests {
    @Test(
        "printable names of up to 64 characters pass, whatever the script",
        arguments: [
            "Anna", "Anna-Lena Müller", "李雷", "Zoë_2", "Zoe\u{308}", "-anna", String(repeating: "x", count: 64),
        ])
    func accepts(_ name: String) {
        #expect(NameRules.problem(with: name) == nil)
    }

    @Test(
        "terminal escapes, BEL, CR/LF, NUL and direction overrides are refused with the character named",
        arguments: [
            ("\u{1B}[2J", "U+001B"), ("ring\u{07}", "U+0007"), ("a\r\nb", "U+000D"), ("nul\u{0}cut", "U+0000"),
            ("evil\u{202E}gpj.exe", "U+202E"),
        ])
    func refusesControlCharacters(_ name: String, _ code: String) {
        #expect(NameRules.problem(with: name) == "contains the control character \(code)")
    }

    @Test(
        "what a spreadsheet, a shell or a page reads as syntax is refused with the character named",
        arguments: [
            ("=HYPERLINK(\"http://x\")", "="), ("+1", "+"), ("@SUM", "@"), ("a;b", ";"), ("<b>", "<"),
            ("O'Brien", "'"), ("tab\there", "\t"),
        ])
    func refusesSyntax(_ name: String, _ character: String) {
        let expected =
            character == "\t"
            ? "contains the control character U+0009"
            : "contains '\(character)'; a name holds only letters, digits, spaces, - and _"
        #expect(NameRules.problem(with: name) == expected)
    }

    @Test("a name past 64 characters is refused with its length, and check throws a 400 naming the field")
    func tooLong() {
        let name = String(repeating: "n", count: 60_000)
        #expect(NameRules.problem(with: name) == "is 60000 characters long; the limit is 64")
        #expect {
            try NameRules.check(name, field: "athlete name")
        } throws: { error in
            let error = error as? ControlError
            return error?.code == .invalidRequest && error?.message.hasPrefix("the athlete name is 60000") == true
                && error?.fix?.contains("64 printable characters") == true
        }
    }
}

@Suite("Wire models: older daemons")
struct OlderDaemonTests {
    @Test("status and adapters from a daemon before link budgets still decode (budget 0, no sensors)")
    func beforeLinkBudgets() throws {
        let json = """
            {"version":"0.1.0","uptime_seconds":5,"state_directory":"/var/lib/sportsensord","store_healthy":true,
             "adapters":[{"name":"hci0","address":"00:1A:7D:DA:71:13","up":true}],
             "sensors_paired":1,"sensors_connected":1,"live_sessions":0}
            """
        let status = try JSONDecoder.controlAPI.decode(GatewayStatus.self, from: Data(json.utf8))
        #expect(status.sensorsWaitingForSlot == 0)
        #expect(status.adapters == [AdapterInfo(name: "hci0", address: "00:1A:7D:DA:71:13", up: true)])
        let now = AdapterInfo(name: "hci1", address: "00:1A:7D:DA:71:14", up: false, linkBudget: 5, sensors: ["x"])
        let data = try JSONEncoder.controlAPI.encode(now)
        #expect(String(decoding: data, as: UTF8.self).contains("\"link_budget\":5"))
        #expect(try JSONDecoder.controlAPI.decode(AdapterInfo.self, from: data) == now)
    }
}
