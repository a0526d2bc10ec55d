// SPDX-License-Identifier: GPL-2.0-or-later
//
// Does ThreadSanitizer see Synchronization's `Mutex` with this toolchain? Four threads add to a
// counter only inside `withLock`; the lock is correct (the total is exact), so any report is
// TSan not seeing the lock's ordering. `make tsan` is only meaningful where this prints no
// report (Docs/TESTING.md, "ThreadSanitizer").
//
//   swiftc -sanitize=thread -Onone scripts/tsan-mutex-probe.swift -o /tmp/tsan-mutex-probe
//   TSAN_OPTIONS=halt_on_error=1 /tmp/tsan-mutex-probe

import Glibc
import Synchronization

final class Counter: Sendable {
    let state = Mutex(0)
}

let counter = Counter()
let perThread = 200_000

var threads: [pthread_t] = []
for _ in 0..<4 {
    var thread = pthread_t()
    pthread_create(
        &thread, nil,
        { _ in
            for _ in 0..<perThread { counter.state.withLock { $0 += 1 } }
            return nil
        }, nil)
    threads.append(thread)
}
for thread in threads { pthread_join(thread, nil) }
let total = counter.state.withLock { $0 }
print("total \(total) of \(4 * perThread): the lock \(total == 4 * perThread ? "held" : "FAILED")")
