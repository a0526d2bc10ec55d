// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation

/// A throw-away self-signed certificate for `localhost` and `127.0.0.1` and its key, made by
/// `openssl req -x509` in a directory of the test's own (Debian's `openssl`, installed by
/// `make deps`).
public struct SelfSignedCertificate: Sendable {
    /// The PEM certificate.
    public var certificatePath: String
    /// The PEM private key (unencrypted).
    public var keyPath: String

    /// `openssl` failed.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String
    }

    /// Makes `name.pem` and `name.key` in `directory` (created when missing).
    public static func make(in directory: String, name: String = "web") throws -> SelfSignedCertificate {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let certificate = SelfSignedCertificate(
            certificatePath: directory + "/\(name).pem", keyPath: directory + "/\(name).key")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout", certificate.keyPath, "-out", certificate.certificatePath,
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(
                description: "openssl req -x509 exited \(process.terminationStatus) (is Debian's openssl installed? "
                    + "make deps): \(String(decoding: message, as: UTF8.self))")
        }
        return certificate
    }
}
