// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GATTClient
import GatewayTesting
import NIOConcurrencyHelpers
import Testing

/// The far end of a loopback link, driven by the test: it reads what the client sends and
/// answers with hand-built hex fixtures.
struct ScriptedPeer {
    let bearer: LoopbackATTBearer
    /// What the client sent, read at the test's pace.
    let pdus: AsyncThrowingStream<[UInt8], any Error>

    init(bearer: LoopbackATTBearer) {
        self.bearer = bearer
        pdus = bearer.receivedPDUs()
    }

    /// Reads the next PDU and expects it to be `hex` (spaces ignored).
    func expect(_ hex: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let pdu = try await pdus.next()
        #expect(pdu?.hexString == [UInt8](hex: hex).hexString, sourceLocation: sourceLocation)
    }

    /// Sends `hex` to the client.
    func send(_ hex: String) async throws {
        try await bearer.send([UInt8](hex: hex))
    }

    /// Expects `request`, then answers it with `response`.
    func answer(
        _ request: String, with response: String, sourceLocation: SourceLocation = #_sourceLocation
    )
        async throws
    {
        try await expect(request, sourceLocation: sourceLocation)
        try await send(response)
    }

    /// The next PDU the client sent, nil once the link is closed.
    func receive() async throws -> [UInt8]? {
        try await pdus.next()
    }
}

/// A bearer that logs every PDU it sends and receives, in the order the client saw them.
final class RecordingBearer: ATTBearer {
    let inner: LoopbackATTBearer
    let log = NIOLockedValueBox<[String]>([])

    init(inner: LoopbackATTBearer) {
        self.inner = inner
    }

    var events: [String] { log.withLockedValue { $0 } }

    func send(_ pdu: [UInt8]) async throws {
        log.withLockedValue { $0.append("tx " + pdu.hexString) }
        try await inner.send(pdu)
    }

    func deliver(to handler: @escaping @Sendable (ATTBearerInput) -> Void) {
        inner.deliver { [self] input in
            if case .pdu(let pdu) = input { log.withLockedValue { $0.append("rx " + Array(pdu).hexString) } }
            handler(input)
        }
    }

    func close() async {
        await inner.close()
    }
}

/// A client on a manual clock talking to a scripted peer over a loopback pair.
struct Harness {
    let client: GATTClient<ManualClock>
    let peer: ScriptedPeer
    let clock: ManualClock
    let collector = NotificationCollector<ManualClock.Instant>()

    /// What the client handed its sink, then the end of the link.
    var notifications: AsyncThrowingStream<GATTNotification<ManualClock.Instant>, any Error> {
        collector.notifications
    }

    init() {
        let (near, far) = LoopbackATTBearer.pair()
        clock = ManualClock()
        client = GATTClient(bearer: near, clock: clock, notifications: collector)
        peer = ScriptedPeer(bearer: far)
    }
}

/// The SDU sensor's service and accelerometer characteristic, little-endian as on the wire.
enum SDUFixture {
    static let serviceUUID = BluetoothUUID(string: "A2C70010-8F31-11E3-B148-0002A5D5C51B")!
    static let accelerationUUID = BluetoothUUID(string: "A2C70031-8F31-11E3-B148-0002A5D5C51B")!
    static let serviceLE = "1bc5d5a5020048b1e311318f1000c7a2"
    static let accelerationLE = "1bc5d5a5020048b1e311318f3100c7a2"
}

/// Awaits `body` and returns the `GATTError` it throws; records an issue when it throws
/// something else or nothing.
func gattError(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> some Any
) async -> GATTError? {
    do {
        _ = try await body()
        Issue.record("expected a GATTError, nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as GATTError {
        return error
    } catch {
        Issue.record("expected a GATTError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Yields until `condition` holds (bounded), for states a test cannot await directly.
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<100_000 {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}
