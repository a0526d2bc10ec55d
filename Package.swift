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
        .library(name: "BLEWire", targets: ["BLEWire"]),
        .library(name: "SDUSensor", targets: ["SDUSensor"]),
        .library(name: "GATTClient", targets: ["GATTClient"]),
        .library(name: "VirtualSensor", targets: ["VirtualSensor"]),
        .library(name: "Detection", targets: ["Detection"]),
        .library(name: "BLETransport", targets: ["BLETransport"]),
        .library(name: "SessionStore", targets: ["SessionStore"]),
        .library(name: "GatewayCore", targets: ["GatewayCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // MARK: System library
        .systemLibrary(
            name: "CBlueZ",
            pkgConfig: "bluez",
            providers: [.apt(["libbluetooth-dev"])]
        ),

        // MARK: Pure codecs and protocol logic
        .target(name: "BLEWire", swiftSettings: strict),
        .target(name: "SDUSensor", dependencies: ["BLEWire"], swiftSettings: strict),
        .target(name: "Detection", dependencies: ["SDUSensor"], swiftSettings: strict),

        // MARK: GATT over an abstract bearer
        .target(
            name: "GATTClient",
            dependencies: ["BLEWire", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .target(
            name: "VirtualSensor",
            dependencies: [
                "BLEWire", "SDUSensor", "GATTClient",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // MARK: Linux sockets (the only importer of CBlueZ)
        .target(
            name: "BLETransport",
            dependencies: [
                "CBlueZ", "BLEWire", "GATTClient", "SDUSensor",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // MARK: Embedded SQLite store
        .target(
            name: "SessionStore",
            dependencies: [
                "SDUSensor", "BLEWire", "Detection",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // MARK: Gateway services (above the transport: bearers come from an injected connector)
        .target(
            name: "GatewayCore",
            dependencies: [
                "BLEWire", "SDUSensor", "GATTClient",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // MARK: Executables
        .executableTarget(
            name: "sportsensorctl",
            dependencies: [
                "BLEWire", "SDUSensor", "GATTClient", "VirtualSensor", "Detection", "BLETransport", "SessionStore",
                "GatewayCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // MARK: Test support and tests
        .target(
            name: "GatewayTesting",
            dependencies: ["BLEWire", "SDUSensor", "GATTClient", "VirtualSensor", "BLETransport"],
            swiftSettings: strict
        ),
        .testTarget(name: "CBlueZTests", dependencies: ["CBlueZ"], swiftSettings: strict),
        .testTarget(
            name: "BLETransportTests",
            dependencies: ["BLETransport", "GatewayTesting"],
            swiftSettings: strict
        ),
        .testTarget(name: "BLEWireTests", dependencies: ["BLEWire", "GatewayTesting"], swiftSettings: strict),
        .testTarget(name: "SDUSensorTests", dependencies: ["SDUSensor", "GatewayTesting"], swiftSettings: strict),
        .testTarget(
            name: "GATTClientTests",
            dependencies: ["GATTClient", "VirtualSensor", "SDUSensor", "BLETransport", "GatewayTesting"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "VirtualSensorTests",
            dependencies: ["VirtualSensor", "SDUSensor", "GatewayTesting"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DetectionTests",
            dependencies: ["Detection", "VirtualSensor", "GatewayTesting"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SessionStoreTests",
            dependencies: [
                "SessionStore", "GatewayTesting", "SDUSensor", "BLEWire", "Detection",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "GatewayCoreTests",
            dependencies: ["GatewayCore", "VirtualSensor", "GatewayTesting"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SportsensorctlTests",
            dependencies: [
                "sportsensorctl", "GatewayTesting", "SessionStore", "Detection",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
