// SPDX-License-Identifier: GPL-2.0-or-later
// Streaming detectors: hits, jumps, throws and steps.
