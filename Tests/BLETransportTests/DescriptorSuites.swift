// SPDX-License-Identifier: GPL-2.0-or-later
import Testing

/// The suites that open and close real file descriptors (socket pairs, pipes, eventfds), run one
/// test at a time: the bearer suite's leak test compares the process's open descriptors before
/// and after, which a test of another suite running at the same time would change.
@Suite("descriptor-opening transport suites", .serialized)
enum DescriptorSuites {}
