# SPDX-License-Identifier: GPL-2.0-or-later
"""steps-oxford: people walking with a phone at six places on the body, steps from pads under both feet.

Source: the Oxford step counter project's data set (github.com/Oxford-step-counter/DataSet, folder
`optimisation/data/`, CC BY 4.0), copied gzipped into the data folder (its README.md). One folder per
walk, named `<phone>_<person>_<floor>_<position>_<repeat>`:

- `accelerometer.csv`: ns since boot, the app's sensor code, x, y, z in m/s² with gravity (100–400 Hz);
- `stepcounter.csv`: ns since boot, then the right and the left foot's pad, 1 while pressed. The pads
  are the project's ground-truth device (two pressure pads in the shoes, read by the phone over
  Bluetooth about ten times a second); the two columns alternate half a stride apart, each rising
  once per stride, so a step is a rise of either column.

Docs/VALIDATION.md ("steps-oxford") gives the reference rules below, the split and the figures.
"""
import gzip
import os

import numpy as np

import sdu

# A pad that rises again this soon after its foot's last contact is chattering, not stepping again:
# the device sends its pads' raw state, and no foot lands twice within 0.5 s when walking.
CHATTER_S = 0.5
# Two contacts of one foot in a row, no further apart than this many median strides, had the other
# foot's contact between them (walking alternates); a longer gap is a stop or a turn.
MISSED_STRIDES = 1.5

PLACEMENTS = {
    "inhand": "in hand",
    "armband": "armband",
    "swingingarm": "swinging hand",
    "frontpocket": "front pocket",
    "backpocket": "back pocket",
    "neckpouch": "neck pouch",
    "purse": "purse",
}
# Split by person, fixed before any detector ran on the walks: Carmelo's 14 walks (all six positions
# but the swinging hand, one phone) are held out; Jamie's and Dario's are for development.
HELD_OUT_PEOPLE = {"Carmelo"}
# Walks not scored, and why.
LEFT_OUT = {"_Patient_3": "both pads read pressed from start to end: there is no step reference"}


class WalkError(ValueError):
    """A walk folder that does not hold what this reader expects."""


def read_rows(path):
    """A gzipped numeric CSV without a header as a float array (one row per line)."""
    with gzip.open(path, "rt") as source:
        rows = [[float(v) for v in line.split(",")] for line in source if line.strip()]
    if not rows:
        raise WalkError(f"{path} is empty")
    return np.array(rows)


def walk_name(name):
    """(phone, person, floor, placement, repeat) of a folder name; WalkError if it is not one."""
    parts = name.split("_")
    if len(parts) != 5 or parts[3].lower() not in PLACEMENTS or not parts[4].isdigit():
        raise WalkError(f"steps-oxford folder `{name}` is not <phone>_<person>_<floor>_<position>_<repeat> "
                        f"with a position of {sorted(PLACEMENTS)}")
    return parts[0], parts[1], parts[2], PLACEMENTS[parts[3].lower()], int(parts[4])


def foot_contacts(t, pressed):
    """The times one foot's pad went down: half-way between the last poll that read it up and the
    first that read it down, chatter within CHATTER_S of the foot's last contact dropped."""
    rises = np.flatnonzero((pressed[1:] > 0.5) & (pressed[:-1] < 0.5)) + 1
    contacts = []
    for index in rises:
        time = (t[index - 1] + t[index]) / 2
        if contacts and time - contacts[-1] < CHATTER_S:
            continue
        contacts.append(time)
    return contacts


def reference_steps(t, right, left, end):
    """Both feet's contacts up to `end` in time order, with the other foot's contact added half-way
    between two contacts of one foot in a row that are no more than MISSED_STRIDES median strides apart
    (its pad did not register). Returns the steps and how many of them were added."""
    feet = [foot_contacts(t, right), foot_contacts(t, left)]
    strides = np.concatenate([np.diff(contacts) for contacts in feet if len(contacts) > 1])
    if len(strides) == 0:
        return sorted(s for s in feet[0] + feet[1] if s <= end), 0
    limit = MISSED_STRIDES * float(np.median(strides))
    events = sorted([(time, 0) for time in feet[0]] + [(time, 1) for time in feet[1]])
    steps = [time for time, _ in events if time <= end]
    added = 0
    for (a, foot_a), (b, foot_b) in zip(events[:-1], events[1:]):
        if foot_a == foot_b and b - a <= limit and (a + b) / 2 <= end:
            steps.append((a + b) / 2)
            added += 1
    return sorted(steps), added


def read_walk(path):
    """(t, acceleration in g, step times, steps added): times in s from the first accelerometer sample."""
    acc = read_rows(os.path.join(path, "accelerometer.csv.gz"))
    pads = read_rows(os.path.join(path, "stepcounter.csv.gz"))
    if acc.shape[1] != 5 or pads.shape[1] != 3:
        raise WalkError(f"{path}: expected accelerometer rows `ns,sensor,x,y,z` and stepcounter rows `ns,right,left`")
    origin = acc[0, 0]
    t = (acc[:, 0] - origin) / 1e9
    if np.any(np.diff(t) <= 0):
        raise WalkError(f"{path}: accelerometer timestamps do not increase")
    steps, added = reference_steps((pads[:, 0] - origin) / 1e9, pads[:, 1], pads[:, 2], t[-1])
    return t, acc[:, 2:5] / sdu.G, [float(s) for s in steps if s >= 0], added


def convert(out, folder):
    """Every walk in `folder` (the data folder's `steps-oxford/`) at the manifest's rates."""
    names = sorted(n for n in os.listdir(folder) if os.path.isdir(os.path.join(folder, n)))
    if not names:
        raise WalkError(f"no walk folders in {folder}")
    walks = [(name, walk_name(name)) for name in names if name not in LEFT_OUT]  # every name checked first
    for name, (_, person, _, placement, _) in walks:
        t, acc, steps, _ = read_walk(os.path.join(folder, name))
        split = "held-out" if person in HELD_OUT_PEOPLE else "development"
        out.add("steps-oxford", name, person, placement, split, ["steps"], t, acc,
                [("step", s, None) for s in steps])
