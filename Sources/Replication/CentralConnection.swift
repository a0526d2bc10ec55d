// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

/// Opening a connection to the central PostgreSQL: the URL's `sslmode` as postgres-nio's TLS
/// setting, errors as `ReplicationError`s that name the fix and never the password.
public enum CentralConnection {
    /// Connects, applies pending schema migrations and claims `gatewayID` for `instanceID`.
    public static func open(
        _ url: PostgresURL, gatewayID: String, instanceID: UUID, logger: Logger
    ) async throws(ReplicationError) -> PostgresConnection {
        let connection = try await connect(url, logger: logger)
        do {
            try await CentralSchema.migrate(connection, logger: logger)
            try await claim(gatewayID: gatewayID, instanceID: instanceID, connection, logger: logger)
        } catch {
            try? await connection.close()
            throw describe(error, url: url)
        }
        return connection
    }

    /// Connects only.
    public static func connect(_ url: PostgresURL, logger: Logger) async throws(ReplicationError) -> PostgresConnection
    {
        let configuration: PostgresConnection.Configuration
        do { configuration = try self.configuration(url) } catch {
            throw ReplicationError(
                .badConfiguration, "cannot set up TLS for \(url.redacted)",
                fix: "check sslrootcert names a readable PEM file", cause: error)
        }
        do {
            return try await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1, logger: logger
            ).get()
        } catch {
            throw describe(error, url: url)
        }
    }

    /// postgres-nio's configuration for `url`.
    static func configuration(_ url: PostgresURL) throws -> PostgresConnection.Configuration {
        if let socket = url.socketPath {
            return PostgresConnection.Configuration(
                unixSocketPath: socket, username: url.user, password: url.password, database: url.database)
        }
        var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
        switch url.sslMode {
        case .disable, .prefer, .require: tlsConfiguration.certificateVerification = .none
        case .verifyCA: tlsConfiguration.certificateVerification = .noHostnameVerification
        case .verifyFull: tlsConfiguration.certificateVerification = .fullVerification
        }
        if let root = url.sslRootCertificate { tlsConfiguration.trustRoots = .file(root) }
        let tls: PostgresConnection.Configuration.TLS
        switch url.sslMode {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(try NIOSSLContext(configuration: tlsConfiguration))
        case .require, .verifyCA, .verifyFull: tls = .require(try NIOSSLContext(configuration: tlsConfiguration))
        }
        var configuration = PostgresConnection.Configuration(
            host: url.host ?? "localhost", port: url.port, username: url.user, password: url.password,
            database: url.database, tls: tls)
        configuration.options.connectTimeout = .seconds(10)
        return configuration
    }

    /// Records this box as the owner of `gatewayID`, or refuses when another box owns it.
    static func claim(
        gatewayID: String, instanceID: UUID, _ connection: PostgresConnection, logger: Logger
    ) async throws {
        let instance = instanceID.uuidString.lowercased()
        let host = ProcessInfo.processInfo.hostName
        try await connection.query(
            """
            INSERT INTO sportsensor.gateways (gateway_id, instance_id, hostname) VALUES (\(gatewayID), \(instance)::uuid, \(host))
            ON CONFLICT (gateway_id) DO NOTHING
            """, logger: logger)
        let rows = try await connection.query(
            "SELECT instance_id::text, hostname FROM sportsensor.gateways WHERE gateway_id = \(gatewayID)",
            logger: logger)
        for try await (owner, ownerHost) in rows.decode((String, String).self) where owner != instance {
            throw ReplicationError(
                .gatewayIDClash,
                "gateway id '\(gatewayID)' is already replicated by another box (host \(ownerHost), store \(owner))",
                fix: "give this gateway its own [replication] gateway_id; if this box replaces that one, release "
                    + "the id with DELETE FROM sportsensor.gateways WHERE gateway_id = '\(gatewayID)'")
        }
    }

    /// A failure as a `ReplicationError` naming the fix.
    static func describe(_ error: any Error, url: PostgresURL) -> ReplicationError {
        if let error = error as? ReplicationError { return error }
        let target = url.redacted
        if let psql = error as? PSQLError {
            let state = psql.serverInfo?[.sqlState] ?? ""
            let message = psql.serverInfo?[.message] ?? "\(psql.code)"
            switch state {
            case "28P01", "28000":
                return ReplicationError(
                    .refused, "PostgreSQL at \(target) refused the login: \(message)",
                    fix: "check the user and password in postgres_url and pg_hba.conf on the server")
            case "3D000":
                return ReplicationError(
                    .refused, "PostgreSQL at \(target): \(message)",
                    fix: "create the database (createdb) or correct its name in postgres_url")
            case "42501":
                return ReplicationError(
                    .refused, "PostgreSQL at \(target): \(message)",
                    fix: "grant the role CREATE on the database (the gateway creates schema sportsensor)")
            case "57P01", "57P02", "57P03":
                return ReplicationError(
                    .unreachable,
                    "cannot reach PostgreSQL at \(target): the server is shutting down or starting (\(message))",
                    fix: "wait for the server; replication retries with backoff")
            case "":
                if psql.code == .sslUnsupported {
                    return ReplicationError(
                        .unreachable, "PostgreSQL at \(target) does not offer TLS",
                        fix: "enable ssl on the server, or use sslmode=prefer/disable on a trusted network")
                }
                return ReplicationError(
                    .unreachable, "cannot reach PostgreSQL at \(target) (\(psql.code))",
                    fix: "check the server runs and the host and port are right; under systemd allow its address "
                        + "(Docs/REPLICATION.md)")
            default:
                return ReplicationError(
                    .server, "PostgreSQL at \(target) failed: \(message) (SQLSTATE \(state))",
                    fix: "see the server's log; replication retries with backoff")
            }
        }
        return ReplicationError(
            .unreachable, "cannot reach PostgreSQL at \(target)",
            fix: "check the server runs and the host and port are right; under systemd allow its address "
                + "(Docs/REPLICATION.md)", cause: error)
    }
}
