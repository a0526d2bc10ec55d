# SPDX-License-Identifier: GPL-2.0-or-later
"""tt-wrist: is the watch's frame the same between drills? Prints the evidence Docs/VALIDATION.md
("The watch's frame between drills") quotes; converts nothing.

`python3 Validation/tt_frames.py DIR/tt-wrist` prints, per kept drill with a side, the share of its
strokes whose rotation at contact turns the same way about gravity (ω · g > 0, g the acceleration
0.6–0.9 s before the gyroscope's peak, ω the mean rate over −0.15…+0.05 s), and, per pair of drills
of one stroke type and side, the orthogonal matrix that best maps the first drill's acceleration
directions onto the second's (gravity before the stroke and the acceleration 0.16 and 0.08 s before,
at and 0.08 s after the peak, averaged over the strokes): its determinant (+1 a rotation, −1 a
reflection) and how well the gyroscope follows it as a plain vector (Q ω) or as an axial one
(det Q · Q ω). A rigid watch worn another way turns its frame (det +1); only a reflected frame or a
mirrored movement gives det −1 with the gyroscope following as an axial vector.
"""
import itertools
import sys

import numpy as np

import tt_wrist


def unit(vector):
    return vector / np.linalg.norm(vector)


def drill_vectors(t, acceleration, gyro, strokes):
    """(acceleration directions 5 x 3, rotation axis, share of ω · g > 0) averaged over the strokes,
    and the share of strokes whose acceleration-only cue is positive: det[g, a(−0.12 s) − g, a(0) − g]
    on the clipped acceleration the detector sees, the sense of the swing about gravity."""
    directions, axes, senses, cues = [], [], [], []
    for time in strokes:
        before = (t > time - 0.9) & (t < time - 0.6)
        around = (t > time - 0.15) & (t < time + 0.05)
        if before.sum() < 3 or np.searchsorted(t, time + 0.08) >= len(t):
            continue
        gravity = unit(acceleration[before].mean(axis=0))
        directions.append([gravity] + [unit(acceleration[np.searchsorted(t, time + lag)])
                                       for lag in (-0.16, -0.08, 0.0, 0.08)])
        rate = gyro[around].mean(axis=0)
        axes.append(unit(rate))
        senses.append(rate @ gravity > 0)
        clipped = np.clip(acceleration, -2, 2)
        g = clipped[before].mean(axis=0)
        swing = clipped[np.searchsorted(t, time - 0.12)] - g
        contact = clipped[np.searchsorted(t, time)] - g
        cues.append(np.linalg.det(np.stack([g, swing, contact])) > 0)
    return (np.mean(directions, axis=0), unit(np.mean(axes, axis=0)), float(np.mean(senses)),
            float(np.mean(cues)), len(cues))


def best_orthogonal(a, b):
    """The orthogonal Q (det +1 or −1, whichever fits better) minimising |Q a − b|; a, b are 3 x N."""
    u, _, vt = np.linalg.svd(b @ a.T)
    fits = []
    for sign in (1.0, -1.0):
        q = u @ np.diag([1.0, 1.0, sign * np.linalg.det(u @ vt)]) @ vt
        fits.append((np.linalg.norm(q @ a - b), q))
    return min(fits, key=lambda fit: fit[0])[1]


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: tt_frames.py DIR/tt-wrist\n")
        return 64
    rows = [row for row in tt_wrist.survey(argv[1]) if row["kind"] == "hit" and row["kept"] and row["side"]]
    paths = {(name, stem): path for name, stem, _, path in tt_wrist.recordings(argv[1])}
    drills = []
    best = {}
    for row in rows:
        t, acceleration, gyro = tt_wrist.read_recording(paths[(row["folder"], row["stem"])])
        directions, axis, sense, cue, count = drill_vectors(t, acceleration, gyro, row["events"])
        drills.append((row, directions, axis, sense))
        right, total = best.get(row["split"], (0.0, 0))
        best[row["split"]] = (right + max(cue, 1 - cue) * count, total + count)
        print(f"{row['folder']:18s} {row['stem'][:19]} {row['split']:11s} {row['side']:8s} "
              f"omega.g > 0 in {sense:.2f} of its strokes, acceleration cue > 0 in {cue:.2f}")
    for split, (right, total) in sorted(best.items()):
        print(f"{split}: the acceleration cue with each drill's frame known (its better sign per drill) "
              f"is right for {right / total:.3f} of {total} strokes")
    print("\npairs of one stroke type and side: det Q, gyroscope as a plain vector, as an axial vector")
    counts = {}
    for (r1, d1, w1, _), (r2, d2, w2, _) in itertools.combinations(drills, 2):
        if r1["folder"] != r2["folder"]:
            continue
        q = best_orthogonal(d1.T, d2.T)
        det = round(float(np.linalg.det(q)))
        plain, axial = float((q @ w1) @ w2), float((det * q @ w1) @ w2)
        counts.setdefault(det, []).append(axial > 0.5)
        print(f"{r1['folder']:18s} {r1['stem'][:16]} {r2['stem'][:16]} det {det:+d}  plain {plain:+.2f}  "
              f"axial {axial:+.2f}")
    for det, axial in sorted(counts.items()):
        print(f"det {det:+d}: {len(axial)} pairs; in {sum(axial)} the gyroscope follows (det Q · Q ω · ω' > 0.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
