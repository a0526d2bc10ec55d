// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GatewayTesting
import Testing

@Suite("ACL and L2CAP")
struct L2CAPTests {
    /// An SDU notification (handle 0x0025, counter 7, one sample) in an L2CAP frame on CID 4.
    static let frameBytes = [UInt8](hex: "0b00 0400 1b 2500 0700 0040 00c0 0100")

    @Test("ACL header: 12-bit handle, boundary and broadcast flags, length")
    func aclHeader() throws {
        let bytes = [UInt8](hex: "4020 0f00") + Self.frameBytes
        let packet = try HCIACLDataPacket(parsing: bytes)
        #expect(packet.handle == 0x0040)
        #expect(packet.packetBoundary == .firstFlushable)
        #expect(packet.broadcast == 0)
        #expect(packet.data == Self.frameBytes)
        var out: [UInt8] = []
        packet.encode(into: &out)
        #expect(out == bytes)
        let continuation = try HCIACLDataPacket(parsing: [UInt8](hex: "4f1e 0100 aa"))
        #expect(continuation.handle == 0x0E4F && continuation.packetBoundary == .continuation)
        #expect(try HCIACLDataPacket(parsing: [UInt8](hex: "4100 0000")).packetBoundary == .firstNonFlushable)
        #expect(wireErrorCode { _ = try HCIACLDataPacket(parsing: [UInt8](hex: "4020 0f00 0b00")) } == .truncated)
        #expect(wireErrorCode { _ = try HCIACLDataPacket(parsing: [UInt8](hex: "4020 0000 00")) } == .wrongLength)
        #expect(wireErrorCode { _ = try HCIACLDataPacket(parsing: [UInt8](hex: "40")) } == .truncated)
    }

    @Test("basic frame: length and channel id")
    func basicFrame() throws {
        let frame = try L2CAPBasicFrame(parsing: Self.frameBytes)
        #expect(frame.channelID == L2CAPBasicFrame.attributeProtocolCID)
        #expect(frame.payload == [UInt8](hex: "1b 2500 0700 0040 00c0 0100"))
        var out: [UInt8] = []
        frame.encode(into: &out)
        #expect(out == Self.frameBytes)
        #expect(wireErrorCode { _ = try L2CAPBasicFrame(parsing: Self.frameBytes.dropLast()) } == .truncated)
        #expect(wireErrorCode { _ = try L2CAPBasicFrame(parsing: Self.frameBytes + [0]) } == .wrongLength)
        #expect(wireErrorCode { _ = try L2CAPBasicFrame(parsing: [0x0B, 0x00, 0x04]) } == .truncated)
    }

    @Test("a frame split across fragments, header split too, reassembles")
    func reassembly() throws {
        let frame = try L2CAPBasicFrame(parsing: Self.frameBytes)
        for size in [1, 2, 3, 5, 8, 14, 15, 27] {
            var reassembler = L2CAPReassembler()
            var frames: [L2CAPReassembler.Frame] = []
            let fragments = frame.fragments(handle: 0x40, fragmentSize: size, firstBoundary: .firstFlushable)
            #expect(fragments.count == (Self.frameBytes.count + size - 1) / size)
            for fragment in fragments {
                let output = reassembler.push(fragment)
                #expect(output.drops.isEmpty)
                frames += output.frames
            }
            #expect(frames == [L2CAPReassembler.Frame(handle: 0x40, frame: frame)])
            #expect(reassembler.bufferedByteCount == 0)
        }
    }

    @Test("fragments of two handles interleave without mixing")
    func twoHandles() throws {
        let a = L2CAPBasicFrame(channelID: 4, payload: [0x1B, 0x25, 0x00, 1, 2, 3, 4, 5])
        let b = L2CAPBasicFrame(channelID: 4, payload: [0x1B, 0x28, 0x00, 9, 8, 7, 6, 5])
        let fa = a.fragments(handle: 0x40, fragmentSize: 5)
        let fb = b.fragments(handle: 0x41, fragmentSize: 5)
        var reassembler = L2CAPReassembler()
        var frames: [L2CAPReassembler.Frame] = []
        for (x, y) in zip(fa, fb) {
            frames += reassembler.push(x).frames
            frames += reassembler.push(y).frames
        }
        #expect(frames == [.init(handle: 0x40, frame: a), .init(handle: 0x41, frame: b)])
    }

    @Test("a continuation without a start is dropped and reported")
    func orphanContinuation() {
        var reassembler = L2CAPReassembler()
        let output = reassembler.push(HCIACLDataPacket(handle: 0x40, packetBoundary: .continuation, data: [1, 2, 3]))
        #expect(output.frames.isEmpty)
        #expect(output.drops == [.init(handle: 0x40, reason: .continuationWithoutStart, byteCount: 3)])
    }

    @Test("fragments carrying more than the declared length are dropped as overflow")
    func overflow() {
        var reassembler = L2CAPReassembler()
        // Declares 4 payload bytes; the start brings 2, the continuation 5.
        #expect(
            reassembler.push(
                HCIACLDataPacket(handle: 0x40, packetBoundary: .firstFlushable, data: [UInt8](hex: "0400 0400 1b25")))
                == .init())
        let output = reassembler.push(
            HCIACLDataPacket(handle: 0x40, packetBoundary: .continuation, data: [0, 1, 2, 3, 4]))
        #expect(output.frames.isEmpty)
        #expect(output.drops == [.init(handle: 0x40, reason: .overflow, byteCount: 11)])
        #expect(reassembler.bufferedByteCount == 0)
        // A start that already exceeds its length is overflow too.
        let single = reassembler.push(
            HCIACLDataPacket(handle: 0x40, packetBoundary: .firstFlushable, data: [UInt8](hex: "0100 0400 1b 00")))
        #expect(single.drops.map(\.reason) == [.overflow])
    }

    @Test("a start before the previous frame completed drops the previous frame")
    func interrupted() {
        var reassembler = L2CAPReassembler()
        _ = reassembler.push(
            HCIACLDataPacket(handle: 0x40, packetBoundary: .firstFlushable, data: [UInt8](hex: "0800 0400 1b25")))
        let output = reassembler.push(
            HCIACLDataPacket(handle: 0x40, packetBoundary: .firstFlushable, data: [UInt8](hex: "0100 0400 13")))
        #expect(output.drops == [.init(handle: 0x40, reason: .interruptedByStart, byteCount: 6)])
        #expect(output.frames == [.init(handle: 0x40, frame: L2CAPBasicFrame(channelID: 4, payload: [0x13]))])
    }

    @Test("memory is bounded: a frame declaring more than the limit is never buffered")
    func bounded() {
        var reassembler = L2CAPReassembler(maximumFrameSize: 100)
        let output = reassembler.push(
            HCIACLDataPacket(handle: 0x40, packetBoundary: .firstFlushable, data: [UInt8](hex: "e803 0400 1b25")))
        #expect(output.drops == [.init(handle: 0x40, reason: .exceedsBufferLimit, byteCount: 6)])
        #expect(reassembler.bufferedByteCount == 0)
        // Its continuations are then orphans, not buffered either.
        let next = reassembler.push(
            HCIACLDataPacket(handle: 0x40, packetBoundary: .continuation, data: [UInt8](repeating: 0, count: 50)))
        #expect(next.drops.map(\.reason) == [.continuationWithoutStart])
        #expect(reassembler.bufferedByteCount == 0)
        // A frame at the limit still passes.
        let frame = L2CAPBasicFrame(channelID: 4, payload: [UInt8](repeating: 7, count: 100))
        var frames: [L2CAPReassembler.Frame] = []
        for fragment in frame.fragments(handle: 0x40, fragmentSize: 27) {
            frames += reassembler.push(fragment).frames
            #expect(reassembler.bufferedByteCount <= 104)
        }
        #expect(frames.count == 1)
    }

    @Test("discarding a handle reports its partial frame")
    func discard() {
        var reassembler = L2CAPReassembler()
        _ = reassembler.push(
            HCIACLDataPacket(handle: 0x40, packetBoundary: .firstFlushable, data: [UInt8](hex: "0800 0400 1b")))
        #expect(reassembler.discard(handle: 0x40) == .init(handle: 0x40, reason: .discarded, byteCount: 5))
        #expect(reassembler.discard(handle: 0x40) == nil)
        #expect(reassembler.bufferedByteCount == 0)
    }
}
