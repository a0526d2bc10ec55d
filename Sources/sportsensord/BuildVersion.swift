// SPDX-License-Identifier: GPL-2.0-or-later

/// What was built: `--version` and `/v1/status` say it. `make deb` (Makefile, `version-stamp`)
/// writes the package version and the git commit into BuildStamp.swift, beside this file, and
/// builds with -DSPORTSENSOR_STAMPED; every other build says the base version and "unknown".
enum BuildVersion {
    /// The release this tree is working towards; the Makefile reads it from here.
    static let base = "0.1.0"

    #if SPORTSENSOR_STAMPED
    static let version = BuildStamp.version
    static let commit = BuildStamp.commit
    #else
    static let version = base
    static let commit = "unknown"
    #endif

    /// `0.1.0+git502.a3e3c59c4d1b (commit a3e3c59c4d1b…)`, or `0.1.0 (commit unknown)`.
    static let description = "\(version) (commit \(commit))"
}
