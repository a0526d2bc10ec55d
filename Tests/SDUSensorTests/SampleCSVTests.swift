// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor
import Testing

@Suite("Sample CSV interchange format")
struct SampleCSVTests {
    @Test(
        "fixed-point formatting rounds half away from zero",
        arguments: [
            (0.0, "0.000000"), (1.0, "1.000000"), (-0.5, "-0.500000"), (0.0000005, "0.000001"),
            (-0.0000004, "0.000000"), (1.99993896484375, "1.999939"), (123.4567895, "123.456790"),
        ])
    func fixed(value: Double, text: String) {
        #expect(SampleCSV.fixed(value, decimals: 6) == text)
    }

    @Test("every raw count survives formatting and parsing")
    func lossless() throws {
        var text = SampleCSV.header + "\n"
        var t = 0.0
        for count in stride(from: -32768, through: 32767, by: 7) {
            let raw = RawAcceleration(x: Int16(count), y: Int16(-count - 1 < -32768 ? 0 : -count - 1), z: 0)
            text += SampleCSV.line(AccelerationSample(t: t, raw: raw)) + "\n"
            t += 0.01
        }
        let samples = try SampleCSV.parse(text)
        var index = 0
        for count in stride(from: -32768, through: 32767, by: 7) {
            #expect(Int16((samples[index].x * 16384).rounded()) == Int16(count))
            index += 1
        }
        #expect(samples.count == index)
    }

    @Test("header, comments, CRLF and blank lines")
    func tolerated() throws {
        let samples = try SampleCSV.parse("# from a phone\r\nt,x,y,z\r\n0.0,0,0,1\r\n\r\n0.01,0.5,-0.5,1\r\n")
        #expect(
            samples == [AccelerationSample(t: 0, x: 0, y: 0, z: 1), AccelerationSample(t: 0.01, x: 0.5, y: -0.5, z: 1)])
    }

    @Test("errors name the line and the problem")
    func errors() {
        func failure(_ text: String) -> SampleCSV.ParseError? {
            do {
                _ = try SampleCSV.parse(text)
                return nil
            } catch {
                return error
            }
        }
        #expect(failure("")?.code == .missingHeader)
        #expect(failure("time,a,b,c\n1,2,3,4\n")?.code == .missingHeader)
        let short = failure("t,x,y,z\n0,0,0,1\n0.1,0,1\n")
        #expect(short?.code == .malformedLine)
        #expect(short?.line == 3)
        let word = failure("t,x,y,z\n0,0,zero,1\n")
        #expect(word?.line == 2)
        #expect(word?.message.contains("field y") == true)
        let backwards = failure("t,x,y,z\n0.2,0,0,1\n0.1,0,0,1\n")
        #expect(backwards?.code == .timeNotMonotonic)
        #expect(backwards?.line == 3)
        #expect(failure("t,x,y,z\n0,nan,0,1\n")?.code == .malformedLine)
    }
}
