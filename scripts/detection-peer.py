#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The batch peer of the streaming detectors: numpy + scipy over the same Int16 samples.

Usage: scripts/detection-peer.py --profile PROFILE --rate HZ [--repeats N] SAMPLES

SAMPLES holds raw little-endian Int16 triplets (x, y, z; 16384 per g, as the SDU sensor sends
them), the file `sportsensor-dev bench` writes for each profile. The script does what a batch
analysis in numpy + scipy would do for the profile, whole-array operations only (no loop over
samples in Python):

- table-tennis: |a - g| with g the axes low-passed (`scipy.signal.lfilter`, first order,
  0.6 s), then `scipy.signal.find_peaks` with a height of 1.3 g and 0.5 s between strokes;
- jump, throw: |a|, free-fall runs (|a| below 0.75 or 0.7 g) from a boolean mask whose run
  starts and ends come from `numpy.diff`, kept when the flight lasts 0.15-1.3 s (jump) or
  0.25-4 s (throw), the mean |a| over the run is below 0.65 g, a push of 1.2 g precedes it within
  1 s and an impact of 1.3 g follows within 40 ms (`reduceat` and fancy indexing over the
  candidate runs only); the height is g t^2 / 8;
- steps: |a| band-passed 0.5-3.5 Hz (`scipy.signal.butter`, second order, `sosfilt`: causal
  like the streaming detector), then `find_peaks` with a height of 0.015 g and 0.2 s between steps.

Reading the file and designing the filters are not timed; the compute is (from the Int16 array to
the events, g conversion included, as in the streaming benchmark), `--repeats` times, and the best
time is reported. Prints one JSON object:
{"profile", "samples", "events", "seconds", "repeats"}, `seconds` being the best repeat's time.
"""
import argparse
import json
import sys
import time

import numpy as np
from scipy import signal

COUNTS_PER_G = 16384.0
STANDARD_GRAVITY = 9.80665

# The streaming detectors' documented defaults (Sources/Detection), as far as a batch rule has them.
FLIGHT = {
    "jump": dict(enter=0.75, land=1.3, floor_max=0.65, push=1.2, push_window=1.0, shortest=0.15, longest=1.3),
    "throw": dict(enter=0.7, land=1.3, floor_max=0.65, push=1.2, push_window=1.0, shortest=0.25, longest=4.0),
}
IMPACT_WINDOW = 0.04


def axes_and_magnitude(raw):
    """The axes in g, one contiguous row each, and |a| per sample."""
    axes = raw.T.astype(np.float64)
    axes *= 1 / COUNTS_PER_G
    return axes, norm(axes)


def norm(axes):
    x, y, z = axes
    total = x * x
    total += y * y
    total += z * z
    return np.sqrt(total, out=total)


def segment_reduce(ufunc, values, starts, stops):
    """ufunc over values[starts[i]:stops[i]] for each i (every segment non-empty, every start in range)."""
    return ufunc.reduceat(values, np.column_stack((starts, stops)).ravel())[::2]


def strokes(raw, rate, design):
    axes, _ = axes_and_magnitude(raw)
    gravity, _ = signal.lfilter(design["b"], design["a"], axes, axis=1, zi=design["zi"] * axes[:, :1])
    axes -= gravity
    peaks, _ = signal.find_peaks(norm(axes), height=1.3, distance=max(int(0.5 * rate), 1))
    return peaks / rate


def flights(raw, rate, rule):
    _, m = axes_and_magnitude(raw)
    n = len(m)
    change = np.diff((m < rule["enter"]).view(np.int8), prepend=0, append=0)
    starts = np.flatnonzero(change == 1)
    ends = np.flatnonzero(change == -1)  # the first sample at or above `enter` after each run
    length = ends - starts
    keep = (length >= rule["shortest"] * rate) & (length <= rule["longest"] * rate) & (starts > 0) & (ends < n)
    starts, ends, length = starts[keep], ends[keep], length[keep]
    if len(starts) == 0:
        return starts / rate, starts / rate
    # Free fall: the mean |a| over the run.
    keep = segment_reduce(np.add, m, starts, ends) / length < rule["floor_max"]
    # The push: the largest |a| within `push_window` before the run.
    window = max(int(rule["push_window"] * rate), 1)
    keep &= segment_reduce(np.maximum, m, np.maximum(starts - window, 0), starts) >= rule["push"]
    # The impact: |a| reaches `land` within IMPACT_WINDOW after the run.
    reach = np.arange(max(int(round(IMPACT_WINDOW * rate)), 1) + 1)
    keep &= m[np.minimum(ends[:, None] + reach, n - 1)].max(axis=1) >= rule["land"]
    flight = length[keep] / rate
    return starts[keep] / rate, STANDARD_GRAVITY * flight * flight / 8


def steps(raw, rate, design):
    _, m = axes_and_magnitude(raw)
    m -= m[0]
    band = signal.sosfilt(design["sos"], m)
    peaks, _ = signal.find_peaks(band, height=0.015, distance=max(int(0.2 * rate), 1))
    return peaks / rate


def designs(profile, rate):
    """Filter coefficients, once per rate (not timed: a batch analysis designs them once)."""
    if profile == "table-tennis":
        alpha = (1 / rate) / (0.6 + 1 / rate)
        b, a = [alpha], [1, alpha - 1]
        return dict(b=b, a=a, zi=signal.lfilter_zi(b, a)[None, :])
    if profile == "steps":
        return dict(sos=signal.butter(2, [0.5, 3.5], btype="bandpass", fs=rate, output="sos"))
    return FLIGHT[profile]


def detect(profile, raw, rate, design):
    if profile == "table-tennis":
        return len(strokes(raw, rate, design))
    if profile == "steps":
        return len(steps(raw, rate, design))
    times, _ = flights(raw, rate, design)
    return len(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", required=True, choices=["table-tennis", "jump", "throw", "steps"])
    parser.add_argument("--rate", type=float, required=True, help="sample rate, Hz")
    parser.add_argument("--repeats", type=int, default=20, help="timed repeats of the compute (the best counts)")
    parser.add_argument("samples", help="raw little-endian Int16 x, y, z triplets")
    options = parser.parse_args()
    if options.rate <= 0 or options.repeats < 1:
        parser.error("--rate must be above 0 and --repeats at least 1")
    raw = np.fromfile(options.samples, dtype="<i2")
    if raw.size == 0 or raw.size % 3:
        sys.exit(f"{options.samples}: {raw.size * 2} bytes is not a whole number of Int16 x, y, z triplets")
    raw = raw.reshape(-1, 3)
    design = designs(options.profile, options.rate)
    best = float("inf")
    events = 0
    for _ in range(options.repeats):
        start = time.perf_counter()
        events = detect(options.profile, raw, options.rate, design)
        best = min(best, time.perf_counter() - start)
    json.dump(
        dict(profile=options.profile, samples=len(raw), events=events, seconds=best, repeats=options.repeats),
        sys.stdout,
    )
    print()


if __name__ == "__main__":
    main()
