// SPDX-License-Identifier: GPL-2.0-or-later
//
// Which locks does ThreadSanitizer see with this toolchain? Four threads add to one counter,
// 200 000 times each, under the lock the argument names:
//
//   nio       swift-nio's `NIOLockedValueBox` (a `pthread_mutex_t`), the lock the project uses
//   mutex     Synchronization's `Mutex`
//   unlocked  no lock at all: the control, which must be reported
//
// With a lock the total is exact, so a report there is TSan not seeing the lock's ordering.
// swift-nio's lock files (the box, the lock, and lock.swift for its `debugOnly`) are compiled into
// the probe, so no package build is needed:
//
//   NIO=.build/checkouts/swift-nio/Sources/NIOConcurrencyHelpers
//   swiftc -sanitize=thread -Onone -parse-as-library scripts/tsan-lock-probe.swift \
//       "$NIO/NIOLock.swift" "$NIO/NIOLockedValueBox.swift" "$NIO/lock.swift" -o /tmp/tsan-lock-probe
//   for lock in nio mutex unlocked; do TSAN_OPTIONS=halt_on_error=1 /tmp/tsan-lock-probe $lock; echo "exit $?"; done
//
// Docs/TESTING.md ("ThreadSanitizer") records what each prints here.

import Glibc
import Synchronization

/// Adds one to a shared counter, under some lock or none.
protocol Counter: AnyObject, Sendable {
    func increment()
    var total: Int { get }
}

final class NIOCounter: Counter {
    let state = NIOLockedValueBox(0)
    func increment() { state.withLockedValue { $0 += 1 } }
    var total: Int { state.withLockedValue { $0 } }
}

final class MutexCounter: Counter {
    let state = Mutex(0)
    func increment() { state.withLock { $0 += 1 } }
    var total: Int { state.withLock { $0 } }
}

/// Deliberately racy: the control that shows TSan is watching at all.
final class UnlockedCounter: Counter, @unchecked Sendable {
    var value = 0
    func increment() { value += 1 }
    var total: Int { value }
}

nonisolated(unsafe) var shared: (any Counter)?
let threadCount = 4
let perThread = 200_000

@main
enum TSanLockProbe {
    static func main() {
        let arguments = CommandLine.arguments
        let kind = arguments.count > 1 ? arguments[1] : ""
        switch kind {
        case "nio": shared = NIOCounter()
        case "mutex": shared = MutexCounter()
        case "unlocked": shared = UnlockedCounter()
        default:
            fputs("usage: \(arguments[0]) nio|mutex|unlocked\n", stderr)
            exit(64)
        }
        var threads: [pthread_t] = []
        for _ in 0..<threadCount {
            var thread = pthread_t()
            pthread_create(
                &thread, nil,
                { _ in
                    let counter = shared!
                    for _ in 0..<perThread { counter.increment() }
                    return nil
                }, nil)
            threads.append(thread)
        }
        for thread in threads { pthread_join(thread, nil) }
        let total = shared!.total
        let expected = threadCount * perThread
        print("\(kind): total \(total) of \(expected)\(total == expected ? "" : " (updates lost)")")
    }
}
