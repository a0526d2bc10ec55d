#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Keeps Package.swift and Docs/ARCHITECTURE.md true to the code (`make lint` runs it).

1. Every module a target's Swift files import is declared in that target's dependencies in
   Package.swift (SwiftPM would otherwise let it compile through another dependency, and a change
   elsewhere would break it), apart from the toolchain's own modules.
2. Every first-party target Package.swift declares as a dependency is used by an import.
3. The "may import" column of the target table in Docs/ARCHITECTURE.md names exactly the
   first-party targets Package.swift declares (back-quoted names).

Usage: scripts/check-imports.py PACKAGE_JSON   (from `swift package dump-package`)
"""

import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Modules that come with the toolchain and need no declaration.
TOOLCHAIN = {
    "Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationInternationalization",
    "Glibc", "Musl", "Darwin", "Dispatch", "Synchronization", "_Concurrency", "Testing", "XCTest",
    "RegexBuilder", "CoreFoundation", "Swift", "os", "_StringProcessing",
}
IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public\s+|package\s+|internal\s+|private\s+|fileprivate\s+)?"
    r"import\s+(?:struct\s+|class\s+|enum\s+|protocol\s+|func\s+|var\s+|let\s+|typealias\s+)?"
    r"([A-Za-z_][A-Za-z0-9_]*)"
)


def target_dir(target):
    if target.get("path"):
        return ROOT / target["path"]
    base = "Tests" if target["type"] == "test" else "Sources"
    return ROOT / base / target["name"]


def declared_modules(target, first_party):
    modules, targets = set(), set()
    for dep in target["dependencies"]:
        kind, value = next(iter(dep.items()))
        name = value[0]
        if kind in ("byName", "target"):
            modules.add(name.replace("-", "_"))
            if name in first_party:
                targets.add(name)
        elif kind == "product":
            modules.add(name)
    return modules, targets


def imports_of(directory):
    found = {}
    for path in sorted(directory.rglob("*.swift")):
        in_string = False
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            # Lines of a multi-line string literal (e.g. a Python script a test runs) are not imports.
            starts_in_string = in_string
            if line.count('"""') % 2:
                in_string = not in_string
            match = None if starts_in_string else IMPORT.match(line)
            if match:
                found.setdefault(match.group(1), f"{path.relative_to(ROOT)}:{number}")
    return found


def architecture_table():
    rows = {}
    text = (ROOT / "Docs/ARCHITECTURE.md").read_text(encoding="utf-8")
    section = text.split("## Targets and what each may import", 1)[1].split("\n## ", 1)[0]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        # "not `X`", "never `X`" and "except `X`" name what a target must not import.
        allowed = re.sub(r"(?:not|never|except)\s+`[^`]+`", "", cells[-1])
        rows[cells[0].strip("`")] = set(re.findall(r"`([A-Za-z][A-Za-z0-9_-]*)`", allowed))
    return rows


def main():
    package = json.load(open(sys.argv[1], encoding="utf-8"))
    targets = package["targets"]
    first_party = {t["name"] for t in targets}
    problems = []
    table = architecture_table()
    for target in targets:
        if target["type"] in ("system", "plugin"):
            continue
        modules, declared_targets = declared_modules(target, first_party)
        found = imports_of(target_dir(target))
        for module, where in sorted(found.items()):
            if module not in modules and module not in TOOLCHAIN and module != target["name"].replace("-", "_"):
                problems.append(
                    f"{where}: `import {module}` is not declared in {target['name']}'s dependencies "
                    f"in Package.swift: add it there"
                )
        for name in sorted(n for n in declared_targets if n.replace("-", "_") not in found):
            problems.append(
                f"Package.swift: {target['name']} declares {name} but no file imports it: remove it"
            )
        if target["type"] != "test" and target["name"] in table:
            documented = table[target["name"]] & first_party
            if documented != declared_targets and target["name"] != "GatewayTesting":
                missing = sorted(declared_targets - documented)
                extra = sorted(documented - declared_targets)
                problems.append(
                    f"Docs/ARCHITECTURE.md: the row of {target['name']} should name {missing} "
                    f"and not {extra} to match Package.swift"
                )
        elif target["type"] != "test":
            problems.append(f"Docs/ARCHITECTURE.md: the target table has no row for {target['name']}")
    for line in problems:
        print(f"check-imports: {line}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
