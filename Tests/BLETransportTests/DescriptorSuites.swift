// SPDX-License-Identifier: GPL-2.0-or-later
import Testing

/// The suites that open and close real file descriptors (socket pairs, pipes, eventfds). They run
/// in parallel with everything else: no test counts the process's descriptors; the bearer's leak
/// test checks the identity of the descriptors the bearers were given.
@Suite("descriptor-opening transport suites")
enum DescriptorSuites {}
