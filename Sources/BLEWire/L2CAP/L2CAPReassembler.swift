// SPDX-License-Identifier: GPL-2.0-or-later

/// Reassembles HCI ACL fragments into L2CAP basic frames, one partial frame per connection
/// handle, for one direction of traffic (host→controller and controller→host fragments of a
/// handle interleave, so keep one reassembler per direction).
///
/// Pure state machine: `push` returns the frames it completed and what it had to drop. Memory
/// is bounded: a frame whose declared length exceeds `maximumFrameSize` is never buffered, so
/// each handle holds at most `maximumFrameSize + 4` bytes.
public struct L2CAPReassembler: Sendable {
    /// One reassembled frame and the handle it arrived on.
    public struct Frame: Hashable, Sendable {
        /// The ACL connection handle.
        public var handle: UInt16
        /// The frame.
        public var frame: L2CAPBasicFrame

        /// Creates a value.
        public init(handle: UInt16, frame: L2CAPBasicFrame) {
            self.handle = handle
            self.frame = frame
        }
    }

    /// Why bytes were thrown away.
    public enum DropReason: Hashable, Sendable {
        /// A continuation fragment arrived with no frame in progress on its handle.
        case continuationWithoutStart
        /// Fragments carried more bytes than the frame's length field declared.
        case overflow
        /// A new start fragment arrived before the frame in progress was complete.
        case interruptedByStart
        /// The frame declares a length above `maximumFrameSize`.
        case exceedsBufferLimit
        /// The connection went away (see `discard(handle:)`) with a frame in progress.
        case discarded
    }

    /// Bytes thrown away, and why.
    public struct Drop: Hashable, Sendable {
        /// The ACL connection handle.
        public var handle: UInt16
        /// Why.
        public var reason: DropReason
        /// How many data bytes were discarded.
        public var byteCount: Int

        /// Creates a value.
        public init(handle: UInt16, reason: DropReason, byteCount: Int) {
            self.handle = handle
            self.reason = reason
            self.byteCount = byteCount
        }
    }

    /// What one `push` produced.
    public struct Output: Hashable, Sendable {
        /// Frames completed by this fragment (zero or one).
        public var frames: [Frame] = []
        /// Partial frames or fragments thrown away.
        public var drops: [Drop] = []

        /// Creates an empty value.
        public init() {}
    }

    /// The largest L2CAP payload buffered per handle.
    public let maximumFrameSize: Int
    private var partial: [UInt16: [UInt8]] = [:]

    /// Creates a reassembler. The default admits any payload a 16-bit L2CAP length can declare.
    public init(maximumFrameSize: Int = 0xFFFF) {
        self.maximumFrameSize = max(0, maximumFrameSize)
    }

    /// Bytes currently buffered across every handle.
    public var bufferedByteCount: Int { partial.values.reduce(0) { $0 + $1.count } }

    /// Feeds one ACL packet.
    public mutating func push(_ packet: HCIACLDataPacket) -> Output {
        var output = Output()
        let handle = packet.handle
        var buffer: [UInt8]
        if packet.packetBoundary.isStart {
            if let previous = partial.removeValue(forKey: handle) {
                output.drops.append(Drop(handle: handle, reason: .interruptedByStart, byteCount: previous.count))
            }
            buffer = packet.data
        } else {
            guard let previous = partial.removeValue(forKey: handle) else {
                output.drops.append(
                    Drop(handle: handle, reason: .continuationWithoutStart, byteCount: packet.data.count))
                return output
            }
            buffer = previous
            buffer.append(contentsOf: packet.data)
        }

        // The length field may itself be split across fragments.
        guard buffer.count >= L2CAPBasicFrame.headerSize else {
            partial[handle] = buffer
            return output
        }
        let declared = Int(buffer[0]) | Int(buffer[1]) << 8
        if declared > maximumFrameSize {
            output.drops.append(Drop(handle: handle, reason: .exceedsBufferLimit, byteCount: buffer.count))
            return output
        }
        let total = declared + L2CAPBasicFrame.headerSize
        if buffer.count > total {
            output.drops.append(Drop(handle: handle, reason: .overflow, byteCount: buffer.count))
        } else if buffer.count == total {
            let channel = UInt16(buffer[2]) | UInt16(buffer[3]) << 8
            output.frames.append(
                Frame(handle: handle, frame: L2CAPBasicFrame(channelID: channel, payload: Array(buffer[4...]))))
        } else {
            partial[handle] = buffer
        }
        return output
    }

    /// Forgets the frame in progress on `handle` (the connection closed); reports it if there was one.
    public mutating func discard(handle: UInt16) -> Drop? {
        guard let previous = partial.removeValue(forKey: handle & 0x0FFF) else { return nil }
        return Drop(handle: handle & 0x0FFF, reason: .discarded, byteCount: previous.count)
    }
}
