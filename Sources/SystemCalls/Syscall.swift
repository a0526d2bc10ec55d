// SPDX-License-Identifier: GPL-2.0-or-later
import NIOConcurrencyHelpers
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs one system call, retrying it while it fails with `EINTR`, and returns its result or the
/// `errno` it failed with.
///
/// Every system call of the targets below the control API (the Bluetooth transport, the control
/// socket's file, the systemd notifier, the store's lock) goes through this function (house rule
/// 3). `name` is the call's name as the manual spells it (`"socket"`, `"recv"`, `"flock"`...); it
/// keys the scripted results of ``SyscallScript`` in debug builds and ends up in the caller's
/// error (`TransportError`, `StoreError`...).
///
/// `body` performs the call and returns the C result; `-1` means failure and `errno` holds the
/// cause, which is read immediately after `body` returns, before anything else can overwrite it.
///
/// Pass `retryingOnEINTR: false` for `close(2)`: on Linux the descriptor is released even when
/// `close` reports `EINTR`, so retrying could close a descriptor another thread just opened.
///
/// `input` and `output` only matter to tests: under a ``SyscallScript`` the bytes of `input` (the
/// `sockaddr` given to `connect`, the option value given to `setsockopt`...) are recorded, and a
/// ``SyscallOutcome/returns(_:writing:)`` outcome copies its bytes into `output` (the `revents` of
/// `poll`, the address filled in by `accept`...). Release builds ignore both.
///
/// - Parameters:
///   - name: the system call's name, used for scripting and for error messages.
///   - retryingOnEINTR: whether an `EINTR` failure is retried (the default) or returned.
///   - input: the bytes the call reads, recorded by a script.
///   - output: the buffer the call writes, which a scripted outcome can fill.
///   - body: performs the system call once.
/// - Returns: the call's non-negative result, or the `Errno` it failed with.
@inline(__always)
public func syscall<T: FixedWidthInteger & SignedInteger>(
    _ name: StaticString,
    retryingOnEINTR: Bool = true,
    input: UnsafeRawBufferPointer? = nil,
    output: UnsafeMutableRawBufferPointer? = nil,
    _ body: () -> T
) -> Result<T, Errno> {
    while true {
        let result: T
        let error: Errno
        #if DEBUG
        if let script = SyscallScript.current {
            switch script.next(for: name, input: input) {
            case .returns(let value):
                return .success(T(truncatingIfNeeded: value))
            case .returnsWriting(let value, let bytes):
                if let output {
                    output.copyBytes(from: bytes.prefix(output.count))
                }
                return .success(T(truncatingIfNeeded: value))
            case .fails(let scripted):
                result = -1
                error = scripted
            case nil:
                result = body()
                error = Errno(rawValue: errno)
            }
        } else {
            result = body()
            error = Errno(rawValue: errno)
        }
        #else
        result = body()
        error = Errno(rawValue: errno)
        #endif
        if result != -1 { return .success(result) }
        if error == .interrupted && retryingOnEINTR { continue }
        return .failure(error)
    }
}

#if DEBUG
/// One scripted result of a system call: what ``syscall(_:retryingOnEINTR:input:output:_:)`` returns instead
/// of performing the call. Debug builds only.
public enum SyscallOutcome: Sendable, Equatable {
    /// The call "succeeds" and returns this value; the real call is not made, so nothing it
    /// would have written (buffers, descriptors) exists.
    case returns(Int)
    /// The call "succeeds", returns this value and writes these bytes to the start of the call's
    /// `output` buffer (see ``syscall(_:retryingOnEINTR:input:output:_:)``), as the kernel would
    /// fill a `pollfd` array, an `int` option or a `sockaddr`.
    case returnsWriting(Int, [UInt8])
    /// The call "fails" with this `errno`. `EINTR` is retried like a real interruption.
    case fails(Errno)

    /// The call "succeeds", returns `value` and writes `bytes` to its output buffer.
    public static func returns(_ value: Int, writing bytes: [UInt8]) -> SyscallOutcome {
        .returnsWriting(value, bytes)
    }
}

/// Scripted system-call results for tests, installed per task with the `@TaskLocal`
/// ``current``. Debug builds only.
///
/// While a script is installed, each call of ``syscall(_:retryingOnEINTR:input:output:_:)`` takes the next
/// scripted outcome for its name; when the outcomes for a name run out (or there were none), the
/// real call is made. Every call that reaches the wrapper is recorded in ``calls``, retries
/// included, so a test can assert that `EINTR` was retried.
///
/// The script is a task-local value, so tests running in parallel never see each other's
/// scripts, and child tasks inherit it. Threads are not tasks: a component that runs system
/// calls on its own thread (the transport's I/O threads) captures ``current`` when it is created
/// and installs it on its thread. Test support calls Glibc directly for its fake peers, so it
/// never consumes the outcomes meant for the code under test.
///
/// ```swift
/// let script = SyscallScript(["socket": [.fails(.addressFamilyNotSupported)]])
/// try await SyscallScript.$current.withValue(script) { try await ... }
/// ```
public final class SyscallScript: Sendable {
    /// The script in force for the current task (or the thread it was installed on); nil runs the
    /// real system calls.
    @TaskLocal public static var current: SyscallScript?

    private struct State {
        var outcomes: [String: [SyscallOutcome]]
        var calls: [String] = []
        var inputs: [String: [[UInt8]]] = [:]
    }

    private let state: NIOLockedValueBox<State>

    /// A script with the outcomes each named system call returns, first to last.
    public init(_ outcomes: [String: [SyscallOutcome]]) {
        state = NIOLockedValueBox(State(outcomes: outcomes))
    }

    /// The names of the calls that reached the wrapper while this script was installed, in order,
    /// retries included.
    public var calls: [String] {
        state.withLockedValue { $0.calls }
    }

    /// How many scripted outcomes for `name` have not been used yet.
    public func remaining(for name: String) -> Int {
        state.withLockedValue { $0.outcomes[name]?.count ?? 0 }
    }

    /// The `input` bytes of every call of `name` that passed some, first to last.
    public func inputs(for name: String) -> [[UInt8]] {
        state.withLockedValue { $0.inputs[name] ?? [] }
    }

    /// Records a call of `name` (and its input bytes) and takes its next scripted outcome, if any.
    func next(for name: StaticString, input: UnsafeRawBufferPointer? = nil) -> SyscallOutcome? {
        let key = name.description
        return state.withLockedValue { state in
            state.calls.append(key)
            if let input { state.inputs[key, default: []].append(Array(input)) }
            guard var queue = state.outcomes[key], !queue.isEmpty else { return nil }
            let outcome = queue.removeFirst()
            state.outcomes[key] = queue
            return outcome
        }
    }
}
#endif
