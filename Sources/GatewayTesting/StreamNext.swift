// SPDX-License-Identifier: GPL-2.0-or-later

extension AsyncThrowingStream {
    /// The next element, nil at the end: for a test that reads a stream (a bearer's
    /// `receivedPDUs()`, above all) one element at a time, from one task at a time.
    public func next() async throws -> Element? {
        var iterator = makeAsyncIterator()
        return try await iterator.next()
    }
}
