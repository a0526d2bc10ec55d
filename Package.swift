// swift-tools-version: 6.2
// sportsensord: a Linux gateway for SDU wrist-worn sport sensors over Bluetooth Low Energy.
// SPDX-License-Identifier: GPL-2.0-or-later

import PackageDescription

/// Settings every first-party target builds with: Swift 6 language mode (set at package level)
/// and warnings treated as errors, so a warning never ships.
let strict: [SwiftSetting] = [
    .treatAllWarnings(as: .error)
]

let package = Package(
    name: "sportsensord",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "sportsensorctl", targets: ["sportsensorctl"]),
        .executable(name: "sportsensord", targets: ["sportsensord"]),
        .executable(name: "sportsensor-dev", targets: ["sportsensor-dev"]),
        .library(name: "ControlProtocol", targets: ["ControlProtocol"]),
        .library(name: "BLEWire", targets: ["BLEWire"]),
        .library(name: "SDUSensor", targets: ["SDUSensor"]),
        .library(name: "GATTClient", targets: ["GATTClient"]),
        .library(name: "VirtualSensor", targets: ["VirtualSensor"]),
        .library(name: "Detection", targets: ["Detection"]),
        .library(name: "BLETransport", targets: ["BLETransport"]),
        .library(name: "StoreFormats", targets: ["StoreFormats"]),
        .library(name: "SessionStore", targets: ["SessionStore"]),
        .library(name: "SensorLinks", targets: ["SensorLinks"]),
        .library(name: "GatewayCore", targets: ["GatewayCore"]),
        // For the sanitizer package (Tests/Package.swift): the fakes, clocks and fixtures, the
        // configuration its gateways are made with, the system calls the reactor's suite makes.
        .library(name: "GatewayTesting", targets: ["GatewayTesting"]),
        .library(name: "GatewayConfig", targets: ["GatewayConfig"]),
        .library(name: "SystemCalls", targets: ["SystemCalls"]),
        .library(name: "ControlAPI", targets: ["ControlAPI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // Default traits off: ConfigurationSupport would build swift-configuration, which nothing uses.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // MARK: System library
        .systemLibrary(
            name: "CBlueZ",
            pkgConfig: "bluez",
            providers: [.apt(["libbluetooth-dev"])]
        ),

        // MARK: The error contract every target's errors follow (depends on nothing)
        .target(name: "CodedErrors", swiftSettings: strict),
        // Seeded randomness, shared by the link layer (reconnect jitter) and the emulation.
        .target(name: "SeededRandomness", swiftSettings: strict),

        // MARK: Pure codecs and protocol logic
        .target(name: "BLEWire", dependencies: ["CodedErrors"], swiftSettings: strict),
        .target(name: "SDUSensor", dependencies: ["BLEWire", "CodedErrors"], swiftSettings: strict),
        .target(name: "Detection", dependencies: ["SDUSensor", "CodedErrors"], swiftSettings: strict),

        // MARK: GATT over an abstract bearer
        .target(
            name: "GATTClient",
            dependencies: [
                "BLEWire", "CodedErrors", .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "VirtualSensor",
            dependencies: [
                "SeededRandomness",
                "BLEWire", "SDUSensor", "GATTClient", "CodedErrors",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // MARK: A second motion model built from forces and kinematics, for `sportsensor-dev eval` and
        // the tests only: the daemon's virtual sensors play `MotionScript`s from VirtualSensor.
        .target(
            name: "IndependentMotion", dependencies: ["SeededRandomness", "VirtualSensor", "SDUSensor"],
            swiftSettings: strict),

        // MARK: System calls (the one EINTR wrapper and its test script)
        .target(
            name: "SystemCalls",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),

        // MARK: Linux sockets (the only importer of CBlueZ)
        .target(
            name: "BLETransport",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "CBlueZ", "BLEWire", "GATTClient", "SDUSensor", "CodedErrors", "SystemCalls",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // MARK: The harnesses' Bluetooth side (LE advertising and scanning over raw HCI, the L2CAP
        // listener, the AF_UNIX listener): linked by `sportsensor-dev` and the tests, never the daemon.
        .target(
            name: "BLEHarness",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "BLETransport", "CBlueZ", "BLEWire", "SDUSensor", "SystemCalls",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // MARK: The stored samples' byte formats (chunk BLOBs, tail segment files): pure, no database
        .target(name: "StoreFormats", dependencies: ["SDUSensor", "CodedErrors"], swiftSettings: strict),

        // MARK: Embedded SQLite store
        .target(
            name: "SessionStore",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "SDUSensor", "BLEWire", "Detection", "CodedErrors", "SystemCalls", "ControlProtocol", "StoreFormats",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),

        // MARK: The control plane's contract: wire models, routes, errors, where the socket is
        .target(name: "ControlProtocol", dependencies: ["Detection", "CodedErrors"], swiftSettings: strict),

        // MARK: The configuration file (TOML), read by the daemon and by `analyze --config`
        .target(
            name: "GatewayConfig",
            dependencies: [
                "CodedErrors",
                "Detection", "VirtualSensor", "ControlProtocol", .product(name: "TOMLKit", package: "TOMLKit"),
            ],
            swiftSettings: strict
        ),

        // MARK: Replication of the store's outbox into PostgreSQL (postgres-nio)
        .target(
            name: "Replication",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "SessionStore", "StoreFormats", "CodedErrors", "Detection",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),

        // MARK: The link to each sensor (above the transport: bearers come from an injected connector)
        .target(
            name: "SensorLinks",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "SeededRandomness",
                "BLEWire", "SDUSensor", "GATTClient", "ControlProtocol", "CodedErrors",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // MARK: The daemon: sessions, the gateway's services and the application
        .target(
            name: "GatewayCore",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "BLEWire", "SDUSensor", "GATTClient", "Detection", "SessionStore", "StoreFormats", "VirtualSensor",
                "ControlProtocol",
                "GatewayConfig", "CodedErrors", "SystemCalls", "SensorLinks",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),

        // The daemon as one run: the store, the gateway, retention, replication and the servers in
        // one ServiceGroup. Apart from GatewayCore so that the sessions and the gateway build
        // without PostgreSQL's client and TLS (the sanitizer package, Tests/Package.swift).
        .target(
            name: "GatewayDaemon",
            dependencies: [
                "GatewayCore", "GatewayConfig", "ControlProtocol", "Replication", "SensorLinks", "SessionStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),

        // MARK: Control plane over HTTP (Unix socket, optional TCP)
        .target(
            name: "ControlAPI",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "Detection", .product(name: "CoreMetrics", package: "swift-metrics"),
                "GatewayCore", "ControlProtocol", "CodedErrors", "SystemCalls",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),

        // MARK: The coach's web dashboard: accounts (shared with sportsensorctl), pages and assets
        .target(
            name: "DashboardUsers",
            dependencies: [
                "CodedErrors", "SystemCalls", .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "WebDashboard",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "ControlAPI", "ControlProtocol", "DashboardUsers", "CodedErrors", "Detection",
                "GatewayConfig",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [
                .embedInCode("Resources/layout.mustache"), .embedInCode("Resources/login.mustache"),
                .embedInCode("Resources/board.mustache"), .embedInCode("Resources/sessions.mustache"),
                .embedInCode("Resources/session.mustache"), .embedInCode("Resources/athlete.mustache"),
                .embedInCode("Resources/leaderboard.mustache"), .embedInCode("Resources/dashboard.css"),
                .embedInCode("Resources/board.js"), .embedInCode("Resources/common.js"),
            ],
            swiftSettings: strict
        ),

        // MARK: Executables
        .executableTarget(
            name: "sportsensord",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "GATTClient", "GatewayConfig",
                "GatewayCore", "GatewayDaemon", "BLETransport", "BLEWire", "ControlAPI", "ControlProtocol",
                "WebDashboard",
                "DashboardUsers", "SessionStore", "SensorLinks",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "sportsensorctl",
            dependencies: [
                "BLEWire", "SDUSensor", "Detection", "SessionStore", "StoreFormats", "ControlProtocol", "BLETransport",
                "GatewayConfig",
                "CodedErrors", "DashboardUsers", "SystemCalls",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Harnesses for developers, the VM test and `make eval`: not installed by `make install`.
        .executableTarget(
            name: "sportsensor-dev",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "SeededRandomness",
                "GatewayConfig",
                "BLEWire", "SDUSensor", "GATTClient", "VirtualSensor", "IndependentMotion", "Detection", "BLETransport",
                "BLEHarness", "SessionStore", "StoreFormats", "GatewayCore", "GatewayDaemon", "ControlAPI",
                "CodedErrors",
                "SystemCalls",
                "Replication",
                "SensorLinks",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // MARK: Test support and tests
        .target(
            name: "GatewayTesting",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "SeededRandomness", "SDUSensor", "ControlProtocol",
                "BLEWire", "GATTClient", "Detection", "GatewayCore", "SensorLinks", "SystemCalls",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "CBlueZTests", dependencies: ["CBlueZ"], swiftSettings: strict),
        .testTarget(
            name: "ControlProtocolTests", dependencies: ["ControlProtocol", "Detection", "GatewayTesting"],
            swiftSettings: strict),
        .testTarget(name: "CodedErrorsTests", dependencies: ["CodedErrors"], swiftSettings: strict),
        .testTarget(
            name: "SystemCallsTests",
            dependencies: ["SystemCalls", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "BLETransportTests",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "BLEWire", "SDUSensor", .product(name: "SystemPackage", package: "swift-system"), "BLETransport",
                "BLEHarness", "GatewayTesting", "SystemCalls", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "BLEWireTests", dependencies: ["BLEWire", "GatewayTesting"], swiftSettings: strict),
        .testTarget(
            name: "SDUSensorTests", dependencies: ["BLEWire", "SDUSensor", "GatewayTesting"], swiftSettings: strict),
        .testTarget(
            name: "GATTClientTests",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "SeededRandomness", "BLEWire", "GATTClient", "VirtualSensor", "SDUSensor", "BLETransport",
                "GatewayTesting",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "VirtualSensorTests",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "SeededRandomness",
                "BLEWire", "GATTClient", "VirtualSensor", "IndependentMotion", "SDUSensor", "GatewayTesting",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DetectionTests",
            dependencies: [
                "SeededRandomness", "SDUSensor", "Detection", "VirtualSensor", "IndependentMotion", "GatewayTesting",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SessionStoreTests",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "SessionStore", "StoreFormats", "GatewayTesting", "SDUSensor", "BLEWire", "Detection", "SystemCalls",
                "ControlProtocol",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SensorLinksTests",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "SeededRandomness",
                "SensorLinks", "BLEWire", "GATTClient", "SDUSensor", "VirtualSensor", "ControlProtocol",
                "GatewayTesting",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "GatewayCoreTests",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "BLEWire", "GATTClient", "GatewayConfig", "SDUSensor", .product(name: "Logging", package: "swift-log"),
                "GatewayCore", "GatewayDaemon", "VirtualSensor", "GatewayTesting", "SessionStore", "StoreFormats",
                "Detection", "ControlProtocol",
                "SystemCalls", "SensorLinks",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ControlAPITests",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "ControlAPI", "ControlProtocol", "GatewayCore", "GatewayTesting", "Detection", "SystemCalls",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "WebDashboardTests",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                "WebDashboard", "DashboardUsers", "ControlAPI", "ControlProtocol", "GatewayTesting", "Detection",
                "GatewayConfig", "GatewayCore", "SessionStore", "StoreFormats", "SDUSensor",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ReplicationTests",
            dependencies: [
                "Replication", "SessionStore", "StoreFormats", "GatewayTesting", "Detection", "SDUSensor",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "GatewayTesting", "SessionStore", "StoreFormats", "Detection", "SDUSensor",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SportsensorctlTests",
            dependencies: [
                "SeededRandomness",
                "BLETransport", "BLEWire", "SDUSensor",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                "sportsensorctl", "GatewayTesting", "SessionStore", "StoreFormats", "Detection", "ControlProtocol",
                "VirtualSensor",
                "DashboardUsers",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SportsensorDevTests",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "Detection", .product(name: "ArgumentParser", package: "swift-argument-parser"), "sportsensor-dev",
                "GatewayTesting", "SDUSensor", "BLEWire", "VirtualSensor", "GATTClient", "GatewayConfig", "GatewayCore",
            ],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
