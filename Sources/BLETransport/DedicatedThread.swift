// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import Glibc
import SystemCalls
import SystemPackage

// What every blocking wait of the transport is built from, each once: a thread off Swift's
// cooperative pool that carries the caller's `SyscallScript`, one `poll(2)`, and closing a
// descriptor exactly once. `PolledSocket` (the read loop of HCI sockets), `SocketReactor` (the
// bearers' one read loop), the L2CAP connector and listener, and the adapter listing use them.

/// Starts a thread, off Swift's cooperative pool, that runs `body`. A ``SyscallScript``
/// installed on the calling task is installed on the thread too, so its calls can be scripted.
package func startDedicatedThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    #if DEBUG
    let script = SyscallScript.current
    let thread = Thread { SyscallScript.$current.withValue(script) { body() } }
    #else
    let thread = Thread { body() }
    #endif
    thread.name = name
    thread.stackSize = 1 << 19
    thread.start()
}

/// Runs `body` on a new thread (see ``startDedicatedThread(named:_:)``) and returns its result.
package func runOnDedicatedThread<T: Sendable>(named name: String, _ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        startDedicatedThread(named: name) { continuation.resume(returning: body()) }
    }
}

/// Polls `fds` once and stores each entry's `revents`. `timeout` is asked again on every `EINTR`
/// retry, so a deadline-based timeout does not restart. Under a ``SyscallScript`` a
/// ``SyscallOutcome/returns(_:writing:)`` outcome writes the whole `pollfd` array.
package func pollOnce(
    _ fds: inout [pollfd],
    timeout: () -> Int32
) -> Result<Int32, Errno> {
    // Poll a copy and take back only `revents`, so nothing (a scripted outcome included) can
    // change which descriptors are polled next time.
    var polled = fds
    for index in polled.indices { polled[index].revents = 0 }
    let result = polled.withUnsafeMutableBufferPointer { polled in
        let raw = UnsafeMutableRawBufferPointer(polled)
        return syscall("poll", output: raw) { Glibc.poll(polled.baseAddress, nfds_t(polled.count), timeout()) }
    }
    for index in fds.indices { fds[index].revents = polled[index].revents }
    return result
}

/// Closes a descriptor once (no `EINTR` retry: Linux has released it either way). The
/// descriptor number is recorded by a ``SyscallScript``, so tests can tell which one closed.
package func closeDescriptor(_ descriptor: Int32) {
    withUnsafeBytes(of: descriptor) { bytes in
        _ = syscall("close", retryingOnEINTR: false, input: bytes) { Glibc.close(descriptor) }
    }
}

/// Sends one message on `descriptor` without blocking (`MSG_DONTWAIT | MSG_NOSIGNAL`: a dead link
/// is `EPIPE`, never `SIGPIPE`). Callers keep the descriptor open until it returns.
package func sendWithoutBlocking(_ descriptor: Int32, _ message: [UInt8]) -> Result<Int, Errno> {
    message.withUnsafeBytes { bytes in
        syscall("send") { Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
    }
}
