// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire

/// The code of the `WireError` `body` throws; nil when it throws nothing (or another error).
func wireErrorCode(_ body: () throws -> Void) -> WireError.Code? {
    do {
        try body()
        return nil
    } catch let error as WireError {
        return error.code
    } catch {
        return nil
    }
}
