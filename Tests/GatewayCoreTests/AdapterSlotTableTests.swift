// SPDX-License-Identifier: GPL-2.0-or-later
import GatewayCore
import Testing

@Suite("AdapterSlotTable")
struct AdapterSlotTableTests {
    typealias Table = AdapterSlotTable<String>

    @Test("sensors spread over adapters by free slots, a tie going by name")
    func spreads() {
        var table = Table()
        #expect(table.adaptersUsable(["hci1": 2]).isEmpty)
        #expect(table.adaptersUsable(["hci0": 3]).isEmpty)
        let slots = ["a", "b", "c", "d", "e"].map { table.request($0).slot }
        #expect(slots == ["hci0", "hci0", "hci1", "hci0", "hci1"])
        #expect(table.adapters["hci0"]?.holders == ["a", "b", "d"])
        #expect(table.adapters["hci1"]?.free == 0)
    }

    @Test("where free slots tie, the adapter that heard the sensor strongest wins")
    func signalBreaksTies() {
        var table = Table()
        _ = table.adaptersUsable(["hci0": 2])
        _ = table.adaptersUsable(["hci1": 2])
        table.heard("far", on: "hci0", rssi: -88)
        table.heard("far", on: "hci1", rssi: -61)
        #expect(table.request("far").slot == "hci1")
        // Free slots come first: hci0 has more room now, whatever hci1 heard.
        table.heard("near", on: "hci1", rssi: -40)
        #expect(table.request("near").slot == "hci0")
    }

    @Test("no slot anywhere: the sensor waits, first come first served, until a slot frees")
    func waitsForASlot() {
        var table = Table()
        _ = table.adaptersUsable(["hci0": 1])
        #expect(table.request("a").slot == "hci0")
        #expect(table.request("b").slot == nil)
        #expect(table.request("c").slot == nil)
        #expect(table.isWaiting("b") && table.isWaiting("c"))
        #expect(table.release("a") == [Table.Grant(sensor: "b", adapter: "hci0")])
        #expect(!table.isWaiting("b"))
        #expect(table.waiting == ["c"])
        // A sensor that reconnects gives its slot to the one that waited and queues behind it.
        let (slot, grants) = table.request("b")
        #expect(slot == nil)
        #expect(grants == [Table.Grant(sensor: "c", adapter: "hci0")])
        #expect(table.waiting == ["b"])
    }

    @Test("a new adapter takes the waiting sensors up to its budget")
    func newAdapterServesTheQueue() {
        var table = Table()
        for sensor in ["a", "b", "c"] { #expect(table.request(sensor).slot == nil) }
        let grants = table.adaptersUsable(["hci1": 2])
        #expect(grants.map(\.sensor) == ["a", "b"])
        #expect(grants.allSatisfy { $0.adapter == "hci1" })
        #expect(table.waiting == ["c"])
    }

    @Test("adapters usable together: the waiting spread over all of them, not the first one's budget first")
    func adaptersTogetherShareTheQueue() {
        var table = Table()
        for sensor in ["a", "b", "c", "d"] { #expect(table.request(sensor).slot == nil) }
        let grants = table.adaptersUsable(["hci0": 5, "hci1": 5])
        #expect(grants.map(\.adapter) == ["hci0", "hci1", "hci0", "hci1"])
        #expect(table.adapters["hci0"]?.holders == ["a", "c"])
        #expect(table.adapters["hci1"]?.holders == ["b", "d"])
        #expect(table.waiting.isEmpty)
    }

    @Test("an adapter that goes takes its slots; its sensors land on the other adapter when they ask again")
    func adapterGoes() {
        var table = Table()
        _ = table.adaptersUsable(["hci0": 5])
        _ = table.adaptersUsable(["hci1": 5])
        for sensor in ["a", "b", "c", "d"] { _ = table.request(sensor) }
        let moved = table.adapterGone("hci1")
        #expect(moved == ["b", "d"])
        #expect(table.adapter(holding: "b") == nil)
        #expect(table.request("b").slot == "hci0")
        #expect(table.request("d").slot == "hci0")
        #expect(table.adapters["hci0"]?.holders == ["a", "c", "b", "d"])
        // Past the budget of what is left, the rest wait.
        _ = table.adaptersUsable(["hci0": 4])
        #expect(table.request("e").slot == nil)
    }

    @Test("forgetting a sensor gives back its slot, its place in the queue and what was heard")
    func forget() {
        var table = Table()
        _ = table.adaptersUsable(["hci0": 1])
        _ = table.adaptersUsable(["hci1": 1])
        table.heard("a", on: "hci1", rssi: -50)
        #expect(table.request("a").slot == "hci1")
        #expect(table.request("b").slot == "hci0")
        #expect(table.request("c").slot == nil)
        #expect(table.forget("a") == [Table.Grant(sensor: "c", adapter: "hci1")])
        #expect(table.forget("c") == [])
        table.heard("a", on: "hci0", rssi: -90)
        _ = table.release("b")
        #expect(table.request("a").slot == "hci0")
    }
}
