// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import Detection

extension DetectionProfile: ExpressibleByArgument {}
extension DetectionRules: ExpressibleByArgument {}
