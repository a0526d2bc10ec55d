// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import GATTClient
import GatewayTesting
import Testing

@Suite("GATT client: notifications handed to the sink on the bearer's thread")
struct SynchronousNotificationTests {
    @Test("every notification reaches the sink in order and is counted; then the end of the link")
    func sinkTakesNotifications() async throws {
        let (near, far) = try SeqPacketBearer.socketPair()
        let collector = NotificationCollector<ContinuousClock.Instant>()
        let client = GATTClient(bearer: near, notifications: collector)
        // Handle Value Notification (0x1B) on handle 0x002A, two value bytes.
        for sequence in 0..<200 {
            try await far.send([0x1B, 0x2A, 0x00, UInt8(sequence & 0xFF), UInt8(sequence >> 8)])
        }
        var values: [[UInt8]] = []
        var iterator = collector.notifications.makeAsyncIterator()
        while values.count < 200, let notification = try await iterator.next() {
            #expect(notification.handle == 0x002A)
            #expect(!notification.isIndication)
            values.append(Array(notification.value))
        }
        #expect(values == (0..<200).map { (i: Int) -> [UInt8] in [UInt8(i & 0xFF), UInt8(i >> 8)] })
        #expect(client.statistics.notificationsReceived == 200)

        await far.close()
        let error = await #expect(throws: GATTError.self) { _ = try await iterator.next() }
        #expect(error?.code == .disconnected)
        await client.close()
    }
}
