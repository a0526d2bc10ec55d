// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GATTClient
import GatewayTesting
import Testing

@Suite("GATT client against a scripted peer", .timeLimit(.minutes(5)))
struct GATTClientTests {
    @Test("MTU exchange returns the smaller MTU and later reads use it")
    func mtuExchange() async throws {
        let h = Harness()
        async let mtu = h.client.exchangeMTU(clientRxMTU: 247)
        try await h.peer.answer("02 f700", with: "03 9e00")
        #expect(try await mtu == 158)
        #expect(h.client.mtu == 158)

        async let smaller = h.client.exchangeMTU(clientRxMTU: 100)
        try await h.peer.answer("02 6400", with: "03 f700")
        #expect(try await smaller == 100)
        await h.client.close()
    }

    @Test("primary services across several Read By Group Type responses, 16- and 128-bit")
    func discoverServices() async throws {
        let h = Harness()
        async let services = h.client.discoverPrimaryServices()
        try await h.peer.answer("10 0100 ffff 0028", with: "11 06 0100 0500 0018 0600 0900 0118")
        try await h.peer.answer("10 0a00 ffff 0028", with: "11 14 0a00 1400 \(SDUFixture.serviceLE)")
        try await h.peer.answer("10 1500 ffff 0028", with: "01 10 1500 0a")
        #expect(
            try await services == [
                GATTService(uuid: .genericAccess, range: ATTHandleRange(start: 0x0001, end: 0x0005)),
                GATTService(uuid: .genericAttribute, range: ATTHandleRange(start: 0x0006, end: 0x0009)),
                GATTService(uuid: SDUFixture.serviceUUID, range: ATTHandleRange(start: 0x000A, end: 0x0014)),
            ])
        await h.client.close()
    }

    @Test("service discovery stops at handle 0xFFFF without another request")
    func discoverServicesToEnd() async throws {
        let h = Harness()
        async let services = h.client.discoverPrimaryServices()
        try await h.peer.answer("10 0100 ffff 0028", with: "11 06 0100 0500 0018")
        try await h.peer.answer("10 0600 ffff 0028", with: "11 14 0600 ffff \(SDUFixture.serviceLE)")
        #expect(try await services.map(\.uuid) == [.genericAccess, SDUFixture.serviceUUID])
        // The next PDU the peer sees is the close, not another discovery request.
        await h.client.close()
        #expect(try await h.peer.receive() == nil)
    }

    @Test("primary service by UUID with Find By Type Value, paginated")
    func discoverServiceByUUID() async throws {
        let h = Harness()
        async let services = h.client.discoverPrimaryService(uuid: SDUFixture.serviceUUID)
        try await h.peer.answer("06 0100 ffff 0028 \(SDUFixture.serviceLE)", with: "07 0a00 1400")
        try await h.peer.answer("06 1500 ffff 0028 \(SDUFixture.serviceLE)", with: "07 3000 3400")
        try await h.peer.answer("06 3500 ffff 0028 \(SDUFixture.serviceLE)", with: "01 06 3500 0a")
        #expect(
            try await services == [
                GATTService(uuid: SDUFixture.serviceUUID, range: ATTHandleRange(start: 0x000A, end: 0x0014)),
                GATTService(uuid: SDUFixture.serviceUUID, range: ATTHandleRange(start: 0x0030, end: 0x0034)),
            ])
        await h.client.close()
    }

    @Test("characteristics across several Read By Type responses, with end handles")
    func discoverCharacteristics() async throws {
        let h = Harness()
        let service = GATTService(uuid: SDUFixture.serviceUUID, range: ATTHandleRange(start: 0x000A, end: 0x0014))
        async let characteristics = h.client.discoverCharacteristics(in: service)
        try await h.peer.answer("08 0a00 1400 0328", with: "09 07 0b00 02 0c00 242a 0d00 0a 0e00 252a")
        try await h.peer.answer("08 0e00 1400 0328", with: "09 15 0f00 10 1000 \(SDUFixture.accelerationLE)")
        try await h.peer.answer("08 1000 1400 0328", with: "01 08 1000 0a")
        #expect(
            try await characteristics == [
                GATTCharacteristic(
                    uuid: .modelNumberString, declarationHandle: 0x0B, valueHandle: 0x0C, properties: .read,
                    endHandle: 0x0C),
                GATTCharacteristic(
                    uuid: .serialNumberString, declarationHandle: 0x0D, valueHandle: 0x0E,
                    properties: [.read, .write], endHandle: 0x0E),
                GATTCharacteristic(
                    uuid: SDUFixture.accelerationUUID, declarationHandle: 0x0F, valueHandle: 0x10,
                    properties: .notify, endHandle: 0x14),
            ])
        await h.client.close()
    }

    @Test("discovery responses that do not advance are malformed, not an endless loop")
    func nonAdvancingDiscovery() async throws {
        let h = Harness()
        let service = GATTService(uuid: SDUFixture.serviceUUID, range: ATTHandleRange(start: 0x000A, end: 0x0014))
        async let characteristics = gattError { try await h.client.discoverCharacteristics(in: service) }
        // The same declaration twice in one response.
        try await h.peer.answer("08 0a00 1400 0328", with: "09 07 0b00 02 0c00 242a 0b00 02 0c00 242a")
        #expect(await characteristics?.code == .malformedResponse)

        async let services = gattError { try await h.client.discoverPrimaryServices() }
        try await h.peer.answer("10 0100 ffff 0028", with: "11 06 0100 0500 0018")
        // A group that starts inside the previous one.
        try await h.peer.answer("10 0600 ffff 0028", with: "11 06 0500 0900 0118")
        #expect(await services?.code == .malformedResponse)
        await h.client.close()
    }

    @Test("descriptors across several Find Information responses, stopping at the characteristic's end")
    func discoverDescriptors() async throws {
        let h = Harness()
        let characteristic = Self.acceleration
        async let descriptors = h.client.discoverDescriptors(of: characteristic)
        try await h.peer.answer("04 1100 1400", with: "05 01 1100 0229")
        try await h.peer.answer("04 1200 1400", with: "05 02 1200 \(SDUFixture.serviceLE)")
        try await h.peer.answer("04 1300 1400", with: "05 01 1300 0129 1400 0429")
        #expect(
            try await descriptors == [
                GATTDescriptor(handle: 0x11, uuid: .clientCharacteristicConfiguration),
                GATTDescriptor(handle: 0x12, uuid: SDUFixture.serviceUUID),
                GATTDescriptor(handle: 0x13, uuid: BluetoothUUID(0x2901)),
                GATTDescriptor(handle: 0x14, uuid: BluetoothUUID(0x2904)),
            ])
        // A characteristic without room for descriptors needs no request at all.
        let bare = GATTCharacteristic(
            uuid: .modelNumberString, declarationHandle: 0x0B, valueHandle: 0x0C, properties: .read, endHandle: 0x0C)
        #expect(try await h.client.discoverDescriptors(of: bare).isEmpty)
        await h.client.close()
        #expect(try await h.peer.receive() == nil)
    }

    @Test("the SDU accelerometer is found by service and characteristic UUID")
    func findAcceleration() async throws {
        let h = Harness()
        async let found = h.client.characteristic(SDUFixture.accelerationUUID, inService: SDUFixture.serviceUUID)
        try await h.peer.answer("06 0100 ffff 0028 \(SDUFixture.serviceLE)", with: "07 0a00 1400")
        try await h.peer.answer("06 1500 ffff 0028 \(SDUFixture.serviceLE)", with: "01 06 1500 0a")
        try await h.peer.answer("08 0a00 1400 0328", with: "09 15 0f00 10 1000 \(SDUFixture.accelerationLE)")
        try await h.peer.answer("08 1000 1400 0328", with: "01 08 1000 0a")
        #expect(try await found == Self.acceleration)
        await h.client.close()
    }

    @Test("enabling notifications writes 0x0001 to the CCCD; indications 0x0002")
    func enableNotifications() async throws {
        let h = Harness()
        async let enabled: Void = h.client.enableNotifications(for: Self.acceleration)
        try await h.peer.answer("04 1100 1400", with: "05 01 1100 0229 1200 0129")
        try await h.peer.answer("04 1300 1400", with: "01 04 1300 0a")
        try await h.peer.answer("12 1100 0100", with: "13")
        try await enabled

        async let indications: Void = h.client.enableIndications(for: Self.acceleration)
        try await h.peer.answer("04 1100 1400", with: "05 01 1100 0229 1200 0129")
        try await h.peer.answer("04 1300 1400", with: "01 04 1300 0a")
        try await h.peer.answer("12 1100 0200", with: "13")
        try await indications
        await h.client.close()
    }

    @Test("a characteristic without a CCCD cannot be enabled")
    func enableWithoutCCCD() async throws {
        let h = Harness()
        async let error = gattError { try await h.client.enableNotifications(for: Self.acceleration) }
        try await h.peer.answer("04 1100 1400", with: "05 01 1100 0129")
        try await h.peer.answer("04 1200 1400", with: "01 04 1200 0a")
        #expect(await error?.code == .notFound)
        await h.client.close()
    }

    @Test("notifications arrive in order with exact values and the clock's arrival instant")
    func notificationsInOrder() async throws {
        let h = Harness()
        var iterator = h.notifications.makeAsyncIterator()
        try await h.peer.send("1b 1000 0100 0040 0000 00c0")
        let first = try #require(try await iterator.next())
        #expect(first.handle == 0x0010)
        #expect(first.value == [0x01, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0xC0])
        #expect(!first.isIndication)
        #expect(first.receivedAt == ManualClock.Instant(offset: .zero))

        h.clock.advance(by: .milliseconds(20))
        for counter in 2...50 {
            try await h.peer.send("1b 1000 " + [UInt8(counter), 0, 0xFF, 0x7F, 0, 0x80, 1, 0].hexString)
        }
        for counter in 2...50 {
            let notification = try #require(try await iterator.next())
            #expect(notification.value == [UInt8(counter), 0, 0xFF, 0x7F, 0, 0x80, 1, 0])
            #expect(notification.receivedAt == ManualClock.Instant(offset: .milliseconds(20)))
        }
        #expect(h.client.statistics.notificationsReceived == 50)
        await h.client.close()
        #expect(try await iterator.next() == nil)
    }

    @Test("an indication is delivered and confirmed")
    func indicationConfirmed() async throws {
        let h = Harness()
        var iterator = h.notifications.makeAsyncIterator()
        try await h.peer.send("1d 1000 aabb")
        try await h.peer.expect("1e")
        let indication = try #require(try await iterator.next())
        #expect(indication.isIndication)
        #expect(indication.handle == 0x0010)
        #expect(indication.value == [0xAA, 0xBB])
        await h.client.close()
    }

    @Test(
        "requests from the peer are answered with Request Not Supported",
        arguments: [
            ("0a 0300", "01 0a 0300 06"),  // Read Request: its handle
            ("02 f700", "01 02 0000 06"),  // Exchange MTU Request: handle 0
            ("12 0500 0102", "01 12 0500 06"),  // Write Request
            ("08 0100 ffff 0028", "01 08 0100 06"),  // Read By Type: the range's start
            ("0e 0100 0200", "01 0e 0000 06"),  // Read Multiple: defined but not modelled
            ("3f 0102", "01 3f 0000 06"),  // undefined opcode without the command flag
            ("0a 03", "01 0a 0000 06"),  // malformed Read Request
        ])
    func peerRequestsAnswered(request: String, answer: String) async throws {
        let h = Harness()
        try await h.peer.send(request)
        try await h.peer.expect(answer)
        #expect(h.client.statistics.unsupportedRequestsAnswered == 1)
        await h.client.close()
    }

    @Test("commands from the peer are ignored, defined or not")
    func commandsIgnored() async throws {
        let h = Harness()
        try await h.peer.send("52 0300 01")  // Write Command
        try await h.peer.send("7f 0102")  // undefined, command flag set
        try await h.peer.send("d2 0300 01" + String(repeating: "00", count: 12))  // Signed Write Command
        try await h.peer.send("0a 0500")
        // The first answer the peer gets is the one to its Read Request.
        try await h.peer.expect("01 0a 0500 06")
        #expect(h.client.statistics.commandsIgnored == 3)
        await h.client.close()
    }

    @Test("one outstanding request: the second goes out only after the first is answered")
    func oneOutstandingRequest() async throws {
        let (near, far) = LoopbackATTBearer.pair()
        let recorder = RecordingBearer(inner: near)
        let client = GATTClient(bearer: recorder, clock: ManualClock())
        let peer = ScriptedPeer(bearer: far)
        async let a = client.read(handle: 0x0003)
        async let b = client.read(handle: 0x0005)
        let first = try #require(try await peer.receive())
        #expect(await eventually { client.statistics.queuedRequests == 1 })
        try await peer.send(first == [0x0A, 0x03, 0x00] ? "0b 03" : "0b 05")
        let second = try #require(try await peer.receive())
        #expect(Set([first, second]) == [[0x0A, 0x03, 0x00], [0x0A, 0x05, 0x00]])
        try await peer.send(second == [0x0A, 0x03, 0x00] ? "0b 03" : "0b 05")
        #expect(try await a == [0x03])
        #expect(try await b == [0x05])
        let firstAnswer = first == [0x0A, 0x03, 0x00] ? "0b03" : "0b05"
        let secondAnswer = first == [0x0A, 0x03, 0x00] ? "0b05" : "0b03"
        #expect(
            recorder.events == [
                "tx " + first.hexString, "rx " + firstAnswer, "tx " + second.hexString, "rx " + secondAnswer,
            ])
        await client.close()
    }

    @Test("a long value is read with Read Blob continuation")
    func readBlob() async throws {
        let h = Harness()
        let value = (0..<27).map { UInt8($0) }
        async let read = h.client.read(handle: 0x000C)
        try await h.peer.answer("0a 0c00", with: "0b" + Array(value.prefix(22)).hexString)
        try await h.peer.answer("0c 0c00 1600", with: "0d" + Array(value.dropFirst(22)).hexString)
        #expect(try await read == value)

        // Exactly MTU − 1 bytes: the blob read finds nothing more.
        async let exact = h.client.read(handle: 0x000C)
        try await h.peer.answer("0a 0c00", with: "0b" + Array(value.prefix(22)).hexString)
        try await h.peer.answer("0c 0c00 1600", with: "01 0c 0c00 0b")
        #expect(try await exact == Array(value.prefix(22)))
        await h.client.close()
    }

    @Test("writes: Write Request waits for the response, Write Command does not")
    func writes() async throws {
        let h = Harness()
        async let written: Void = h.client.write(handle: 0x0020, value: [0x01, 0x02])
        try await h.peer.answer("12 2000 0102", with: "13")
        try await written
        try await h.client.writeWithoutResponse(handle: 0x0021, value: [0xFF])
        try await h.peer.expect("52 2100 ff")
        let tooLong = await gattError {
            try await h.client.write(handle: 0x0020, value: Array(repeating: 0, count: 21))
        }
        #expect(tooLong?.code == .invalidArgument)
        await h.client.close()
    }

    @Test("an Error Response maps to GATTError with the ATT code, request and handle")
    func errorResponse() async throws {
        let h = Harness()
        async let error = gattError { try await h.client.read(handle: 0x0003) }
        try await h.peer.answer("0a 0300", with: "01 0a 0300 02")
        let failure = try #require(await error)
        #expect(failure.code == .attError(.readNotPermitted))
        #expect(failure.requestOpcode == .readRequest)
        #expect(failure.handle == 0x0003)
        // The link survives an Error Response.
        async let value = h.client.read(handle: 0x0004)
        try await h.peer.answer("0a 0400", with: "0b 2a")
        #expect(try await value == [0x2A])
        await h.client.close()
    }

    @Test("a silent peer times out after 30 s of manual time; the link is closed for good")
    func timeout() async throws {
        let h = Harness()
        var iterator = h.notifications.makeAsyncIterator()
        async let error = gattError { try await h.client.read(handle: 0x0003) }
        try await h.peer.expect("0a 0300")
        try await h.clock.waitForSleepers(count: 1)
        h.clock.advance(by: .seconds(29))
        #expect(h.clock.sleepers == 1)
        #expect(h.client.statistics.hasOutstandingRequest)
        h.clock.advance(by: .seconds(1))
        let failure = try #require(await error)
        #expect(failure.code == .timeout)
        #expect(failure.requestOpcode == .readRequest)
        #expect(failure.handle == 0x0003)
        #expect(failure.message.contains("move it closer or restart it"))
        // The bearer was closed: the peer sees the end of the link, nothing more.
        #expect(try await h.peer.receive() == nil)
        // Later requests fail at once, without a PDU.
        let later = await gattError { try await h.client.read(handle: 0x0004) }
        #expect(later?.code == .timeout)
        let notificationError = await gattError { try await iterator.next() }
        #expect(notificationError?.code == .timeout)
        #expect(h.client.closedBecause?.code == .timeout)
        await h.client.close()
    }

    @Test("an answered request stops its timer")
    func timerStopped() async throws {
        let h = Harness()
        async let value = h.client.read(handle: 0x0003)
        try await h.peer.expect("0a 0300")
        try await h.clock.waitForSleepers(count: 1)
        try await h.peer.send("0b 01")
        #expect(try await value == [0x01])
        #expect(await eventually { h.clock.sleepers == 0 })
        h.clock.advance(by: .seconds(60))
        async let next = h.client.read(handle: 0x0004)
        try await h.peer.answer("0a 0400", with: "0b 02")
        #expect(try await next == [0x02])
        await h.client.close()
    }

    @Test("malformed PDUs are counted and dropped, the link carries on")
    func malformed() async throws {
        let h = Harness()
        var iterator = h.notifications.makeAsyncIterator()
        try await h.peer.send("1b 10")  // truncated notification
        try await h.peer.send("")  // empty PDU
        try await h.peer.send("09 07 0b00")  // malformed response, nothing outstanding
        try await h.peer.send("1b 1000 01")
        let notification = try #require(try await iterator.next())
        #expect(notification.value == [0x01])
        #expect(h.client.malformedPDUCount == 3)

        // A malformed answer completes its request with malformedResponse; the link stays up.
        async let mtu = gattError { try await h.client.exchangeMTU() }
        try await h.peer.answer("02 f700", with: "03 1000")  // MTU 16 is below the minimum
        #expect(await mtu?.code == .malformedResponse)
        async let value = h.client.read(handle: 0x0003)
        try await h.peer.answer("0a 0300", with: "0b 07")
        #expect(try await value == [0x07])
        #expect(h.client.malformedPDUCount == 4)
        await h.client.close()
    }

    @Test("a response that does not answer the request is a protocol violation that closes the link")
    func mismatchedResponse() async throws {
        let h = Harness()
        async let error = gattError { try await h.client.read(handle: 0x0003) }
        try await h.peer.answer("0a 0300", with: "13")
        #expect(await error?.code == .protocolViolation)
        #expect(try await h.peer.receive() == nil)
        await h.client.close()
    }

    @Test("the peer closing mid-request fails it with disconnected and ends the notifications")
    func peerCloses() async throws {
        let h = Harness()
        var iterator = h.notifications.makeAsyncIterator()
        async let error = gattError { try await h.client.read(handle: 0x0003) }
        try await h.peer.expect("0a 0300")
        await h.peer.bearer.close()
        #expect(await error?.code == .disconnected)
        let notificationError = await gattError { try await iterator.next() }
        #expect(notificationError?.code == .disconnected)
        let later = await gattError { try await h.client.writeWithoutResponse(handle: 1, value: [1]) }
        #expect(later?.code == .disconnected)
        await h.client.close()
    }

    @Test("close() fails queued requests and finishes the notifications normally")
    func localClose() async throws {
        let h = Harness()
        var iterator = h.notifications.makeAsyncIterator()
        async let error = gattError { try await h.client.read(handle: 0x0003) }
        try await h.peer.expect("0a 0300")
        await h.client.close()
        #expect(await error?.code == .disconnected)
        #expect(try await iterator.next() == nil)
        #expect(try await h.peer.receive() == nil)
    }

    static let acceleration = GATTCharacteristic(
        uuid: SDUFixture.accelerationUUID, declarationHandle: 0x0F, valueHandle: 0x10, properties: .notify,
        endHandle: 0x14)
}
