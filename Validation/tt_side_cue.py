# SPDX-License-Identifier: GPL-2.0-or-later
"""tt-wrist: how well can acceleration alone tell the sense of a stroke's swing about gravity?
Prints the figure Docs/VALIDATION.md ("The watch's frame between drills") quotes; converts nothing.

`python3 Validation/tt_side_cue.py DIR/tt-wrist` fits, on the development split only, a linear
classifier without intercept on pseudo-scalars of the clipped acceleration (det[g, a_p − g, a_q − g]
for pairs of samples before and at the stroke, and the area the dynamic acceleration sweeps about
g), each also as x·|x|, against the gyroscope's sense at contact (the sign of ω · g, as
tt_frames.py takes it). Both sides of that relation change sign together when a frame is
reflected, so it holds in whatever frame a drill was recorded: no label and no frame enters the
fit. It chooses the gravity window and the span by development accuracy and prints both splits.
"""
import sys

import numpy as np

import tt_wrist

GRAVITY_WINDOWS_S = ((0.6, 0.9), (0.3, 0.6), (0.0, 1.0))
SPANS = (10, 20, 30)  # samples before the stroke's peak (about 50 Hz)
AFTER = 5  # samples after it


def features(t, acceleration, gyro, strokes, window, span):
    rows, senses = [], []
    clipped = np.clip(acceleration, -2, 2)
    for time in strokes:
        index = np.searchsorted(t, time)
        if index < 50 or index + AFTER + 1 >= len(t):
            continue
        before = (t > time - 0.9) & (t < time - 0.6)
        around = (t > time - 0.15) & (t < time + 0.05)
        senses.append(np.sign(gyro[around].mean(axis=0) @ acceleration[before].mean(axis=0)))
        g = clipped[(t > time - window[1]) & (t < time - window[0])].mean(axis=0)
        dynamic = clipped[index - span:index + AFTER] - g
        row = [np.linalg.det(np.stack([g, dynamic[p], dynamic[q]]))
               for p in range(0, len(dynamic), 2) for q in range(p + 2, len(dynamic), 2)]
        swept = np.cross(dynamic[:-1], dynamic[1:]) @ g
        rows.append(row + [swept.sum(), swept[-10:].sum(), swept[-5:].sum()])
    return rows, senses


def fit(train, senses):
    """Logistic regression without intercept (an odd function of the features), fixed steps."""
    weights = np.zeros(train.shape[1])
    for _ in range(4000):
        margin = np.clip(senses * (train @ weights), -30, 30)
        gradient = -(train * (senses / (1 + np.exp(margin)))[:, None]).mean(axis=0) + 3e-3 * weights
        weights -= 0.3 * gradient
    return weights


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: tt_side_cue.py DIR/tt-wrist\n")
        return 64
    drills = [row for row in tt_wrist.survey(argv[1]) if row["kind"] == "hit" and row["kept"]]
    paths = {(name, stem): path for name, stem, _, path in tt_wrist.recordings(argv[1])}
    signals = {(row["folder"], row["stem"]): tt_wrist.read_recording(paths[(row["folder"], row["stem"])])
               for row in drills}
    results = []
    for window in GRAVITY_WINDOWS_S:
        for span in SPANS:
            data = {"development": ([], []), "held-out": ([], [])}
            for row in drills:
                rows, senses = features(*signals[(row["folder"], row["stem"])], row["events"], window, span)
                data[row["split"]][0].extend(rows)
                data[row["split"]][1].extend(senses)
            train, train_senses = (np.array(part) for part in data["development"])
            test, test_senses = (np.array(part) for part in data["held-out"])
            scale = np.sqrt((train ** 2).mean(axis=0)) + 1e-12
            train, test = train / scale, test / scale
            train, test = np.hstack([train, train * np.abs(train)]), np.hstack([test, test * np.abs(test)])
            weights = fit(train, train_senses)
            development = float(np.mean(np.sign(train @ weights) == train_senses))
            held_out = float(np.mean(np.sign(test @ weights) == test_senses))
            results.append((development, held_out, window, span, len(train_senses), len(test_senses)))
            print(f"gravity {window[0]:.1f}-{window[1]:.1f} s before, {span} samples: "
                  f"development {development:.3f}, held-out {held_out:.3f}")
    development, held_out, window, span, n_development, n_held_out = max(results, key=lambda result: result[0])
    print(f"chosen by development ({n_development} strokes): gravity {window[0]:.1f}-{window[1]:.1f} s, {span} samples; "
          f"agrees with the gyroscope's sense in {development:.3f} of development and {held_out:.3f} of "
          f"{n_held_out} held-out strokes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
