// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import Testing

@Suite("Import body parsed as it streams")
struct ImportBodyParserTests {
    static let body = Array(
        (#"{ "profile": "jump", "rules": "standard", "set": ["min_flight=0.2"], "athlete": "Ana \"A\"", "#
            + #""sensor": null, "lost_samples": 3, "malformed_notifications": 0, "sample_rate": 100.5, "#
            + #""samples": [[0, 0, 10, -20, 16384], [1, 0.01, -32768, 32767, 0],[2,2e-2,1,2,3]]}"#).utf8)

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// The body parsed in pieces of `size` bytes, its other fields decoded as the route does.
    static func parse(_ bytes: [UInt8], pieces size: Int) throws -> ImportRequest {
        var parser = ImportBodyParser()
        var start = 0
        while start < bytes.count {
            try parser.consume(bytes[start..<min(start + size, bytes.count)])
            start += size
        }
        let (fields, samples) = try parser.finish()
        var request = try decoder().decode(ImportRequest.self, from: Data(fields))
        request.samples = samples
        return request
    }

    @Test("in any pieces, the same request as decoding the whole body at once", arguments: [1, 2, 7, 64, 100_000])
    func pieces(size: Int) throws {
        let whole = try Self.decoder().decode(ImportRequest.self, from: Data(Self.body))
        #expect(try Self.parse(Self.body, pieces: size) == whole)
        #expect(whole.samples.count == 3)
        #expect(whole.samples[1] == ImportSample(index: 1, t: 0.01, x: -32768, y: 32767, z: 0))
        #expect(whole.athlete == "Ana \"A\"")
    }

    @Test("the samples are not kept as text: the other fields stay small however many samples")
    func bounded() throws {
        var text = #"{"profile":"steps","rules":"standard","set":[],"lost_samples":0,"malformed_notifications":0,"#
        text += #""samples":["# + (0..<50_000).map { "[\($0),\(Double($0) / 100),1,2,3]" }.joined(separator: ",") + "]}"
        var parser = ImportBodyParser()
        try parser.consume(Array(text.utf8))
        let (fields, samples) = try parser.finish()
        #expect(samples.count == 50_000)
        #expect(fields.count < 200, "\(String(decoding: fields, as: UTF8.self))")
    }

    @Test("bad rows and bad JSON are failures naming what is wrong")
    func failures() {
        func failure(_ text: String) -> String? {
            var parser = ImportBodyParser()
            do throws(ImportBodyParser.Failure) {
                try parser.consume(Array(text.utf8))
                _ = try parser.finish()
                return nil
            } catch { return error.message }
        }
        #expect(
            failure(#"{"samples":[[0,0,1,2,3],[1,0,1,2]]}"#)?.contains("sample 2 is not [index, t, x, y, z]") == true)
        #expect(failure(#"{"samples":[[0,0,1,2,40000]]}"#)?.contains("sample 1 is not") == true)
        #expect(failure(#"{"samples":[[0,0,1,2,3,4]]}"#)?.contains("sample 1 is not") == true)
        #expect(failure(#"{"samples":[["0",0,1,2,3]]}"#)?.contains("sample 1 is not") == true)
        #expect(failure(#"{"samples":{}}"#)?.contains("must be an array") == true)
        #expect(failure(#"{"profile":"jump""#)?.contains("ends before its object") == true)
        #expect(failure(#"{"profile":"jump"} {"#)?.contains("more after") == true)
        #expect(failure("")?.contains("empty") == true)
        #expect(failure("[1,2]")?.contains("must be a JSON object") == true)
        #expect(failure(#"{"set":["a",}"#) != nil)
    }
}
