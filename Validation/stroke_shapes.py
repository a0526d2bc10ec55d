# SPDX-License-Identifier: GPL-2.0-or-later
"""What a table-tennis stroke looks like at the wrist, as the SDU sensor would deliver it.

The figures the synthetic stroke and rest models (Sources/VirtualSensor/Motion/MotionTableTennisDrill.swift,
MotionDrillBreak.swift) were fitted to. Reads only the development dates of tt-wrist (drills of 2021-04-08
and 2021-04-09, rest of 2021-02-25 and 2021-03-02); the held-out dates (2021-04-12, 2021-04-22, rest of
2021-03-03) are never opened.

    python3 Validation/stroke_shapes.py [DATA_DIR]       # real drills, one row per file
    python3 Validation/stroke_shapes.py --simulated CSV  # a `sportsensor-dev simulate` recording

Per stroke (reference: the gyroscope's |ω| peaks, at least 0.7 s apart and above 45 % of the file's 99th
percentile; for a simulated recording its hit labels), on the 50 Hz, ±2 g samples: |a − g| against a slow
(1 s) two-way low-pass of the reading as gravity; energies E = ∫ max(|a − g|² − 0.25, 0) dt over the
back-swing (−0.45…−0.12 s), the swing (−0.12…+0.25 s) and the return (+0.25…+0.75 s); the time any axis
sits at the clip; the lobes above 1 g within −0.55…+0.6 s.
"""
import glob
import gzip
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sdu import COUNTS_PER_G, MAX_COUNT, resample, sdu_samples  # noqa: E402

RATE = 50
DEVELOPMENT = ("2021-04-08", "2021-04-09")
DEVELOPMENT_REST = ("2021-02-25", "2021-03-02")


def development_files(root):
    for folder in sorted(os.listdir(root)):
        dates = DEVELOPMENT_REST if folder == "rest" else DEVELOPMENT
        for path in sorted(glob.glob(os.path.join(root, folder, "*.csv.gz"))):
            if os.path.basename(path).startswith(dates):
                yield folder, path


def two_way_lowpass(x, tau):
    a = 1 / (1 + tau * RATE)
    y = x.copy()
    for i in range(1, len(y)):
        y[i] = y[i - 1] + a * (x[i] - y[i - 1])
    for i in range(len(y) - 2, -1, -1):
        y[i] = y[i + 1] + a * (y[i] - y[i + 1])
    return y


def features(acc):
    gravity = np.stack([two_way_lowpass(acc[:, k], 1.0) for k in range(3)], axis=1)
    dynamic = np.linalg.norm(acc - gravity, axis=1)
    clipped = np.any(np.abs(acc) >= MAX_COUNT / COUNTS_PER_G - 1e-9, axis=1)
    return dynamic, clipped


def gyroscope_peaks(omega):
    height = 0.45 * np.percentile(omega, 99)
    candidates = [i for i in range(1, len(omega) - 1) if omega[i] >= height and omega[i - 1] <= omega[i] > omega[i + 1]]
    kept = []
    for i in sorted(candidates, key=lambda i: -omega[i]):
        if all(abs(i - j) >= 0.7 * RATE for j in kept):
            kept.append(i)
    return sorted(kept)


def energy(dynamic, i, start, end):
    part = dynamic[max(0, i + int(round(start * RATE))) : i + int(round(end * RATE))]
    return float(np.sum(np.maximum(part**2 - 0.25, 0)) / RATE)


def lobes_above_1g(dynamic, i):
    part = dynamic[max(0, i - int(0.55 * RATE)) : i + int(0.6 * RATE)] > 1
    return int(np.sum(part[1:] & ~part[:-1]) + part[0]) if len(part) else 0


def summarise(name, dynamic, clipped, strokes):
    rows = []
    for i in strokes[1:-1]:
        back, swing, late = energy(dynamic, i, -0.45, -0.12), energy(dynamic, i, -0.12, 0.25), energy(dynamic, i, 0.25, 0.75)
        clip_swing = np.sum(clipped[max(0, i - 15) : i + 15]) / RATE
        clip_late = np.sum(clipped[i + 15 : i + 40]) / RATE
        rows.append((back, swing, late, late / swing if swing > 0 else 0, clip_swing, clip_late, lobes_above_1g(dynamic, i)))
    if not rows:
        print(f"| {name} | 0 | – | – | – | – | – | – | – |")
        return
    r = np.array(rows)
    intervals = np.diff(strokes) / RATE
    print(
        f"| {name} | {len(strokes)} | {np.median(intervals):.2f} | {np.median(r[:, 6]):.0f} ({np.mean(r[:, 6]):.1f}) "
        f"| {np.median(r[:, 0]):.2f} / {np.median(r[:, 1]):.2f} / {np.median(r[:, 2]):.2f} "
        f"| {np.median(r[:, 3]):.2f} (p90 {np.percentile(r[:, 3], 90):.2f}) | {np.mean(r[:, 3] > 0.5):.2f} "
        f"| {np.median(r[:, 4]):.2f} | {np.median(r[:, 5]):.2f} |"
    )


HEADER = (
    "| recording | strokes | median interval s | lobes > 1 g per stroke median (mean) | E back / swing / return g²s "
    "| return / swing median (p90) | share return > half the swing | clip s, swing | clip s, return |\n"
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
)


def real(root):
    print(HEADER)
    for folder, path in development_files(root):
        with gzip.open(path, "rt") as handle:
            data = np.genfromtxt(handle, delimiter=",", skip_header=1)
        data = data[np.isfinite(data).all(axis=1)]
        _, acc = sdu_samples(data[:, 0], data[:, 1:4], RATE)
        _, gyro = resample(data[:, 0], data[:, 4:7], RATE)
        dynamic, clipped = features(acc)
        summarise(f"{folder} {os.path.basename(path)[:19]}", dynamic, clipped, gyroscope_peaks(np.linalg.norm(gyro, axis=1)))


def simulated(path):
    hits = []
    with open(path) as handle:
        lines = handle.read().splitlines()
    for line in lines:
        if line.startswith("#") and "hit" in line:
            numbers = [float(x) for x in line.replace("(", " ").replace(")", " ").replace(",", " ").replace(":", " ").split() if x.replace(".", "", 1).replace("-", "", 1).isdigit()]
            if numbers:
                hits.append(numbers[0])
    data = np.array([[float(x) for x in line.split(",")] for line in lines if line and line[0].isdigit()])
    dynamic, clipped = features(data[:, 1:4])
    strokes = [int(round(t * RATE)) for t in hits]
    print(HEADER)
    summarise(os.path.basename(path), dynamic, clipped, strokes)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--simulated":
        simulated(sys.argv[2])
    else:
        real(sys.argv[1] if len(sys.argv) > 1 else "../shared/validation-data/tt-wrist")
