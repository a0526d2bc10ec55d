// SPDX-License-Identifier: GPL-2.0-or-later

extension Array where Element == UInt8 {
    /// Bytes from a hex fixture such as `"1b 2a00 0102"`; spaces, newlines and `:` are ignored.
    /// Traps on a malformed fixture: fixtures are test source, not input.
    public init(hex: String) {
        let digits = hex.filter { !$0.isWhitespace && $0 != ":" }
        precondition(digits.count % 2 == 0, "odd number of hex digits in fixture \(hex)")
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { preconditionFailure("bad hex \(hex)") }
            bytes.append(byte)
            index = next
        }
        self = bytes
    }

    /// Lower-case hex without separators, for comparing against fixtures.
    public var hexString: String {
        map { byte in
            let s = String(byte, radix: 16)
            return s.count == 1 ? "0" + s : s
        }.joined()
    }
}
