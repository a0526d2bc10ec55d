// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import GATTClient
import Synchronization
import Testing

@Suite("GATT client: notifications handed to a handler on the bearer's thread")
struct SynchronousNotificationTests {
    @Test("every notification reaches the handler in order and is counted; the stream only ends")
    func handlerTakesNotifications() async throws {
        let (near, far) = try SeqPacketBearer.socketPair()
        let client = GATTClient(bearer: near)
        let (handled, handledSink) = AsyncStream.makeStream(of: GATTClient<ContinuousClock>.Notification.self)
        client.handleNotifications { notification in handledSink.yield(notification.owned) }
        // Handle Value Notification (0x1B) on handle 0x002A, two value bytes.
        for sequence in 0..<200 {
            try await far.send([0x1B, 0x2A, 0x00, UInt8(sequence & 0xFF), UInt8(sequence >> 8)])
        }
        var values: [[UInt8]] = []
        for await notification in handled {
            #expect(notification.handle == 0x002A)
            #expect(!notification.isIndication)
            values.append(notification.value)
            if values.count == 200 { break }
        }
        #expect(values == (0..<200).map { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        #expect(client.statistics.notificationsReceived == 200)
        #expect(client.droppedNotificationCount == 0)

        await far.close()
        var streamed = 0
        let error = await #expect(throws: GATTError.self) {
            for try await _ in client.notifications { streamed += 1 }
        }
        #expect(error?.code == .disconnected)
        #expect(streamed == 0)
        await client.close()
    }
}
