// SPDX-License-Identifier: GPL-2.0-or-later
// Linux Bluetooth sockets: HCI for adapters and scanning, L2CAP LE on the ATT channel for GATT.
