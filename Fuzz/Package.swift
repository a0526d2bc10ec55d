// swift-tools-version: 6.2
// Coverage-guided fuzz targets for the project's parsers (libFuzzer).
// SPDX-License-Identifier: GPL-2.0-or-later
//
// Built apart from the main package because every target here must be compiled with
// `-sanitize=fuzzer,address -parse-as-library` and has no `main`: see `make fuzz`.

import PackageDescription

let wire = Target.Dependency.product(name: "BLEWire", package: "sportsensord")

let package = Package(
    name: "sportsensord-fuzz",
    dependencies: [.package(name: "sportsensord", path: "..")],
    targets: [
        .target(name: "FuzzSupport"),
        .executableTarget(name: "fuzz-att", dependencies: ["FuzzSupport", wire]),
        .executableTarget(name: "fuzz-ad", dependencies: ["FuzzSupport", wire]),
        .executableTarget(name: "fuzz-btsnoop", dependencies: ["FuzzSupport", wire]),
        .executableTarget(
            name: "fuzz-sdu", dependencies: ["FuzzSupport", .product(name: "SDUSensor", package: "sportsensord")]),
        .executableTarget(
            name: "fuzz-chunk",
            dependencies: [
                "FuzzSupport", .product(name: "StoreFormats", package: "sportsensord"),
                .product(name: "SDUSensor", package: "sportsensord"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
