// swift-tools-version: 6.2
// Detector throughput with ordo-one/benchmark: run with `make bench`.
// SPDX-License-Identifier: GPL-2.0-or-later
//
// Built apart from the main package (like Fuzz/) so that `swift build` and `swift build --build-tests`
// of the project never fetch or compile the benchmark machinery (its plugin, tools, histogram,
// atomics and malloc-interposer dependencies). The benchmark plugin finds its targets under
// `Benchmarks/` of this package: `Benchmarks/Benchmarks/DetectionBenchmarks`.

import PackageDescription

let package = Package(
    name: "sportsensord-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "sportsensord", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "DetectionBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Detection", package: "sportsensord"),
                .product(name: "SDUSensor", package: "sportsensord"),
                .product(name: "VirtualSensor", package: "sportsensord"),
            ],
            path: "Benchmarks/DetectionBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ],
    swiftLanguageModes: [.v6]
)
