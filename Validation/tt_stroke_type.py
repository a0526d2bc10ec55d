# SPDX-License-Identifier: GPL-2.0-or-later
"""tt-wrist: can the stroke type (topspin, block, flip) be told from acceleration alone?

`python3 Validation/tt_stroke_type.py CONVERTED_DIR` reads the converted drills (`convert.py --offline`:
50 Hz, whole counts of 1/16384 g, clipped at ±2 g, what the detector sees) and each drill's reference
strokes (its labels file, the gyroscope's peaks). Per stroke it takes a window around the stroke and
builds two feature sets: one that no rotation or mirror of the sensor on the strap changes (magnitudes,
widths, jerk, clipped run, dot products between accelerations, the interval from the previous stroke)
and one in the sensor's own axes. It fits a softmax regression on the development split only (fixed
settings, nothing chosen on the held-out split) and prints the held-out confusion matrices (all, per
side), per-drill majority accuracy, a leave-one-drill-out score on the development split, a
nearest-class-mean baseline on four invariant scalars, and the same models on held-out strokes turned
by random rotations (what a sensor worn another way does).
Docs/VALIDATION.md ("Stroke type from acceleration") quotes it. Numpy only; converts nothing.
"""
import csv
import os
import sys

import numpy as np

TYPES = ("topspin", "block", "flip")
RATE_HZ = 50
COUNTS_PER_G = 16384
CLIP_COUNT = 32767
# The stroke is centred on the largest |a| within this many samples of the reference time (the
# detector times a hit by |a|; the gyroscope's peak is up to 0.25 s away), the middle of a clipped run.
ALIGN = 12
BEFORE, AFTER = 15, 10  # the |a| profile and the axes: -0.30 ... +0.20 s around the centre
GRAVITY = (45, 30)  # gravity: the mean acceleration 0.9 ... 0.6 s before the centre
PREVIOUS_CAP_S = 3.0


def read_manifest(directory):
    with open(os.path.join(directory, "manifest.csv"), newline="") as source:
        rows = [row for row in csv.DictReader(source) if row["dataset"] == "tt-wrist" and row["stroke"] in TYPES]
    if not rows:
        raise FileNotFoundError(f"no tt-wrist drills in {directory}/manifest.csv: run convert.py --offline first")
    return rows


def folder_side(recording):
    """The drill's side from its folder (the manifest leaves it empty where the motion disagrees)."""
    if "direita" in recording:
        return "forehand"
    if "esquerda" in recording:
        return "backhand"
    return ""


def read_drill(directory, row):
    with open(os.path.join(directory, row["samples"])) as source:
        source.readline()
        data = np.array([[float(v) for v in line.split(",")] for line in source if line.strip()])
    counts = np.round(data[:, 1:4] * COUNTS_PER_G)
    with open(os.path.join(directory, row["labels"])) as source:
        strokes = [float(line.split(",")[1]) for line in source.readlines()[1:] if line.startswith("hit,")]
    return data[:, 0], counts / COUNTS_PER_G, np.abs(counts) >= CLIP_COUNT, np.array(strokes)


def centre(magnitude, clipped_any, index):
    low, high = max(index - ALIGN, 0), min(index + ALIGN + 1, len(magnitude))
    peak = low + int(np.argmax(magnitude[low:high]))
    if clipped_any[peak]:
        start, end = peak, peak
        while start > 0 and clipped_any[start - 1]:
            start -= 1
        while end + 1 < len(magnitude) and clipped_any[end + 1]:
            end += 1
        return (start + end) // 2, end - start + 1
    return peak, 0


def run_width(values, peak, level):
    """Samples around `peak` where `values` stays at or above `level`."""
    start, end = peak, peak
    while start > 0 and values[start - 1] >= level:
        start -= 1
    while end + 1 < len(values) and values[end + 1] >= level:
        end += 1
    return end - start + 1 if values[peak] >= level else 0


def invariant_features(a, clipped_any, c, run, previous_s):
    magnitude = np.linalg.norm(a, axis=1)
    g = a[c - GRAVITY[0]:c - GRAVITY[1]].mean(axis=0)
    g_hat = g / (np.linalg.norm(g) + 1e-9)
    window = a[c - BEFORE:c + AFTER + 1]
    dynamic = window - g
    along = dynamic @ g_hat
    across = np.linalg.norm(dynamic - along[:, None] * g_hat, axis=1)
    jerk = np.linalg.norm(np.diff(window, axis=0), axis=1) * RATE_HZ
    unit = window / (np.linalg.norm(window, axis=1)[:, None] + 1e-9)
    turn = [float(unit[BEFORE] @ unit[BEFORE - k]) for k in (3, 6, 9, 12, 15)]
    turn += [float(unit[BEFORE] @ unit[BEFORE + k]) for k in (3, 6, 10)]
    dyn_magnitude = np.linalg.norm(dynamic, axis=1)
    return np.concatenate([
        magnitude[c - BEFORE:c + AFTER + 1],  # the |a| profile
        along[::2], across[::2],  # dynamic acceleration along and across gravity
        turn,  # how far the acceleration's direction turns into the contact
        [magnitude[c], dyn_magnitude.max(), dyn_magnitude.mean(), magnitude[c - BEFORE:c + AFTER + 1].std(),
         run_width(magnitude, c, 1.5), run_width(magnitude, c, 2.5), run, clipped_any[c - BEFORE:c + AFTER + 1].sum(),
         jerk.max(), jerk.mean(), jerk[:BEFORE].mean(), jerk[BEFORE:].mean(),
         float(g_hat @ unit[BEFORE]), np.linalg.norm(g), min(previous_s, PREVIOUS_CAP_S)],
    ])


def frame_features(a, c):
    g = a[c - GRAVITY[0]:c - GRAVITY[1]].mean(axis=0)
    return np.concatenate([a[c - BEFORE:c + AFTER + 1].ravel(), g])


def baseline_features(invariant):
    """Four invariant scalars: peak |a|, width above 1.5 g, clipped run, mean jerk."""
    n = BEFORE + AFTER + 1
    base = n + 2 * len(range(0, n, 2)) + 8
    return invariant[:, [base, base + 4, base + 6, base + 9]]


def collect(directory):
    strokes = []
    for row in read_manifest(directory):
        t, a, clipped, times = read_drill(directory, row)
        clipped_any = clipped.any(axis=1)
        magnitude = np.linalg.norm(a, axis=1)
        for k, time in enumerate(times):
            index = int(round(time * RATE_HZ))
            c, run = centre(magnitude, clipped_any, min(max(index, 0), len(t) - 1))
            if c - GRAVITY[0] < 0 or c + AFTER + 1 > len(t):
                continue
            previous = time - times[k - 1] if k > 0 else PREVIOUS_CAP_S
            strokes.append({"split": row["split"], "drill": row["recording"], "type": row["stroke"],
                            "side": folder_side(row["recording"]), "a": a, "c": c,
                            "invariant": invariant_features(a, clipped_any, c, run, previous),
                            "frame": frame_features(a, c)})
    return strokes


def fit_softmax(x, y, classes, l2=1e-2, steps=3000, rate=0.5):
    """Multinomial logistic regression, classes weighted equally, fixed settings."""
    onehot = np.eye(classes)[y]
    weight = (len(y) / (classes * np.bincount(y, minlength=classes)))[y]
    w = np.zeros((x.shape[1] + 1, classes))
    xb = np.hstack([x, np.ones((len(x), 1))])
    for _ in range(steps):
        z = xb @ w
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        gradient = xb.T @ ((p - onehot) * weight[:, None]) / len(y) + l2 * np.vstack([w[:-1], np.zeros((1, classes))])
        w -= rate * gradient
    return lambda z: np.argmax(np.hstack([z, np.ones((len(z), 1))]) @ w, axis=1)


def fit_nearest_mean(x, y, classes):
    means = np.stack([x[y == k].mean(axis=0) for k in range(classes)])
    return lambda z: np.argmin(((z[:, None, :] - means[None]) ** 2).sum(axis=2), axis=1)


def standardised(train, *others):
    mean, scale = train.mean(axis=0), train.std(axis=0) + 1e-9
    return [(m - mean) / scale for m in (train, *others)]


def confusion(truth, predicted):
    matrix = np.zeros((len(TYPES), len(TYPES)), dtype=int)
    for a, b in zip(truth, predicted):
        matrix[a, b] += 1
    return matrix


def print_confusion(title, truth, predicted):
    matrix = confusion(truth, predicted)
    print(f"{title}: {np.trace(matrix)} of {matrix.sum()} right ({np.trace(matrix) / max(matrix.sum(), 1):.3f})")
    print("  reference \\ predicted  " + "".join(f"{name:>9}" for name in TYPES) + "   recall")
    for k, name in enumerate(TYPES):
        total = matrix[k].sum()
        recall = f"{matrix[k, k] / total:.3f}" if total else "–"
        print(f"  {name:<22}" + "".join(f"{v:>9}" for v in matrix[k]) + f"   {recall}")


def drill_majority(strokes, predicted):
    by_drill = {}
    for stroke, guess in zip(strokes, predicted):
        by_drill.setdefault(stroke["drill"], (stroke["type"], []))[1].append(guess)
    right = sum(TYPES[np.bincount(guesses, minlength=3).argmax()] == kind for kind, guesses in by_drill.values())
    return right, len(by_drill), by_drill


def rotated(strokes, seed):
    """Held-out strokes with each drill turned by one random rotation (a sensor worn another way)."""
    rng = np.random.default_rng(seed)
    turns, out = {}, []
    for stroke in strokes:
        if stroke["drill"] not in turns:
            q, r = np.linalg.qr(rng.normal(size=(3, 3)))
            q *= np.sign(np.diag(r))
            turns[stroke["drill"]] = q if np.linalg.det(q) > 0 else -q
        out.append(frame_features(stroke["a"] @ turns[stroke["drill"]].T, stroke["c"]))
    return np.array(out)


def leave_one_drill_out(strokes, x, y):
    """Development only: each drill scored by a fit on the other development drills."""
    drills = np.array([s["drill"] for s in strokes])
    right = 0
    for drill in sorted(set(drills)):
        out = drills == drill
        train, test = standardised(x[~out], x[out])
        right += int(np.sum(fit_softmax(train, y[~out], 3)(test) == y[out]))
    return right / len(y)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: tt_stroke_type.py CONVERTED_DIR (convert.py --offline's output)\n")
        return 64
    strokes = collect(argv[1])
    dev = [s for s in strokes if s["split"] == "development"]
    held = [s for s in strokes if s["split"] == "held-out"]
    y_dev = np.array([TYPES.index(s["type"]) for s in dev])
    y_held = np.array([TYPES.index(s["type"]) for s in held])
    inv_dev, inv_held = (np.array([s["invariant"] for s in part]) for part in (dev, held))
    frm_dev, frm_held = (np.array([s["frame"] for s in part]) for part in (dev, held))
    frm_rot = rotated(held, 26)
    print(f"tt_stroke_type.py: development {len(dev)} strokes in {len({s['drill'] for s in dev})} drills, "
          f"held-out {len(held)} in {len({s['drill'] for s in held})}; invariant features {inv_dev.shape[1]}, "
          f"frame features {frm_dev.shape[1]}")
    models = {}
    a, b = standardised(baseline_features(inv_dev), baseline_features(inv_held))
    models["baseline: nearest class mean, 4 invariant scalars"] = (fit_nearest_mean(a, y_dev, 3), a, b, b)
    a, b = standardised(inv_dev, inv_held)
    models["invariant features, softmax regression"] = (fit_softmax(a, y_dev, 3), a, b, b)
    a, b, r = standardised(frm_dev, frm_held, frm_rot)
    models["frame features, softmax regression"] = (fit_softmax(a, y_dev, 3), a, b, r)
    both_dev, both_held = np.hstack([inv_dev, frm_dev]), np.hstack([inv_held, frm_held])
    a, b, r = standardised(both_dev, both_held, np.hstack([inv_held, frm_rot]))
    models["invariant + frame features, softmax regression"] = (fit_softmax(a, y_dev, 3), a, b, r)
    print(f"invariant features, development, each drill left out of its own fit: "
          f"{leave_one_drill_out(dev, inv_dev, y_dev):.3f} right")
    for name, (predict, x_dev, x_held, x_rot) in models.items():
        print(f"\n== {name}")
        print(f"development (in sample): {np.mean(predict(x_dev) == y_dev):.3f}")
        guesses = predict(x_held)
        print_confusion("held-out", y_held, guesses)
        for side in ("forehand", "backhand", ""):
            chosen = np.array([s["side"] == side for s in held])
            print_confusion(f"held-out, {side or 'no side (block)'}", y_held[chosen], guesses[chosen])
        right, total, by_drill = drill_majority(held, guesses)
        print(f"held-out drills whose majority is their type: {right} of {total}")
        for drill, (kind, votes) in sorted(by_drill.items()):
            counts = np.bincount(votes, minlength=3)
            print(f"  {drill} ({kind}): " + ", ".join(f"{TYPES[k]} {counts[k]}" for k in range(3)))
        if x_rot is not x_held:
            print(f"held-out, each drill turned by a random rotation: {np.mean(predict(x_rot) == y_held):.3f} right")
        else:
            print("held-out, each drill turned by a random rotation: the same (no feature depends on the frame)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
