# SPDX-License-Identifier: GPL-2.0-or-later
"""Per-stroke swing energy, peak and duration at the wrist: real strokes next to the generator's.

What the scripted stroke model (Sources/VirtualSensor/Motion/MotionTableTennisDrill.swift) is fitted to
(Docs/DETECTION.md, "Table-tennis drills, fitted to real wrist strokes"; Tests/VirtualSensorTests/StrokeFitTests
holds the model near these figures). Reads the converted 50 Hz files, as the SDU sensor delivers them (whole
counts of 1/16384 g, ±2 g per axis):

    python3 Validation/stroke_energy.py real MANIFEST          # tt-wrist development drills of a
                                                              # `convert.py --offline` manifest
    python3 Validation/stroke_energy.py simulated CSV...      # `sportsensor-dev simulate` recordings

Only the development split of the real drills is read (the held-out dates stay unopened). Per labelled
stroke (real: the gyroscope reference of the converter; simulated: the hit labels), within ±0.3 s of it:
the swing energy ∫(|a| − 1 g)₊² dt (what the hit detector's `min_swing_energy` measures, there over the
stroke's humps), the largest |a| and the time |a| is above 1.5 g. Prints percentiles of each and the share
of strokes under 0.1 and 0.15 g²·s, per stroke type where the type is known.
"""
import csv
import os
import sys

import numpy as np

WINDOW_S = 0.3
LONG_G = 1.5
PERCENTILES = (5, 10, 25, 50, 75, 90, 95)


def read_samples(path):
    """Times (s) and acceleration (g) of a converted or simulated CSV; hit labels from `#` comments."""
    times, acc, hits = [], [], []
    with open(path) as handle:
        for line in handle:
            if line.startswith("#"):
                if "hit" in line:
                    hits.append(first_number(line))
                continue
            if not line[:1].isdigit():
                continue
            fields = line.split(",")
            times.append(float(fields[0]))
            acc.append([float(x) for x in fields[1:4]])
    return np.array(times), np.array(acc), [h for h in hits if h is not None]


def first_number(text):
    for token in text.replace("(", " ").replace(")", " ").replace(",", " ").replace(":", " ").replace("=", " ").split():
        try:
            return float(token)
        except ValueError:
            continue
    return None


def stroke_features(times, acc, strokes):
    magnitude = np.linalg.norm(acc, axis=1)
    interval = float(np.median(np.diff(times)))
    rows = []
    for t in strokes:
        inside = (times >= t - WINDOW_S) & (times <= t + WINDOW_S)
        if not np.any(inside):
            continue
        part = magnitude[inside]
        excess = np.maximum(part - 1, 0)
        rows.append((float(np.sum(excess**2) * interval), float(np.max(part)), float(np.sum(part > LONG_G) * interval)))
    return rows


def report(name, rows):
    if not rows:
        print(f"| {name} | 0 | – | – | – | – | – |")
        return
    r = np.array(rows)
    cells = [" / ".join(f"{np.percentile(r[:, k], p):.2f}" for p in PERCENTILES) for k in range(3)]
    print(
        f"| {name} | {len(r)} | {cells[0]} | {np.mean(r[:, 0] < 0.1) * 100:.1f} % | {np.mean(r[:, 0] < 0.15) * 100:.1f} % "
        f"| {cells[1]} | {cells[2]} |"
    )


HEADER = (
    "| strokes | n | swing energy g²·s, p" + "/".join(str(p) for p in PERCENTILES) + " | < 0.1 | < 0.15 "
    "| peak |a| g, same percentiles | time |a| > 1.5 g s, same percentiles |\n"
    "| --- | ---: | --- | ---: | ---: | --- | --- |"
)


def real(manifest):
    root = os.path.dirname(manifest)
    by_type = {}
    with open(manifest) as handle:
        for row in csv.DictReader(handle):
            if row["dataset"] != "tt-wrist" or row["split"] != "development" or row["stroke"] == "rest":
                continue
            times, acc, _ = read_samples(os.path.join(root, row["samples"]))
            with open(os.path.join(root, row["labels"])) as labels:
                strokes = [float(r["start"]) for r in csv.DictReader(labels) if r["kind"] == "hit"]
            name = row["stroke"] + (f" {row['side']}" if row["side"] else "")
            by_type.setdefault(name, []).extend(stroke_features(times, acc, strokes))
    print(HEADER)
    report("real, all", [r for rows in by_type.values() for r in rows])
    for name in sorted(by_type):
        report(f"real, {name}", by_type[name])


def simulated(paths):
    rows = []
    for path in paths:
        times, acc, hits = read_samples(path)
        rows.extend(stroke_features(times, acc, hits))
    print(HEADER)
    report(f"simulated ({len(paths)} files)", rows)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "real":
        real(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "simulated":
        simulated(sys.argv[2:])
    else:
        sys.exit("usage: stroke_energy.py real MANIFEST | simulated CSV...")
