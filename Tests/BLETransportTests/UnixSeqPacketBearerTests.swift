// SPDX-License-Identifier: GPL-2.0-or-later
import BLEHarness
import BLETransport
import Foundation
import GatewayTesting
import Testing

extension DescriptorSuites {
    @Suite("SeqPacketBearer over a Unix socket another process listens on")
    struct UnixSeqPacketBearerTests {
        /// A fresh socket path in a temporary directory (short: `sun_path` holds 107 bytes).
        static func socketPath() throws -> (directory: String, path: String) {
            let directory = "/tmp/ss-unix-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            return (directory, directory + "/s.sock")
        }

        @Test("the hello arrives first and apart; PDUs then travel both ways with their boundaries")
        func helloThenPDUs() async throws {
            let (directory, path) = try Self.socketPath()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let listener = try UnixSeqPacketListener(path: path)
            defer { listener.close() }
            let near = try SeqPacketBearer.connecting(toUnixSocket: path, hello: Array("virtual-7".utf8))
            // The connection waits in the backlog, so a blocking accept returns at once.
            let (far, hello) = try listener.accept()
            #expect(String(decoding: hello, as: UTF8.self) == "virtual-7")
            let (nearPDUs, farPDUs) = (near.receivedPDUs(), far.receivedPDUs())
            try await near.send([0x02, 0x05, 0x02])
            try await near.send([0x1B])
            #expect(try await farPDUs.next() == [0x02, 0x05, 0x02])
            #expect(try await farPDUs.next() == [0x1B])
            try await far.send([0x03, 0xF7, 0x01])
            #expect(try await nearPDUs.next() == [0x03, 0xF7, 0x01])
            await far.close()
            #expect(try await nearPDUs.next() == nil)
            await near.close()
        }

        @Test("connecting where nothing listens is an error naming connect")
        func nothingListens() throws {
            let (directory, path) = try Self.socketPath()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            #expect {
                _ = try SeqPacketBearer.connecting(toUnixSocket: path)
            } throws: { error in
                (error as? TransportError)?.syscall == "connect"
            }
        }

        @Test("a path longer than sun_path is refused with the reason")
        func longPath() {
            let path = "/tmp/" + String(repeating: "x", count: 200)
            #expect {
                _ = try UnixSeqPacketListener(path: path)
            } throws: { error in
                "\(error)".contains("longer than")
            }
        }

        @Test("closing the listener ends a blocked accept with `closed`")
        func closeEndsAccept() async throws {
            let (directory, path) = try Self.socketPath()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let listener = try UnixSeqPacketListener(path: path)
            let accepted = Task.detached { () -> TransportError.Code? in
                do {
                    _ = try listener.accept()
                    return nil
                } catch let error as TransportError {
                    return error.code
                } catch {
                    return nil
                }
            }
            // Whether close lands before or during accept, the answer is the same.
            listener.close()
            #expect(await accepted.value == .closed)
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }
}
