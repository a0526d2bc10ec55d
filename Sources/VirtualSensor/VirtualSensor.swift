// SPDX-License-Identifier: GPL-2.0-or-later
// An emulated SDU sensor: a GATT server over any ATTBearer, streaming scripted motion.
