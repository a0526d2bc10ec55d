# SPDX-License-Identifier: GPL-2.0-or-later
"""The SDU sensor's front end applied to a recording: resampling, quantisation, clipping.

Numpy only, so the converter runs wherever numpy does. `python3 Validation/sdu.py IN OUT RATE`
converts one CSV of `t,x,y,z` in g at any rate (the unit tests use it so).
"""
import sys

import numpy as np

COUNTS_PER_G = 16384
# The sensor's ±2 g range in its 16-bit counts.
MIN_COUNT, MAX_COUNT = -32768, 32767
G = 9.80665


def lowpass(values, source_rate, cutoff):
    """Windowed-sinc FIR low-pass (zero phase) along axis 0, so decimation does not alias."""
    if cutoff >= source_rate / 2:
        return values
    half = int(round(2.0 * source_rate / cutoff))
    n = np.arange(-half, half + 1)
    taps = 2 * cutoff / source_rate * np.sinc(2 * cutoff / source_rate * n) * np.hamming(2 * half + 1)
    taps /= taps.sum()
    padded = np.pad(values, ((half, half), (0, 0)), mode="edge")
    return np.stack([np.convolve(padded[:, k], taps, mode="valid") for k in range(values.shape[1])], axis=1)


def resample(t, values, rate):
    """Uniform samples at `rate` Hz from t[0] on: low-pass at 0.4 × rate, then linear interpolation."""
    t = np.asarray(t, dtype=float)
    values = np.asarray(values, dtype=float)
    source_rate = (len(t) - 1) / (t[-1] - t[0])
    filtered = lowpass(values, source_rate, 0.4 * rate)
    grid = t[0] + np.arange(int(np.floor((t[-1] - t[0]) * rate)) + 1) / rate
    return grid, np.stack([np.interp(grid, t, filtered[:, k]) for k in range(values.shape[1])], axis=1)


def quantise(values_g):
    """What the sensor reports: whole counts of 1/16384 g, clipped to its ±2 g range."""
    counts = np.clip(np.round(np.asarray(values_g) * COUNTS_PER_G), MIN_COUNT, MAX_COUNT)
    return counts / COUNTS_PER_G


def sdu_samples(t, values_g, rate):
    """A recording as the SDU sensor at `rate` would deliver it; time starts at 0."""
    grid, resampled = resample(t, values_g, rate)
    return grid - grid[0], quantise(resampled)


def write_sample_csv(path, t, values_g):
    """Docs/FORMATS.md "Sample CSV": six decimals, so round(g × 16384) recovers each count."""
    with open(path, "w") as out:
        out.write("t,x,y,z\n")
        for time, (x, y, z) in zip(t, values_g):
            out.write(f"{time:.6f},{x:.6f},{y:.6f},{z:.6f}\n")


def clipped_fraction(values_g):
    return float(np.mean(np.any(np.abs(values_g) >= MAX_COUNT / COUNTS_PER_G, axis=1)))


def main(argv):
    if len(argv) != 4:
        sys.exit("usage: sdu.py IN.csv OUT.csv RATE_HZ (IN: t,x,y,z in g, any rate)")
    data = np.genfromtxt(argv[1], delimiter=",", skip_header=1, ndmin=2)
    t, values = sdu_samples(data[:, 0], data[:, 1:4], float(argv[3]))
    write_sample_csv(argv[2], t, values)


if __name__ == "__main__":
    main(sys.argv)
