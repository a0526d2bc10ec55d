# SPDX-License-Identifier: GPL-2.0-or-later
"""Turns the validation recordings shipped in PyPI packages into sample CSVs and reference labels.

usage: convert.py PACKAGES_DIR OUT_DIR [DATA_DIR]
       convert.py --offline DATA_DIR OUT_DIR [SET ...]

PACKAGES_DIR holds the pinned wheels `make validate` downloads (Docs/VALIDATION.md lists them).
The wheels are read as zip files, never installed or imported. OUT_DIR receives, per recording
and rate, `<dataset>/<recording>.<rate>hz.csv` (Docs/FORMATS.md "Sample CSV", as the SDU sensor
would deliver it), `<dataset>/<recording>.labels.csv` and one `manifest.csv` for
`sportsensor-dev validate`. DATA_DIR (../shared/validation-data, VALIDATION_DATA_DIR in the
Makefile) holds the offline sets (OFFLINE_SETS): each has a module beside this script whose
`convert(out, folder)` reads the set's folder. `--offline` converts only those (or only the SETs
named): numpy is all it needs, and no network.
"""
import glob
import io
import os
import sys
import zipfile

import numpy as np

# sdu.py sits beside this script; no __pycache__ in the work tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sdu  # noqa: E402

RATES = (100, 50)
# (folder in DATA_DIR, module beside this script with `convert(out, folder)`)
OFFLINE_SETS = [("tt-wrist", "tt_wrist"), ("steps-oxford", "steps_oxford")]


def wheel_member(packages, pattern, member):
    paths = sorted(glob.glob(os.path.join(packages, pattern)))
    if not paths:
        sys.exit(f"convert.py: no {pattern} in {packages}: run `make validate` (it downloads the pinned wheels)")
    with zipfile.ZipFile(paths[-1]) as wheel:
        return wheel.read(member).decode("utf-8-sig", errors="replace")


class Output:
    """Collects the converted recordings and writes the manifest."""

    def __init__(self, root):
        self.root = root
        self.rows = []

    def add(self, dataset, recording, subject, placement, split, score, t, values_g, labels, rates=RATES, stroke="",
            side=""):
        """One recording at each of `rates`. `stroke` (topspin, flip, block, rest) and `side` (forehand,
        backhand) describe a table-tennis drill as a whole; both are empty for other recordings."""
        folder = os.path.join(self.root, dataset)
        os.makedirs(folder, exist_ok=True)
        label_path = f"{dataset}/{recording}.labels.csv"
        with open(os.path.join(self.root, label_path), "w") as out:
            out.write("kind,start,end\n")
            for kind, start, end in sorted(labels, key=lambda label: label[1]):
                out.write(f"{kind},{start:.4f},{'' if end is None else f'{end:.4f}'}\n")
        for rate in rates:
            st, sv = sdu.sdu_samples(t, values_g, rate)
            # Labels are on the source clock; the converted file starts at the source's first sample.
            sample_path = f"{dataset}/{recording}.{rate}hz.csv"
            sdu.write_sample_csv(os.path.join(self.root, sample_path), st, sv)
            self.rows.append(
                [dataset, recording, subject, placement, split, str(rate), sample_path, label_path, ";".join(score),
                 f"{st[-1] + 1 / rate:.3f}", f"{100 * sdu.clipped_fraction(sv):.2f}", stroke, side])

    def write_manifest(self):
        with open(os.path.join(self.root, "manifest.csv"), "w") as out:
            out.write(
                "dataset,recording,subject,placement,split,rate,samples,labels,score,duration_s,clipped_pct,stroke,side\n")
            for row in self.rows:
                out.write(",".join(row) + "\n")


# --- biomdp 0.11.2: countermovement and drop jumps on Kistler force plates ------------------------

def kistler_export(text):
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("abs time"))
    names = lines[header].split("\t")
    rows = [[float(v) if v.strip() else np.nan for v in line.split("\t")] for line in lines[header + 2:] if line.strip()]
    return names, np.array(rows)


def flights(t, vertical_force, threshold):
    """Takeoff and landing times: where the 5-ms mean of the vertical force crosses `threshold`.

    The plates' noise in flight is tens of newtons; a 5-ms mean and a threshold well above it keep
    one crossing per edge. Flights under 0.1 s are not flights."""
    rate = (len(t) - 1) / (t[-1] - t[0])
    width = max(1, int(round(0.005 * rate)))
    smooth = np.convolve(vertical_force, np.ones(width) / width, mode="same")
    air = smooth < threshold
    edges = np.flatnonzero(np.diff(air.astype(int)))
    result = []
    for start, end in zip(edges[::1], edges[1::1]):
        if air[start + 1] and not air[end + 1] and t[end] - t[start] >= 0.1:
            result.append((t[start + 1], t[end + 1]))
    return result


def grf_specific_force(force, body_weight):
    """The specific force of the body's centre of mass, in g: GRF / body weight (a sensor at the
    centre of mass would read exactly this; it is 0 in flight and 1 g at rest)."""
    return force / body_weight


def convert_biomdp_kistler(out, packages):
    pattern = "biomdp-0.11.2-*.whl"
    # Countermovement jump, one plate; the athlete stands still for the first second.
    names, data = kistler_export(wheel_member(packages, pattern, "biomdp/tests/datasets/kistler_CMJ_1plate.txt"))
    t = data[:, 0]
    force = data[:, [names.index("Fx"), names.index("Fy"), names.index("Fz")]]
    weight = np.mean(force[(t < 1.0), 2])
    labels = [("jump", a, b) for a, b in flights(t, force[:, 2], 30.0)]
    out.add("biomdp-jumps", "kistler-cmj", "A", "centre-of-mass (force plate)", "development", ["jump", "throw"], t,
            grf_specific_force(force, weight), labels)
    # Drop jump: the athlete stands on plate 2 (the box), drops onto plate 1 and rebounds.
    names, data = kistler_export(wheel_member(packages, pattern, "biomdp/tests/datasets/kistler_DJ_2plates.txt"))
    t = data[:, 0]
    fx = [i for i, n in enumerate(names) if n == "Fx"]
    fy = [i for i, n in enumerate(names) if n == "Fy"]
    fz = [i for i, n in enumerate(names) if n == "Fz"]
    force = np.stack([data[:, fx].sum(1), data[:, fy].sum(1), data[:, fz].sum(1)], axis=1)
    weight = np.mean(force[(t < 1.0), 2])
    # The first flight is the drop from the box, which a coach does not count as a jump: only the
    # rebound is labelled, so a detection of the drop scores as a false jump.
    labels = [("jump", a, b) for a, b in flights(t, force[:, 2], 30.0)[1:]]
    out.add("biomdp-jumps", "kistler-dj", "B", "centre-of-mass (force plate)", "development", ["jump", "throw"], t,
            grf_specific_force(force, weight), labels)


def vicon_section(lines, title):
    start = lines.index(title)
    rate = float(lines[start + 1].split(",")[0])
    groups = lines[start + 2].split(",")
    rows = []
    index = start + 5
    while index < len(lines) and lines[index].strip():
        rows.append([float(v) if v.strip() else np.nan for v in lines[index].split(",")])
        index += 1
    return rate, groups, np.array(rows)


def marker_specific_force(position_mm, rate):
    """Specific force in g of a point that moves as `position_mm` (lab frame, z up, no rotation):
    second difference of the low-passed trajectory plus gravity."""
    smooth = sdu.lowpass(position_mm / 1000.0, rate, 15.0)
    acceleration = np.gradient(np.gradient(smooth, 1 / rate, axis=0), 1 / rate, axis=0)
    acceleration[:, 2] += sdu.G
    return acceleration / sdu.G


def convert_biomdp_vicon(out, packages):
    """Countermovement jump with markers: the sacrum (mean of both posterior superior iliac spines)
    is where a lower-back sensor sits; flight from the two plates."""
    text = wheel_member(packages, "biomdp-0.11.2-*.whl", "biomdp/tests/datasets/vicon_CMJ_kinem_kinet_emg.csv")
    lines = text.splitlines()
    device_rate, groups, devices = vicon_section(lines, "Devices")
    plate_fz = [groups.index("KistlerGrande1 - Force") + 2, groups.index("KistlerGrande2 - Force") + 2]
    vertical = -devices[:, plate_fz].sum(1)  # Vicon's plates report the reaction downwards
    device_t = np.arange(len(devices)) / device_rate
    labels = [("jump", a, b) for a, b in flights(device_t, vertical, 50.0)]
    marker_rate, groups, markers = vicon_section(lines, "Trajectories")
    lpsi = groups.index("S03:LPSI")
    rpsi = groups.index("S03:RPSI")
    sacrum = (markers[:, lpsi:lpsi + 3] + markers[:, rpsi:rpsi + 3]) / 2
    t = np.arange(len(markers)) / marker_rate
    out.add("biomdp-jumps", "vicon-cmj-sacrum", "S03", "lower back (sacrum marker)", "held-out", ["jump", "throw"], t,
            marker_specific_force(sacrum, marker_rate), labels)


# --- aeon 1.6.0: Daphnet freezing-of-gait recording S06R02 (walking, lower back and shank) -------

def ankle_contacts(t, ankle_g):
    """One contact per stride of the instrumented leg: the largest shank impact in each 0.6 s."""
    rate = (len(t) - 1) / (t[-1] - t[0])
    magnitude = np.linalg.norm(ankle_g, axis=1)
    window = int(round(rate))
    detrended = magnitude - np.convolve(magnitude, np.ones(window) / window, mode="same")
    peaks = [i for i in range(1, len(detrended) - 1)
             if detrended[i] > 0.5 and detrended[i] >= detrended[i - 1] and detrended[i] > detrended[i + 1]]
    contacts = []
    for index in peaks:
        if contacts and index - contacts[-1] < 0.6 * rate:
            if detrended[index] > detrended[contacts[-1]]:
                contacts[-1] = index
        else:
            contacts.append(index)
    return t[contacts]


def reference_steps(contacts):
    """Steps of both feet: the instrumented leg's contacts and, inside a stride no longer than 1.5
    times the median, the other foot's contact half-way (walking is close to symmetric)."""
    strides = np.diff(contacts)
    limit = 1.5 * np.median(strides)
    steps = list(contacts)
    for a, b in zip(contacts[:-1], contacts[1:]):
        if b - a <= limit:
            steps.append((a + b) / 2)
    return sorted(steps)


def convert_daphnet(out, packages):
    text = wheel_member(packages, "aeon-1.6.0-*.whl", "aeon/datasets/data/Daphnet_S06R02E0/S06R02E0.csv")
    rows = [line.split(",") for line in text.splitlines()[1:] if line.strip()]
    values = np.array([[float(v) for v in row[1:11]] for row in rows])
    rate = 64.0  # Daphnet's rate; the file's timestamps are rounded to the millisecond
    t = np.arange(len(values)) / rate
    ankle, trunk = values[:, 0:3] / 1000.0, values[:, 6:9] / 1000.0  # mg → g
    steps = reference_steps(ankle_contacts(t, ankle))
    half = t[-1] / 2
    # One recording: the first half is the development split, the second the held-out one.
    for split, keep in (("development", t < half), ("held-out", t >= half)):
        part_t = t[keep]
        labels = [("step", s - part_t[0], None) for s in steps if part_t[0] <= s <= part_t[-1]]
        name = "s06r02-trunk-" + ("a" if split == "development" else "b")
        out.add("daphnet", name, "S06", "lower back", split, ["steps", "jump", "throw"], part_t - part_t[0],
                trunk[keep], labels)


# --- biosignalsnotebooks 0.6.14: countermovement jumps, worn accelerometer and force platform ----

def plux_accelerometer_g(raw):
    """PLUX's transfer function for its 16-bit triaxial accelerometer, with the typical calibration
    values C_min = 28000 and C_max = 38000 of its datasheet: g = 2 (ADC − C_min) / (C_max − C_min) − 1."""
    return 2 * (raw - 28000.0) / (38000.0 - 28000.0) - 1


def convert_biosignalsnotebooks(out, packages):
    """Two subjects, one countermovement jump each, on PLUX's force platform (four load cells,
    500 Hz) while wearing PLUX's triaxial accelerometer (500 Hz, same start). The package does not
    say where the accelerometer was worn."""
    import h5py  # only this dataset needs it; the venv `make validate` builds has it

    paths = sorted(glob.glob(os.path.join(packages, "biosignalsnotebooks-0.6.14-*.whl")))
    if not paths:
        sys.exit(f"convert.py: no biosignalsnotebooks-0.6.14 wheel in {packages}: run `make validate`")
    with zipfile.ZipFile(paths[-1]) as wheel:
        for subject, split in (("1", "development"), ("2", "held-out")):
            member = f"biosignalsnotebooks/notebook_files/osf_files/signal_samples/loft_time_subject_{subject}.h5"
            with h5py.File(io.BytesIO(wheel.read(member)), "r") as recording:
                plate = recording["00:07:80:4D:2E:81"]
                accelerometer = recording["00:07:80:D8:AB:46"]
                rate = float(plate.attrs["sampling rate"])
                force = np.hstack([plate["raw"][f"channel_{i}"][:] for i in range(1, 5)]).astype(float).sum(1)
                raw = np.hstack([accelerometer["raw"][f"channel_{i}"][:] for i in range(1, 4)]).astype(float)
            t = np.arange(len(force)) / rate
            # The platform's raw sum: about 2200 unloaded, over 20000 with the subject on it.
            unloaded = np.min(np.convolve(force, np.ones(25) / 25, mode="valid"))
            standing = np.median(force[force > 10000])
            labels = [("jump", a, b) for a, b in flights(t, force, unloaded + 0.05 * (standing - unloaded))]
            acceleration = plux_accelerometer_g(raw)
            # The typical calibration reads 0.93 g at rest; scale so the first second reads 1 g.
            acceleration /= np.median(np.linalg.norm(acceleration[t < 1.0], axis=1))
            out.add("biosignalsnotebooks-cmj", f"subject-{subject}", f"S{subject}", "worn (site not stated)", split,
                    ["jump", "throw"], t, acceleration, labels)


def csv_columns(text, skip=1):
    """A numeric CSV as a float array, skipping `skip` header lines and blank lines."""
    return np.array([[float(v) for v in line.split(",")] for line in text.splitlines()[skip:] if line.strip()])


# --- sit2standpy 1.1.3: lower back, sit-to-stand transitions and walking (no jump, no throw) -----

def convert_sit2standpy(out, packages):
    """The package's sample: one lumbar accelerometer, 128 Hz, m/s² with gravity, 91 s of sitting,
    standing up, walking and sitting down. It has no labels; a coach would count no jump and no
    throw in it, so every detection is a false event."""
    text = wheel_member(packages, "sit2standpy-1.1.3-*.whl", "sit2standpy/data/sample.csv")
    data = csv_columns(text, skip=0)
    t = (data[:, 0] - data[0, 0]) / 1e6  # microsecond timestamps
    acceleration = data[:, 1:4] / sdu.G
    half = t[-1] / 2
    # One recording: the first half is the development split, the second the held-out one.
    for split, keep, suffix in (("development", t < half, "a"), ("held-out", t >= half, "b")):
        out.add("sit2standpy", f"sample-{suffix}", "P1", "lower back", split, ["jump", "throw"], t[keep] - t[keep][0],
                acceleration[keep], [])


# --- scikit-kinematics 0.10.4: IMUs held in the hand and moved by hand (no jump, no throw) --------

def xsens_export(text):
    """Xsens MT Manager text export: `//` header lines (one gives the rate), then a tab-separated
    table whose Counter column counts samples; Acc_X…Acc_Z in m/s²."""
    lines = text.splitlines()
    rate = next(float(line.split(":")[1].strip().rstrip("Hz")) for line in lines if line.startswith("// Sample rate"))
    header = next(i for i, line in enumerate(lines) if line.startswith("Counter"))
    names = lines[header].split("\t")
    rows = np.array([[float(v) for v in line.split()] for line in lines[header + 1:] if line.strip()])
    acc = [names.index(axis) for axis in ("Acc_X", "Acc_Y", "Acc_Z")]
    return (rows[:, 0] - rows[0, 0]) / rate, rows[:, acc] / sdu.G


def ximu_rate(registers_text, register):
    """x-IMU register export `address,index,code,value,name`: a data rate code n means 2^(n-1) Hz."""
    for line in registers_text.splitlines():
        fields = line.split(",")
        if len(fields) == 5 and fields[4].strip() == register:
            return 2.0 ** (int(fields[2]) - 1)
    raise ValueError(f"no {register} register")


def convert_skinematics(out, packages):
    """The six test recordings of the package's IMU readers whose rate and unit are known: each
    sensor held in the hand and turned, swung and shaken by hand (the package does not describe the
    movements). The Pololu recording is left out: raw counts without a transfer function."""
    pattern = "scikit_kinematics-0.10.4-*.whl"

    def member(name):
        return wheel_member(packages, pattern, f"tests/data/{name}")

    recordings = []
    for name, member_name in (("xsens", "data_xsens.txt"), ("xsens-2", "data_xsens2.txt")):
        t, acc = xsens_export(member(member_name))
        recordings.append((name, "Xsens", "development", t, acc))
    yei = csv_columns(member("data_yei.txt"))  # ChipTimeUS, gyro, compass, accelerometer in g
    recordings.append(("yei", "YEI 3-Space", "development", (yei[:, 0] - yei[0, 0]) / 1e6, yei[:, 7:10]))
    xio3 = csv_columns(member("data_xio3/Inertial.csv"))  # µs, gyro, accelerometer in g
    recordings.append(("xio3", "x-io x-IMU3", "development", (xio3[:, 0] - xio3[0, 0]) / 1e6, xio3[:, 4:7]))
    # The x-IMU numbers every packet of every kind, so its rows are timed by the configured rate.
    ximu = csv_columns(member("data_xio/00033_CalInertialAndMag.csv"))
    rate = ximu_rate(member("data_xio/00033_Registers.csv"), "InertialAndMagneticDataRate")
    recordings.append(("ximu", "x-io x-IMU", "held-out", np.arange(len(ximu)) / rate, ximu[:, 4:7]))
    ngimu = csv_columns(member("data_ngimu/sensors.csv"))  # s, gyro, accelerometer in g
    recordings.append(("ngimu", "x-io NGIMU", "held-out", ngimu[:, 0] - ngimu[0, 0], ngimu[:, 4:7]))
    for name, device, split, t, acc in recordings:
        out.add("skinematics-hand", name, device, "hand (held IMU)", split, ["jump", "throw"], t, acc, [])


def convert_offline(out, data_dir, names=()):
    """The offline sets in DATA_DIR (those in `names`, or all); a missing folder or module is an
    error naming the fix."""
    import importlib

    unknown = set(names) - {folder for folder, _ in OFFLINE_SETS}
    if unknown:
        sys.exit(f"convert.py: no offline set {', '.join(sorted(unknown))}: the sets are "
                 f"{', '.join(folder for folder, _ in OFFLINE_SETS)}")
    if not os.path.isdir(data_dir):
        sys.exit(f"convert.py: no data directory {data_dir}: set VALIDATION_DATA_DIR to the folder that holds "
                 f"{', '.join(name for name, _ in OFFLINE_SETS)}")
    for folder, module_name in OFFLINE_SETS:
        if names and folder not in names:
            continue
        path = os.path.join(data_dir, folder)
        if not os.path.isdir(path):
            sys.exit(f"convert.py: no {folder}/ in {data_dir}: copy the validation data there or set "
                     "VALIDATION_DATA_DIR")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name != module_name:
                raise
            sys.exit(f"convert.py: the reader for {folder}/ (Validation/{module_name}.py) is missing: "
                     "merge the branch that adds it, or take its entry out of OFFLINE_SETS")
        module.convert(out, path)


def main(argv):
    offline = len(argv) >= 4 and argv[1] == "--offline"
    if not offline and (len(argv) not in (3, 4) or argv[1].startswith("-")):
        sys.exit("usage: convert.py PACKAGES_DIR OUT_DIR [DATA_DIR] | convert.py --offline DATA_DIR OUT_DIR [SET ...]")
    out_dir = argv[3] if offline else argv[2]
    out = Output(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    if not offline:
        convert_biomdp_kistler(out, argv[1])
        convert_biomdp_vicon(out, argv[1])
        convert_daphnet(out, argv[1])
        convert_biosignalsnotebooks(out, argv[1])
        convert_sit2standpy(out, argv[1])
        convert_skinematics(out, argv[1])
    if offline or len(argv) == 4:
        convert_offline(out, argv[2] if offline else argv[3], argv[4:] if offline else ())
    out.write_manifest()
    print(f"convert.py: {len(out.rows)} recordings in {out_dir}/manifest.csv")


if __name__ == "__main__":
    main(sys.argv)
