// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GatewayTesting
import SDUSensor
import Testing
import VirtualSensor

/// The SDU sensor's GATT server answering raw request PDUs, checked byte for byte.
@Suite("GATT server protocol logic")
struct GATTServerTests {
    /// The SDU service UUID little-endian, as on the wire.
    static let serviceLE = "1bc5d5a5020048b1e311318f1000c7a2"
    /// The accelerometer characteristic UUID little-endian.
    static let accelerometerLE = "1bc5d5a5020048b1e311318f3100c7a2"
    static let name = "BC05FC978B7510AB"

    static func configuration(serverMTU: UInt16 = 23) -> VirtualSensorConfiguration {
        VirtualSensorConfiguration(seed: 7, name: name, serverMTU: serverMTU)
    }

    static func server(serverMTU: UInt16 = 23) -> GATTServer {
        let configuration = configuration(serverMTU: serverMTU)
        return GATTServer(database: .sduSensor(configuration), serverMTU: Int(configuration.serverMTU))
    }

    /// Handles `request` and returns the hex of the one PDU sent, or nil when none was.
    static func reply(_ server: inout GATTServer, _ request: String) -> String? {
        let sent = server.handle([UInt8](hex: request)).compactMap { action -> [UInt8]? in
            if case .send(let bytes) = action { return bytes }
            return nil
        }
        #expect(sent.count <= 1, "a request is answered exactly once")
        return sent.first?.hexString
    }

    @Test("the table lays out 4 services in the documented handle ranges")
    func tableLayout() throws {
        let database = GATTDatabase.sduSensor(Self.configuration())
        let services = database.primaryServices
        #expect(services.map(\.uuid) == [.genericAccess, .genericAttribute, .deviceInformation, SDUProfile.service])
        #expect(
            services.map(\.range) == [
                ATTHandleRange(start: 0x01, end: 0x05), ATTHandleRange(start: 0x06, end: 0x09),
                ATTHandleRange(start: 0x0A, end: 0x12), ATTHandleRange(start: 0x13, end: 0x16),
            ])
        #expect(database.sduAccelerometerValueHandle == 0x15)
        #expect(database.configurationDescriptorHandle(ofValueHandle: 0x15) == 0x16)
        #expect(database.configurationDescriptorHandle(ofValueHandle: 0x08) == 0x09)
        #expect(database.configurationDescriptorHandle(ofValueHandle: 0x03) == nil)
        let accelerometer = try #require(database.attribute(at: 0x15))
        #expect(accelerometer.value.isEmpty)
        #expect(accelerometer.permissions.isEmpty)
        #expect(database.attribute(at: 0) == nil)
        #expect(database.attribute(at: 0x17) == nil)
    }

    @Test("the builder adds declaration, value and an automatic CCCD; descriptors follow")
    func builder() {
        var builder = GATTDatabase.Builder()
        let service = builder.addPrimaryService(BluetoothUUID(0x180D))
        let measurement = builder.addCharacteristic(BluetoothUUID(0x2A37), properties: [.notify, .read], value: [1])
        let description = builder.addDescriptor(BluetoothUUID(0x2901), value: Array("rate".utf8))
        let control = builder.addCharacteristic(BluetoothUUID(0x2A39), properties: .write, value: [0])
        let database = builder.build()
        #expect(service == 1)
        #expect(measurement == .init(declaration: 2, value: 3, configuration: 4))
        #expect(description == 5)
        #expect(control == .init(declaration: 6, value: 7, configuration: nil))
        #expect(database.attribute(at: 2)?.value.hexString == "1203" + "00" + "372a")
        #expect(database.attribute(at: 3)?.permissions == .readable)
        #expect(database.attribute(at: 4)?.permissions == [.readable, .writable])
        #expect(database.attribute(at: 7)?.permissions == .writable)
        #expect(database.characteristic(ofDescriptor: 5)?.valueHandle == 3)
        #expect(database.characteristic(ofDescriptor: 3) == nil)
        #expect(database.groupEnd(of: 1) == 7)
    }

    @Test("Read By Group Type discovers exactly the 4 primary services, 16-bit and 128-bit apart")
    func discoverPrimaryServices() {
        var server = Self.server()
        #expect(Self.reply(&server, "10 0100 ffff 0028") == "1106" + "010005000018" + "060009000118" + "0a0012000a18")
        #expect(Self.reply(&server, "10 1300 ffff 0028") == "1114" + "13001600" + Self.serviceLE)
        #expect(Self.reply(&server, "10 1700 ffff 0028") == "0110" + "1700" + "0a")
    }

    @Test("Read By Group Type: secondary services none, other types unsupported, bad ranges invalid")
    func groupTypeErrors() {
        var server = Self.server()
        #expect(Self.reply(&server, "10 0100 ffff 0128") == "0110" + "0100" + "0a")
        #expect(Self.reply(&server, "10 0100 ffff 0328") == "0110" + "0100" + "10")
        #expect(Self.reply(&server, "10 0000 ffff 0028") == "0110" + "0000" + "01")
        #expect(Self.reply(&server, "10 0500 0400 0028") == "0110" + "0500" + "01")
    }

    @Test("Find By Type Value finds the SDU service by UUID, and only that")
    func findServiceByUUID() {
        var server = Self.server()
        #expect(Self.reply(&server, "06 0100 ffff 0028" + Self.serviceLE) == "07" + "1300" + "1600")
        #expect(Self.reply(&server, "06 0100 ffff 0028 0a18") == "07" + "0a00" + "1200")
        #expect(Self.reply(&server, "06 1400 ffff 0028" + Self.serviceLE) == "0106" + "1400" + "0a")
        #expect(Self.reply(&server, "06 0100 ffff 0028 0d18") == "0106" + "0100" + "0a")
        #expect(Self.reply(&server, "06 0300 0200 0028 0d18") == "0106" + "0300" + "01")
    }

    @Test("Read By Type 0x2803 lists the SDU characteristic declaration: 10 <value handle> <uuid>")
    func discoverCharacteristics() {
        var server = Self.server()
        #expect(Self.reply(&server, "08 1300 1600 0328") == "0915" + "1400" + "10" + "1500" + Self.accelerometerLE)
        #expect(Self.reply(&server, "08 1500 1600 0328") == "0108" + "1500" + "0a")
        #expect(Self.reply(&server, "08 0100 0500 0328") == "0907" + "0200" + "020300002a" + "0400" + "020500012a")
    }

    @Test("Read By Type keeps values of one length and within the MTU in each response")
    func readByTypeLimits() {
        var server = Self.server()
        // Three 7-byte declarations fill (23 − 2) bytes; the fourth waits for the next request.
        #expect(
            Self.reply(&server, "08 0100 ffff 0328")
                == "0907" + "0200" + "020300002a" + "0400" + "020500012a" + "0700" + "200800052a")
        // 0x0011 is 7 bytes, 0x0014 is 19: they never share a response.
        #expect(Self.reply(&server, "08 1100 ffff 0328") == "0907" + "1100" + "021200262a")
        // A value longer than MTU − 4 is cut to 19 bytes.
        let model = Array("SDU virtual sensor (emulated)".utf8)
        #expect(Self.reply(&server, "08 0100 ffff 242a") == "0915" + "0e00" + Array(model.prefix(19)).hexString)
        #expect(Self.reply(&server, "08 0100 ffff 002a") == "0912" + "0300" + Array(Self.name.utf8).hexString)
    }

    @Test("Read By Type errors: not readable, none found, bad range, 128-bit type")
    func readByTypeErrors() {
        var server = Self.server()
        #expect(Self.reply(&server, "08 0100 ffff 052a") == "0108" + "0800" + "02")
        #expect(Self.reply(&server, "08 0100 ffff" + Self.accelerometerLE) == "0108" + "1500" + "02")
        #expect(Self.reply(&server, "08 0100 ffff 372a") == "0108" + "0100" + "0a")
        #expect(Self.reply(&server, "08 0000 ffff 0328") == "0108" + "0000" + "01")
        #expect(Self.reply(&server, "08 0900 0800 0328") == "0108" + "0900" + "01")
    }

    @Test("Find Information finds the CCCD and never mixes 16-bit and 128-bit types")
    func findInformation() {
        var server = Self.server()
        #expect(Self.reply(&server, "04 1600 1600") == "0501" + "1600" + "0229")
        #expect(Self.reply(&server, "04 1400 1600") == "0501" + "1400" + "0328")
        #expect(Self.reply(&server, "04 1500 1600") == "0502" + "1500" + Self.accelerometerLE)
        #expect(Self.reply(&server, "04 1700 ffff") == "0104" + "1700" + "0a")
        // Five 4-byte entries fill (23 − 2) bytes.
        #expect(
            Self.reply(&server, "04 0100 ffff")
                == "0501" + "01000028" + "02000328" + "0300002a" + "04000328" + "0500012a")
        #expect(Self.reply(&server, "04 0000 ffff") == "0104" + "0000" + "01")
        #expect(Self.reply(&server, "04 0300 0200") == "0104" + "0300" + "01")
    }

    @Test("Read returns the device name; errors for unreadable and unknown handles")
    func read() {
        var server = Self.server()
        #expect(Self.reply(&server, "0a 0300") == "0b" + Array(Self.name.utf8).hexString)
        #expect(Self.reply(&server, "0a 0500") == "0b" + "4005")
        #expect(Self.reply(&server, "0a 1600") == "0b" + "0000")
        #expect(Self.reply(&server, "0a 1500") == "010a" + "1500" + "02")
        #expect(Self.reply(&server, "0a 0800") == "010a" + "0800" + "02")
        #expect(Self.reply(&server, "0a 0000") == "010a" + "0000" + "01")
        #expect(Self.reply(&server, "0a 1700") == "010a" + "1700" + "01")
    }

    @Test("Read Blob continues a long value; short values are not long; offsets past the end fail")
    func readBlob() {
        var server = Self.server()
        let model = Array("SDU virtual sensor (emulated)".utf8)
        #expect(model.count == 29)
        #expect(Self.reply(&server, "0a 0e00") == "0b" + Array(model.prefix(22)).hexString)
        #expect(Self.reply(&server, "0c 0e00 1600") == "0d" + Array(model.suffix(7)).hexString)
        #expect(Self.reply(&server, "0c 0e00 0000") == "0d" + Array(model.prefix(22)).hexString)
        #expect(Self.reply(&server, "0c 0e00 1d00") == "0d")
        #expect(Self.reply(&server, "0c 0e00 1e00") == "010c" + "0e00" + "07")
        #expect(Self.reply(&server, "0c 0300 0000") == "010c" + "0300" + "0b")
        #expect(Self.reply(&server, "0c 1500 0000") == "010c" + "1500" + "02")
        #expect(Self.reply(&server, "0c 2000 0000") == "010c" + "2000" + "01")
    }

    @Test("a CCCD write turns notifications on and off and is reported")
    func cccdWrite() {
        var server = Self.server()
        #expect(!server.isNotifying(valueHandle: 0x15))
        #expect(server.notification(valueHandle: 0x15, value: [1, 2]) == nil)
        let on = server.handle([UInt8](hex: "12 1600 0100"))
        #expect(on == [.send([0x13]), .configurationChanged(valueHandle: 0x15, notify: true, indicate: false)])
        #expect(server.isNotifying(valueHandle: 0x15))
        #expect(Self.reply(&server, "0a 1600") == "0b" + "0100")
        #expect(server.notification(valueHandle: 0x15, value: [1, 2])?.hexString == "1b1500" + "0102")
        // Indications are not a property of the accelerometer: the bit is stored but has no effect.
        let both = server.handle([UInt8](hex: "12 1600 0300"))
        #expect(both == [.send([0x13]), .configurationChanged(valueHandle: 0x15, notify: true, indicate: false)])
        let off = server.handle([UInt8](hex: "12 1600 0000"))
        #expect(off == [.send([0x13]), .configurationChanged(valueHandle: 0x15, notify: false, indicate: false)])
        #expect(server.notification(valueHandle: 0x15, value: [1, 2]) == nil)
        // The Service Changed CCCD enables indications only.
        let indicate = server.handle([UInt8](hex: "12 0900 0200"))
        #expect(indicate == [.send([0x13]), .configurationChanged(valueHandle: 0x08, notify: false, indicate: true)])
    }

    @Test("write errors: CCCD length, not writable, unknown handle, malformed")
    func writeErrors() {
        var server = Self.server()
        #expect(server.handle([UInt8](hex: "12 1600 01")) == [.send([UInt8](hex: "01 12 1600 0d"))])
        #expect(server.handle([UInt8](hex: "12 1600 010000")) == [.send([UInt8](hex: "01 12 1600 0d"))])
        #expect(Self.reply(&server, "12 0300 41") == "0112" + "0300" + "03")
        #expect(Self.reply(&server, "12 1500 0102") == "0112" + "1500" + "03")
        #expect(Self.reply(&server, "12 1700 0100") == "0112" + "1700" + "01")
        #expect(Self.reply(&server, "12 16") == "0112" + "0000" + "04")
        #expect(!server.isNotifying(valueHandle: 0x15))
        #expect(server.database.attribute(at: 0x03)?.value == Array(Self.name.utf8))
    }

    @Test("Write Command applies a CCCD write silently; its errors are silent too")
    func writeCommand() {
        var server = Self.server()
        #expect(server.handle([UInt8](hex: "52 1600 01")).isEmpty)
        #expect(server.handle([UInt8](hex: "52 0300 41")).isEmpty)
        #expect(server.handle([UInt8](hex: "52 1700 0100")).isEmpty)
        #expect(server.handle([UInt8](hex: "52 16")).isEmpty)
        #expect(!server.isNotifying(valueHandle: 0x15))
        #expect(
            server.handle([UInt8](hex: "52 1600 0100"))
                == [.configurationChanged(valueHandle: 0x15, notify: true, indicate: false)])
        #expect(server.isNotifying(valueHandle: 0x15))
    }

    @Test("unsupported requests get Request Not Supported; unsupported commands are ignored")
    func unsupported() {
        var server = Self.server()
        #expect(Self.reply(&server, "0e 0300 0500") == "010e" + "0000" + "06")
        #expect(Self.reply(&server, "16 1600 0000 0100") == "0116" + "0000" + "06")
        #expect(Self.reply(&server, "18 01") == "0118" + "0000" + "06")
        #expect(Self.reply(&server, "20 0300 0500") == "0120" + "0000" + "06")
        // 0x30 is not defined and has no command flag: treat as an unknown request.
        #expect(Self.reply(&server, "30 0102") == "0130" + "0000" + "06")
        #expect(server.handle([UInt8](hex: "d2 1600 0100 000000000000000000000000")).isEmpty)
        #expect(server.handle([UInt8](hex: "7f 00")).isEmpty)
        #expect(server.handle([]).isEmpty)
        // Responses and notifications are not the client's to send: ignored.
        #expect(server.handle([UInt8](hex: "0b 00")).isEmpty)
        #expect(server.handle([UInt8](hex: "1b 1500 00")).isEmpty)
        #expect(server.handle([UInt8](hex: "1e")) == [.indicationConfirmed])
    }

    @Test(
        "malformed requests get Invalid PDU", arguments: ["04 0100", "0a 03", "0c 0300 00", "08 0100 ffff 00", "02 17"])
    func malformed(request: String) {
        var server = Self.server()
        let opcode = [UInt8](hex: request)[0]
        #expect(Self.reply(&server, request) == "01" + [opcode].hexString + "0000" + "04")
    }

    @Test("Exchange MTU: effective MTU is min(client, server), at least 23; a second exchange is answered")
    func exchangeMTU() {
        var small = Self.server()
        #expect(small.handle([UInt8](hex: "02 f700")) == [.send([UInt8](hex: "03 1700")), .mtuChanged(23)])
        #expect(small.mtu == 23)

        var large = Self.server(serverMTU: 247)
        #expect(large.mtu == 23)
        #expect(large.handle([UInt8](hex: "02 6400")) == [.send([UInt8](hex: "03 f700")), .mtuChanged(100)])
        #expect(large.mtu == 100)
        #expect(large.handle([UInt8](hex: "02 f700")) == [.send([UInt8](hex: "03 f700"))])
        #expect(large.mtu == 100)

        var tiny = Self.server(serverMTU: 247)
        #expect(tiny.handle([UInt8](hex: "02 0a00")) == [.send([UInt8](hex: "03 f700")), .mtuChanged(23)])
    }

    @Test("a larger MTU lets discovery answer more per response and notifications carry more")
    func largerMTU() {
        var server = Self.server(serverMTU: 247)
        _ = server.handle([UInt8](hex: "02 f700"))
        #expect(
            Self.reply(&server, "10 0100 ffff 0028")
                == "1106" + "010005000018" + "060009000118" + "0a0012000a18")
        let model = Array("SDU virtual sensor (emulated)".utf8)
        #expect(Self.reply(&server, "0a 0e00") == "0b" + model.hexString)
        #expect(Self.reply(&server, "0c 0e00 0000") == "010c" + "0e00" + "0b")
        _ = server.handle([UInt8](hex: "12 1600 0100"))
        let value = [UInt8](repeating: 0xAB, count: 242)
        #expect(server.notification(valueHandle: 0x15, value: value)?.count == 245)
    }

    @Test("notifications carry at most MTU − 3 bytes; MTU 23 means 3 samples")
    func notificationSize() throws {
        var server = Self.server()
        _ = server.handle([UInt8](hex: "12 1600 0100"))
        let long = [UInt8](repeating: 0x5A, count: 30)
        let notified = server.notification(valueHandle: 0x15, value: long)
        let pdu = try #require(notified)
        #expect(pdu.count == 23)
        #expect(pdu.hexString == "1b1500" + Array(long.prefix(20)).hexString)
        #expect(server.database.attribute(at: 0x15)?.value == long)

        let configuration = Self.configuration()
        #expect(VirtualSensorConfiguration.samplesFitting(mtu: 23) == 3)
        #expect(configuration.samplesPerNotification(mtu: server.mtu) == 3)
        #expect(configuration.samplesPerNotification(mtu: 247) == 40)
        var capped = configuration
        capped.samplesPerNotification = 2
        #expect(capped.samplesPerNotification(mtu: 247) == 2)

        var generator = NotificationGenerator(configuration: configuration)
        var source = ConstantAccelerationSource(RawAcceleration(x: 1, y: -2, z: 16384))
        let next = generator.next(carrying: 3, from: &source)
        let notification = try #require(next)
        #expect(notification.payload.count == 20)
        let sentBytes = server.notification(valueHandle: 0x15, value: notification.payload)
        let sent = try #require(sentBytes)
        #expect(sent.count == 23)
        #expect(Array(sent.suffix(18)).hexString == String(repeating: "0100" + "feff" + "0040", count: 3))
    }
}
