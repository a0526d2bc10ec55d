# SPDX-License-Identifier: GPL-2.0-or-later
"""tt-wrist: one player's table-tennis strokes at the wrist (Apple Watch, ~50 Hz), offline.

`convert(out, folder)` reads every gzipped drill and rest file under `folder` (the data dir's
`tt-wrist/`: t_s, ax_g, ay_g, az_g in g unclipped, gx/gy/gz rad/s), converts the acceleration with
the SDU front end at 50 Hz only, and labels each reference stroke `hit,t,` (drills) or each
stroke-like swing `swing,t,` (rest). The reference comes from the gyroscope, which the detectors
never see; Docs/VALIDATION.md ("tt-wrist") says how and why. `python3 Validation/tt_wrist.py DIR`
prints the reference check per drill without writing anything.
"""
import glob
import gzip
import os
import sys

import numpy as np

DATASET = "tt-wrist"
# The robot's feed period (the source's description of the recordings).
FEED_PERIOD_S = 1.166
# Two reference strokes are at least this far apart: 0.69 feed periods. A stroke's backswing or a
# split swing peaks 0.5–0.8 s from the stroke's own peak; steady strokes are 1.0–1.3 s apart.
MIN_SPACING_S = 0.8
# A stroke's |ω| peak reaches at least this share of the drill's stroke level (the upper quartile of
# its candidate peaks); backswings and between-ball movement stay under 0.3 of it.
LEVEL_SHARE = 0.4
LEVEL_PERCENTILE = 75
# Nothing under 2 rad/s (115 °/s) is a stroke: the slowest blocks peak at 3–5 rad/s.
FLOOR_RAD_S = 2.0
# A rest swing: a |ω| peak at least as fast as this, about the 10th percentile of the kept drills'
# block strokes (the slowest stroke type; 99 % of flips and topspins peak faster).
SWING_RAD_S = 4.0
# The gyroscope's count and the feed period's expected count may differ by this many strokes, or
# this share of the expected count if larger; beyond it the drill is left out.
TOLERANCE_STROKES = 3
TOLERANCE_SHARE = 0.05
# Split by recording date (the validation contract), fixed before any detector ran on the data.
SPLITS = {
    "2021-04-08": "development", "2021-04-09": "development", "2021-02-25": "development",
    "2021-03-02": "development", "2021-04-12": "held-out", "2021-04-22": "held-out", "2021-03-03": "held-out",
}
# Folder → stroke type and the side of the body it is played on.
FOLDERS = {
    "bloco": ("block", ""), "flip_direita": ("flip", "right"), "flip_esquerda": ("flip", "left"),
    "top_spin_direita": ("topspin", "right"), "top_spin_esquerda": ("topspin", "left"), "rest": ("rest", ""),
}
# The player's forehand is on the right (direita): Docs/VALIDATION.md, "Which side is the forehand".
SIDES = {"right": "forehand", "left": "backhand", "": ""}
# Side check: the share of a drill's strokes whose fastest gyroscope axis is the face's normal (z).
# It is 0.89–1.00 in the forehand topspin drills and 0.00–0.15 in every backhand drill; a drill on the
# forehand side under FOREHAND_MIN_Z_SHARE, or on the backhand side over BACKHAND_MAX_Z_SHARE, moves like
# the other side's drills: its side is left empty (not scored) and reported.
FOREHAND_MIN_Z_SHARE = 0.10
BACKHAND_MAX_Z_SHARE = 0.50
PLACEMENT = "wrist (racket arm)"
SUBJECT = "P1"


def read_recording(path):
    """t from 0 (s), acceleration (g) and angular rate (rad/s). A few rows lack the gyroscope
    (up to 4 % of a file): those are interpolated from their neighbours."""
    with gzip.open(path, "rt") as source:
        header = source.readline().strip().split(",")
        if header[:7] != ["t_s", "ax_g", "ay_g", "az_g", "gx_rad_s", "gy_rad_s", "gz_rad_s"]:
            raise ValueError(f"{path}: unexpected header {header}")
        rows = [[float(v) if v else np.nan for v in line.strip().split(",")] for line in source if line.strip()]
    if any(len(row) != 7 for row in rows):
        raise ValueError(f"{path}: a row without 7 fields")
    data = np.array(rows)
    t = data[:, 0] - data[0, 0]
    if np.isnan(data[:, :4]).any() or np.any(np.diff(t) <= 0):
        raise ValueError(f"{path}: missing acceleration or non-increasing time")
    gyro = data[:, 4:7]
    present = ~np.isnan(gyro[:, 0])
    gyro = np.stack([np.interp(t, t[present], gyro[present, k]) for k in range(3)], axis=1)
    return t, data[:, 1:4], gyro


def peaks(t, magnitude, spacing, floor):
    """Local maxima of `magnitude` at or above `floor`, the largest first, none within `spacing` of
    a larger one kept before it; in time order."""
    inner = np.arange(1, len(magnitude) - 1)
    local = inner[(magnitude[inner] >= magnitude[inner - 1]) & (magnitude[inner] > magnitude[inner + 1])
                  & (magnitude[inner] >= floor)]
    kept = []
    for index in sorted(local, key=lambda i: -magnitude[i]):
        if all(abs(t[index] - t[other]) >= spacing for other in kept):
            kept.append(index)
    return np.array(sorted(kept), dtype=int)


def reference_strokes(t, gyro):
    """The drill's strokes: |ω| peaks at least MIN_SPACING_S apart and at least LEVEL_SHARE of the
    drill's stroke level. Returns (stroke times, threshold used)."""
    magnitude = np.linalg.norm(gyro, axis=1)
    candidates = peaks(t, magnitude, MIN_SPACING_S, FLOOR_RAD_S)
    if len(candidates) == 0:
        return np.array([]), FLOOR_RAD_S
    threshold = max(FLOOR_RAD_S, LEVEL_SHARE * np.percentile(magnitude[candidates], LEVEL_PERCENTILE))
    return t[candidates[magnitude[candidates] >= threshold]], threshold


def rest_swings(t, gyro):
    magnitude = np.linalg.norm(gyro, axis=1)
    return t[peaks(t, magnitude, MIN_SPACING_S, SWING_RAD_S)]


def feed_check(strokes):
    """(expected count from the feed period over the stroking stretch, tolerance, agrees)."""
    if len(strokes) < 2:
        return 0.0, TOLERANCE_STROKES, False
    expected = (strokes[-1] - strokes[0]) / FEED_PERIOD_S + 1
    tolerance = max(TOLERANCE_STROKES, TOLERANCE_SHARE * expected)
    return expected, tolerance, abs(len(strokes) - expected) <= tolerance


def z_share(t, gyro, strokes):
    """The share of strokes whose largest |ω| component at the peak is the face's normal (z)."""
    if len(strokes) == 0:
        return 0.0
    at_peaks = np.abs(gyro[np.searchsorted(t, strokes)])
    return float(np.mean(np.argmax(at_peaks, axis=1) == 2))


def side_agrees(side, share):
    return not ((side == "forehand" and share < FOREHAND_MIN_Z_SHARE)
                or (side == "backhand" and share > BACKHAND_MAX_Z_SHARE))


def recordings(folder):
    """(folder name, file stem, date, path) of every recording, in a fixed order."""
    found = []
    for name in sorted(FOLDERS):
        for path in sorted(glob.glob(os.path.join(folder, name, "*.csv.gz"))):
            stem = os.path.basename(path)[: -len(".csv.gz")]
            found.append((name, stem, stem[:10], path))
    if not found:
        raise FileNotFoundError(f"no tt-wrist recordings under {folder}: point VALIDATION_DATA_DIR at the data")
    return found


def survey(folder):
    """Per recording: the reference and the check, as dicts (convert and the report share them)."""
    rows = []
    for name, stem, date, path in recordings(folder):
        if date not in SPLITS:
            raise ValueError(f"{path}: date {date} has no split in tt_wrist.SPLITS")
        t, acceleration, gyro = read_recording(path)
        stroke, body_side = FOLDERS[name]
        row = {"folder": name, "stem": stem, "split": SPLITS[date], "stroke": stroke, "side": SIDES[body_side],
               "t": t, "acceleration": acceleration, "duration": t[-1]}
        if stroke == "rest":
            row.update(kind="swing", events=rest_swings(t, gyro), kept=True)
        else:
            strokes, threshold = reference_strokes(t, gyro)
            expected, tolerance, agrees = feed_check(strokes)
            intervals = np.diff(strokes)
            cadence = float(np.median(intervals)) if len(intervals) else 0.0
            share = z_share(t, gyro, strokes)
            row.update(kind="hit", events=strokes, kept=agrees, expected=expected, tolerance=tolerance,
                       threshold=threshold, cadence=cadence, z_share=share,
                       side_agrees=side_agrees(row["side"], share))
        rows.append(row)
    return rows


def recording_name(row):
    return f"{row['folder']}-{row['stem'].replace('_', '-').replace('.', '-')}"


def convert(out, folder):
    """Adds every kept drill and every rest recording to `out` (convert.py's Output) at 50 Hz."""
    rows = survey(folder)
    for row in rows:
        if not row["kept"]:
            continue
        labels = [(row["kind"], float(time), None) for time in row["events"]]
        side = row["side"] if row.get("side_agrees", True) else ""
        out.add(DATASET, recording_name(row), SUBJECT, PLACEMENT, row["split"], ["table-tennis"], row["t"],
                row["acceleration"], labels, rates=(50,), stroke=row["stroke"], side=side)
    report(rows, sys.stdout)


def report(rows, stream):
    """The reference check per drill, and the drills left out."""
    left_out = [row for row in rows if not row["kept"]]
    drills = [row for row in rows if row["kind"] == "hit"]
    stream.write(f"tt_wrist.py: {len(drills) - len(left_out)} of {len(drills)} drills kept, "
                 f"{len(rows) - len(drills)} rest recordings\n")
    for row in left_out:
        stream.write(f"  left out {row['folder']}/{row['stem']}: {len(row['events'])} gyroscope strokes, "
                     f"{row['expected']:.1f} expected at {FEED_PERIOD_S} s over "
                     f"{row['events'][-1] - row['events'][0]:.1f} s (cadence {row['cadence']:.2f} s)\n")
    for row in rows:
        if row["kept"] and not row.get("side_agrees", True):
            other = "backhand" if row["side"] == "forehand" else "forehand"
            stream.write(f"  side not scored {row['folder']}/{row['stem']}: its strokes move like the {other} drills' "
                         f"({row['z_share']:.2f} of them turn about the face's normal)\n")


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: tt_wrist.py TT_WRIST_DIR (prints the reference check per recording)")
    print("folder,recording,split,stroke,side,duration_s,threshold_rad_s,reference,expected,difference,"
          "median_interval_s,kept,z_share,side_scored")
    for row in survey(argv[1]):
        if row["kind"] == "hit":
            print(f"{row['folder']},{row['stem']},{row['split']},{row['stroke']},{row['side']},{row['duration']:.1f},"
                  f"{row['threshold']:.1f},{len(row['events'])},{row['expected']:.1f},"
                  f"{len(row['events']) - row['expected']:+.1f},{row['cadence']:.3f},{'yes' if row['kept'] else 'no'},"
                  f"{row['z_share']:.2f},{'yes' if row['side'] and row['side_agrees'] else 'no'}")
        else:
            print(f"{row['folder']},{row['stem']},{row['split']},rest,,{row['duration']:.1f},{SWING_RAD_S:.1f},"
                  f"{len(row['events'])} swings,,,,yes,,no")


if __name__ == "__main__":
    main(sys.argv)
