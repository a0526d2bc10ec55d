#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The systemd stage's Debian image, built here from Debian's packages with mmdebstrap and cached.
#
# Prints the cache directory holding vmlinuz, initrd.img (the image's own linux-image-amd64) and
# base.qcow2 (root filesystem, ext4, for a virtio disk). The directory is named by a hash of the
# package list, the suite, the mirror and IMAGE_VERSION, so a second run reuses the first's image
# and a change of what goes in builds a new one. Nothing of the project is in the image: the test installs
# the project's Debian packages into each run's copy-on-write overlay (systemd-stage.sh).
#
# What the image adds to Debian's packages:
#   - itest-driver.service (enabled): mounts the 9p shares `payload` (read-only) and `out`, runs
#     payload/driver.sh, writes out/result and powers the VM off whatever happened;
#   - fstab for the virtio root disk, a hostname, and no getty on the serial console (the driver's
#     output goes there).
# bluetooth.service stays as Debian ships it (enabled, started by bluetooth.target when udev sees
# a controller).
#
# Usage: image.sh            (env: ITEST_CACHE=~/.cache/sportsensord-itest, DEBIAN_SUITE=bookworm,
#                             DEBIAN_MIRROR=http://deb.debian.org/debian, IMAGE_SIZE=3G)
# Exit status: 0 with the directory on stdout; 2 when the image could not be built (an
# environment failure, not the project's).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# Bump IMAGE_VERSION whenever what the image holds changes other than through PACKAGES (the
# unit and the script baked in below, the hooks): the cache key is made of both.
IMAGE_VERSION=1
SUITE=${DEBIAN_SUITE:-bookworm}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# sqlite3: the upgrade test turns the store back into an older schema with it (systemd-upgrade.sh).
PACKAGES="systemd systemd-sysv dbus udev kmod bluez bluez-test-tools libbluetooth3 libsqlite3-0 libstdc++6
    jq procps linux-image-amd64 initramfs-tools sqlite3"
CACHE=${ITEST_CACHE:-$HOME/.cache/sportsensord-itest}
KEY=$(echo "$IMAGE_VERSION $SUITE $MIRROR" $PACKAGES | sha256sum | cut -c1-16)
DIR="$CACHE/image-$KEY"

if [ -s "$DIR/base.qcow2" ] && [ -s "$DIR/vmlinuz" ] && [ -s "$DIR/initrd.img" ]; then
    echo "$DIR"
    exit 0
fi
log() { echo "image: $*" >&2; }
for tool in mmdebstrap mkfs.ext4 qemu-img; do
    command -v $tool >/dev/null || { log "FAIL: $tool is missing (apt: mmdebstrap e2fsprogs qemu-utils)"; exit 2; }
done
[ "$(id -u)" = 0 ] || { log "FAIL: building the image needs root (mmdebstrap's root mode, mkfs.ext4 -d)"; exit 2; }
mkdir -p "$CACHE"
WORK=$(mktemp -d "$CACHE/build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 1' INT TERM
ROOTFS="$WORK/rootfs"
t0=$(date +%s)
log "building a $SUITE image in $DIR (mmdebstrap; a few minutes, once per package list)"

# The driver's bootstrap and its unit. The unit is ordered after bluetooth.service so that, when
# udev already started bluetoothd, the driver finds it; the driver itself waits for what it needs.
cat >"$WORK/itest-boot" <<'BOOT'
#!/bin/bash
# Runs payload/driver.sh from the host's 9p share, then powers the VM off.
mkdir -p /mnt/payload /mnt/out
mount -t 9p -o trans=virtio,version=9p2000.L,ro payload /mnt/payload &&
    mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /mnt/out || {
    echo "itest-boot: ENVIRONMENT: cannot mount the 9p shares" >/dev/console
    systemctl --no-block poweroff
    exit 1
}
bash /mnt/payload/driver.sh /mnt/payload /mnt/out
echo "itest-boot: driver exited with $?"
sync
systemctl --no-block poweroff
BOOT
cat >"$WORK/itest-driver.service" <<'UNIT'
[Unit]
Description=sportsensord VM test driver
After=multi-user.target bluetooth.service dbus.service
Wants=dbus.service

[Service]
Type=oneshot
ExecStart=/usr/local/libexec/itest-boot
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0
TimeoutStartSec=infinity

[Install]
WantedBy=multi-user.target
UNIT

# shellcheck disable=SC2086
mmdebstrap --mode=root --variant=minbase --include="$(echo $PACKAGES | tr ' ' ,)" \
    --customize-hook='echo itest >"$1/etc/hostname"' \
    --customize-hook='echo "/dev/vda / ext4 rw,errors=remount-ro 0 1" >"$1/etc/fstab"' \
    --customize-hook="install -D -m 0755 $WORK/itest-boot \"\$1/usr/local/libexec/itest-boot\"" \
    --customize-hook="install -D -m 0644 $WORK/itest-driver.service \"\$1/etc/systemd/system/itest-driver.service\"" \
    --customize-hook='chroot "$1" systemctl enable itest-driver.service' \
    --customize-hook='chroot "$1" systemctl mask serial-getty@ttyS0.service getty@tty1.service' \
    --customize-hook='rm -f "$1"/var/cache/apt/archives/*.deb "$1"/var/lib/apt/lists/*_Packages' \
    "$SUITE" "$ROOTFS" "$MIRROR" >"$WORK/mmdebstrap.log" 2>&1 ||
    { tail -30 "$WORK/mmdebstrap.log" >&2; log "FAIL: mmdebstrap"; exit 2; }
kernel=$(ls -v "$ROOTFS"/boot/vmlinuz-* | tail -1)
initrd=$(ls -v "$ROOTFS"/boot/initrd.img-* | tail -1)
[ -s "$kernel" ] && [ -s "$initrd" ] || { log "FAIL: the image has no kernel or initrd"; exit 2; }
systemctl --root="$ROOTFS" is-enabled bluetooth.service >/dev/null ||
    { log "FAIL: bluetooth.service is not enabled in the image"; exit 2; }
mkdir -p "$WORK/out"
cp "$kernel" "$WORK/out/vmlinuz"
cp "$initrd" "$WORK/out/initrd.img"
# mkfs.ext4 says "Creating regular file" on stdout even with -q: stdout is this script's answer
# (the image's directory, one line), so every tool's chatter goes to stderr.
mkfs.ext4 -q -L itest-root -d "$ROOTFS" "$WORK/root.img" "${IMAGE_SIZE:-3G}" >&2 ||
    { log "FAIL: mkfs.ext4 -d"; exit 2; }
qemu-img convert -O qcow2 "$WORK/root.img" "$WORK/out/base.qcow2" >&2 || { log "FAIL: qemu-img convert"; exit 2; }
rm -rf "$DIR"
mv "$WORK/out" "$DIR"
log "built in $(($(date +%s) - t0)) s: $(du -sh "$DIR" | cut -f1), kernel $(basename "$kernel")"
echo "$DIR"
