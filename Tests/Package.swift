// swift-tools-version: 6.2
// The concurrency suites under ThreadSanitizer (`make tsan`): the churn stress test, the gateway under
// concurrent requests, `SensorLink`, the GATT client's sink and the socket reactor.
// SPDX-License-Identifier: GPL-2.0-or-later
//
// A package of its own so that `--sanitize=thread` compiles only what these suites link (the gateway
// and its link layer, the store, their fakes), not the control API, the dashboard, PostgreSQL's client
// or TLS: small enough to run in CI. The suites are the main package's own files, picked by name;
// `swift test` runs them there too, uninstrumented.

import PackageDescription

func root(_ product: String) -> Target.Dependency { .product(name: product, package: "sportsensord") }

let package = Package(
    name: "sportsensord-tsan",
    dependencies: [
        .package(name: "sportsensord", path: ".."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .testTarget(
            name: "GatewayUnderThreadSanitizer",
            dependencies: [
                root("GatewayCore"), root("GatewayTesting"), root("GatewayConfig"), root("ControlProtocol"),
                root("SessionStore"), root("SensorLinks"), root("VirtualSensor"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "GatewayCoreTests",
            sources: ["GatewayBench.swift", "GatewayChurnTests.swift", "GatewayConcurrencyTests.swift"]),
        .testTarget(
            name: "SensorLinkUnderThreadSanitizer",
            dependencies: [
                root("BLEWire"), root("GATTClient"), root("GatewayTesting"), root("SDUSensor"), root("SensorLinks"),
                root("VirtualSensor"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "SensorLinksTests", sources: ["SensorLinkTests.swift", "VirtualSensorBench.swift"]),
        .testTarget(
            name: "NotificationSinkUnderThreadSanitizer",
            dependencies: [root("BLETransport"), root("GATTClient"), root("GatewayTesting")],
            path: "GATTClientTests", sources: ["SynchronousNotificationTests.swift"]),
        .testTarget(
            name: "SocketReactorUnderThreadSanitizer",
            dependencies: [
                root("BLETransport"), root("GatewayTesting"), root("SystemCalls"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            path: "BLETransportTests", sources: ["DescriptorSuites.swift", "SocketReactorTests.swift"]),
    ],
    swiftLanguageModes: [.v6]
)
