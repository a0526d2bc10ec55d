// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors
import Testing

/// A minimal conforming error, as every `*Error` struct in the project is built.
private struct SampleError: CodeAndMessageHashable {
    struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        static let broken = Code(name: "broken")
        static let other = Code(name: "other")
        var description: String { name }
    }

    var code: Code
    var message: String
    var cause: (any Error)?
    var details: [String] = []
}

/// An error with neither cause nor details, relying on the defaults.
private struct PlainError: CodedError {
    var code: SampleError.Code
    var message: String
}

/// An error in a file a person wrote, with the fix apart from the message.
private struct LocatedError: CodedError {
    var code: SampleError.Code
    var message: String
    var location: String?
    var fix: String?
    var cause: (any Error)?
}

@Suite("CodedError: one description, one equality")
struct CodedErrorTests {
    @Test("the description is code and message, then details in brackets, then the cause")
    func description() {
        let plain = PlainError(code: .broken, message: "the part is broken: replace it")
        #expect(plain.description == "broken: the part is broken: replace it")
        #expect(plain.cause == nil)
        #expect(plain.details.isEmpty)
        let inner = PlainError(code: .other, message: "inner")
        let full = SampleError(code: .broken, message: "outer", cause: inner, details: ["call x", "handle 0x3"])
        #expect(full.description == "broken: outer [call x, handle 0x3]; cause: other: inner")
        #expect("\(full)" == full.description)
    }

    @Test("a location goes first, as compilers print it, and a fix kept apart follows the message")
    func locationAndFix() {
        let located = LocatedError(
            code: .broken, message: "not a number", location: "config.toml:3: a.b", fix: "give 1–5")
        #expect(located.description == "config.toml:3: a.b: broken: not a number; give 1–5")
        let inner = PlainError(code: .other, message: "inner")
        let caused = LocatedError(code: .other, message: "m", location: nil, fix: "f", cause: inner)
        #expect(caused.description == "other: m; f; cause: other: inner")
    }

    @Test("code and message decide equality and the hash; the cause does not")
    func equality() {
        let first = SampleError(code: .broken, message: "m", cause: PlainError(code: .other, message: "a"))
        let second = SampleError(code: .broken, message: "m", cause: nil)
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(first != SampleError(code: .other, message: "m"))
        #expect(first != SampleError(code: .broken, message: "n"))
        #expect(Set([first, second]).count == 1)
    }

    /// A code that is only its name, as most of the project's codes are.
    struct NamedFailure: CodedError {
        struct Code: NamedCode {
            let name: String
            static let notFound = Code(name: "not-found")
        }
        var code: Code
        var message: String
    }

    @Test("a named code prints its name, so the error reads `name: message`")
    func namedCode() {
        #expect(NamedFailure.Code.notFound.description == "not-found")
        #expect(
            NamedFailure(code: .notFound, message: "no session 7: list them with `sessions`").description
                == "not-found: no session 7: list them with `sessions`")
    }

    /// A code written as a `String` enum: its raw value is its name.
    enum CaseCode: String, NamedCode {
        case linkLost
        case notFound = "not-found"
    }

    @Test("a String enum code is named by its raw value: the case name, or the raw value it spells out")
    func rawValueNamedCode() {
        #expect(CaseCode.linkLost.description == "linkLost")
        #expect(CaseCode.notFound.name == "not-found")
        #expect(PlainCaseError(code: .linkLost, message: "reconnecting").description == "linkLost: reconnecting")
    }

    struct PlainCaseError: CodedError {
        var code: CaseCode
        var message: String
    }

    typealias LinkFailure = CodedFailure<CaseCode>
    typealias NamedFailureAlias = CodedFailure<NamedFailure.Code>

    @Test("a CodedFailure reads and compares like any coded error, and each code type makes its own error type")
    func codedFailure() {
        let cause = PlainError(code: .broken, message: "socket closed")
        let failure = LinkFailure(.linkLost, "the link dropped: it reconnects by itself", cause: cause)
        #expect(
            failure.description == "linkLost: the link dropped: it reconnects by itself; cause: broken: socket closed")
        #expect(failure == LinkFailure(.linkLost, "the link dropped: it reconnects by itself"))
        #expect(failure != LinkFailure(.notFound, "the link dropped: it reconnects by itself"))
        let thrown: any Error = failure
        #expect(thrown is LinkFailure)
        #expect(!(thrown is NamedFailureAlias))
    }
}
