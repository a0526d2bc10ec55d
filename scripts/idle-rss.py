#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What the idle resident set of sportsensord is made of.

Usage: scripts/idle-rss.py [--modules] DAEMON [DAEMON ...]

Starts each daemon binary idle (a fresh state directory, no sensor, no Bluetooth adapter named,
the control socket answering, 2 s later), reads /proc/PID/smaps and
prints one Markdown table with a column per daemon: VmRSS split into the binary's code and data,
the Swift runtime, Foundation (with ICU), the other shared libraries, malloc arenas, thread
stacks and other anonymous memory, the threads by name, and from smaps_rollup the proportional
set (shared library pages divided among the processes mapping them), the anonymous pages
(including copy-on-write pages of the binaries' relocated data), the private dirty pages, and the
pages referenced over the next 10 s of idle with a status request and a /metrics scrape each
second (clear_refs, then Referenced: the idle working set).
With --modules, also which Swift modules the binary's resident code pages belong to (from
/proc/PID/pagemap and `nm`: each resident page is given to the symbol at its middle).
"""
import bisect
import collections
import struct
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time


def request(path, control):
    with socket.socket(socket.AF_UNIX) as stream:
        stream.connect(control)
        stream.sendall(f"GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        while chunk := stream.recv(65536):
            answer += chunk
        return answer


def breakdown(pid, binary):
    """Resident kB per category from /proc/PID/smaps."""
    rows = collections.Counter()
    mappings = []
    for line in open(f"/proc/{pid}/smaps"):
        fields = line.split()
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            start, end = (int(x, 16) for x in fields[0].split("-"))
            mappings.append({"start": start, "size": end - start, "perm": fields[1],
                             "name": fields[5] if len(fields) > 5 else "", "rss": 0})
        elif fields[0] == "Rss:":
            mappings[-1]["rss"] = int(fields[1])
    for index, mapping in enumerate(mappings):
        name, rss = mapping["name"], mapping["rss"]
        base = os.path.basename(name)
        if name == binary or os.path.realpath(name) == os.path.realpath(binary):
            key = "binary: code" if "x" in mapping["perm"] else "binary: data, relocated pointers, rodata"
        elif base.startswith("libswift"):
            key = "Swift runtime (libswiftCore, _Concurrency, Dispatch, …)"
        elif base.startswith(("libFoundation", "lib_Foundation")):
            key = "Foundation, FoundationEssentials, Internationalization, ICU"
        elif base.startswith("libdispatch") or base.startswith("libBlocksRuntime"):
            key = "Swift runtime (libswiftCore, _Concurrency, Dispatch, …)"
        elif name.startswith("/"):
            key = "other shared libraries (libc, libstdc++, sqlite, …)"
        elif name == "[heap]":
            key = "anonymous: main malloc arena ([heap])"
        elif name == "[stack]":
            key = "anonymous: thread stacks"
        elif name == "" and mapping["start"] % (64 << 20) == 0 and "rw" in mapping["perm"]:
            key = "anonymous: per-thread malloc arenas"
        elif name == "" and index > 0 and mappings[index - 1]["perm"] == "---p" \
                and mappings[index - 1]["size"] <= (64 << 10) and mapping["size"] >= (512 << 10):
            key = "anonymous: thread stacks"
        elif name == "":
            key = "anonymous: other (mmap'd allocations, runtime metadata)"
        else:
            key = "other ([vdso], [vvar], …)"
        rows[key] += rss
    return rows


def resident_code_pages(pid, binary):
    """File offsets of the binary's executable pages that are resident."""
    offsets = []
    with open(f"/proc/{pid}/pagemap", "rb") as pagemap:
        for line in open(f"/proc/{pid}/maps"):
            fields = line.split()
            if len(fields) > 5 and os.path.realpath(fields[5]) == binary and "x" in fields[1]:
                start, end = (int(x, 16) for x in fields[0].split("-"))
                pagemap.seek(start // 4096 * 8)
                entries = pagemap.read((end - start) // 4096 * 8)
                for page in range((end - start) // 4096):
                    if struct.unpack_from("<Q", entries, page * 8)[0] >> 63:
                        offsets.append(int(fields[2], 16) + page * 4096)
    return offsets


def code_by_module(binary, offsets):
    """Resident code kB per Swift module (or C symbol prefix) of the binary."""
    loads = []
    for line in subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True).stdout.splitlines():
        fields = line.split()
        if fields and fields[0] == "LOAD":
            loads.append((int(fields[1], 16), int(fields[2], 16), int(fields[4], 16)))
    symbols = []
    for line in subprocess.run(["nm", "-n", "--defined-only", binary], capture_output=True, text=True).stdout.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] in "tTwW":
            symbols.append((int(fields[0], 16), fields[2]))
    addresses = [address for address, _ in symbols]
    modules = collections.Counter()
    for offset in offsets:
        address = next((va + offset - start for start, va, size in loads if start <= offset < start + size), None)
        index = bisect.bisect_right(addresses, address + 2048) - 1 if address is not None else -1
        if index < 0:
            modules["(before the first function: rodata, Swift metadata)"] += 4
            continue
        name = symbols[index][1]
        mangled = re.match(r"^\$s(\d+)(\w+)", name)
        if name == "_fini":
            module = "(after the last function: rodata, Swift metadata, unwind tables)"
        elif name.startswith("$ss"):
            module = "Swift (standard library code in the binary)"
        elif mangled:
            module = mangled.group(2)[: int(mangled.group(1))]
        else:
            module = "C: " + (name.lstrip("_").split("_")[0] or name)[:16]
        modules[module] += 4
    return modules


def measure(daemon, modules=False):
    directory = tempfile.mkdtemp(prefix="idle-rss-")
    try:
        os.makedirs(directory + "/state")
        with open(directory + "/config.toml", "w") as config:
            config.write("[sessions]\nauto_start = false\n")
        control = directory + "/ctl.sock"
        with open(directory + "/daemon.log", "w") as log:
            process = subprocess.Popen(
                [daemon, "--config", directory + "/config.toml", "--state-dir", directory + "/state",
                 "--socket", control, "--log-level", "warning"],
                stdout=log, stderr=subprocess.STDOUT)
        try:
            for _ in range(300):
                try:
                    if request("/v1/status", control).startswith(b"HTTP/1.1 200"):
                        break
                except OSError:
                    pass
                time.sleep(0.1)
            else:
                sys.exit(f"{daemon} did not answer on {control} within 30 s; see {directory}/daemon.log")
            time.sleep(2)
            status = open(f"/proc/{process.pid}/status").read()
            resident = int(re.search(r"VmRSS:\s+(\d+)", status).group(1))
            rows = breakdown(process.pid, daemon)
            for line in open(f"/proc/{process.pid}/smaps_rollup"):
                fields = line.split()
                if fields[0] in ("Pss:", "Private_Dirty:", "Anonymous:"):
                    rows["(rollup) " + fields[0].rstrip(":")] = int(fields[1])
            # The working set: pages used over 10 s of idle with a status request and a /metrics
            # scrape each second, the rest being start-up's pages the kernel may reclaim.
            with open(f"/proc/{process.pid}/clear_refs", "w") as clear:
                clear.write("1")
            for _ in range(10):
                request("/v1/status", control)
                request("/metrics", control)
                time.sleep(1)
            for line in open(f"/proc/{process.pid}/smaps_rollup"):
                fields = line.split()
                if fields[0] == "Referenced:":
                    rows["(rollup) Referenced over 10 s of idle"] = int(fields[1])
            if modules:
                rows["modules"] = code_by_module(daemon, resident_code_pages(process.pid, daemon))
            threads = collections.Counter(
                open(f"/proc/{process.pid}/task/{task}/comm").read().strip()
                for task in os.listdir(f"/proc/{process.pid}/task"))
        finally:
            process.terminate()
            process.wait()
        return resident, rows, threads
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def main():
    modules = "--modules" in sys.argv[1:]
    daemons = [argument for argument in sys.argv[1:] if argument != "--modules"]
    if not daemons:
        sys.exit(__doc__)
    results = [measure(os.path.realpath(daemon), modules) for daemon in daemons]
    keys = sorted({key for _, rows, _ in results for key in rows if not key.startswith("(rollup)") and key != "modules"},
                  key=lambda k: -max(r[k] for _, r, _ in results))
    keys += ["(rollup) Pss", "(rollup) Anonymous", "(rollup) Private_Dirty", "(rollup) Referenced over 10 s of idle"]
    print("| MB | " + " | ".join(daemons) + " |")
    print("| --- |" + " ---: |" * len(results))
    print("| **VmRSS** | " + " | ".join(f"**{r / 1024:.1f}**" for r, _, _ in results) + " |")
    for key in keys:
        if all(rows[key] < 50 for _, rows, _ in results):
            continue
        print(f"| {key} | " + " | ".join(f"{rows[key] / 1024:.1f}" for _, rows, _ in results) + " |")
    print("| threads | " + " | ".join(
        ", ".join(f"{name} {count}" for name, count in sorted(threads.items())) for _, _, threads in results) + " |")

    if modules:
        for daemon, (_, rows, _) in zip(daemons, results):
            print(f"\nResident code of {daemon} by module (MB, the 25 largest):\n")
            print("| module | MB |\n| --- | ---: |")
            for module, kilobytes in rows["modules"].most_common(25):
                print(f"| {module} | {kilobytes / 1024:.2f} |")


if __name__ == "__main__":
    main()
