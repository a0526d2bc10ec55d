#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `make vm-accel-check`: accel.sh's choice between KVM and TCG, on stand-ins for /dev/kvm and
# /sys/module (KVM_DEV, KVM_MODULES) in a throw-away directory. The one case it cannot stage is
# a working KVM (the ioctls need the real device): `make itest`'s first line shows that one.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/accel.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
failures=0
# expect NAME STATUS ACCEL WHY-PATTERN: runs vm_accel in a subshell with the environment set before.
expect() {
    local name=$1 status=$2 accel=$3 why=$4 got
    got=$( (vm_accel; echo "$? ${VM_ACCEL:--} $VM_ACCEL_WHY"))
    if [[ $got =~ ^$status\ $accel\ .*$why ]]; then echo "ok: $name"; else
        echo "FAIL: $name: got '$got', expected status $status, $accel, a reason matching '$why'"
        failures=$((failures + 1))
    fi
}
export KVM_DEV=$T/kvm KVM_MODULES=$T/module
mkdir -p "$T/module"

unset USE_KVM
expect "no device: TCG" 0 tcg "there is no /dev/kvm"
USE_KVM=1 expect "no device, USE_KVM=1: fails" 1 - "USE_KVM=1 but there is no /dev/kvm"
: >"$T/kvm"
mkdir "$T/module/kvm" "$T/module/kvm_pvm"
expect "PVM only: TCG, naming kvm_pvm" 0 tcg "not hardware KVM.*kvm_pvm serves it"
USE_KVM=1 expect "PVM only, USE_KVM=1: fails naming kvm_pvm" 1 - "USE_KVM=1 but .*kvm_pvm serves it.*unset USE_KVM"
mkdir "$T/module/kvm_intel"
expect "kvm_intel, a device that is no KVM: TCG (KVM_CREATE_VM fails)" 0 tcg "cannot create a VM"
rm "$T/kvm" && mkdir "$T/kvm"
expect "kvm_intel, a device that does not open read-write: TCG" 0 tcg "does not open read-write"
USE_KVM=0 expect "USE_KVM=0: TCG" 0 tcg "USE_KVM=0"
USE_KVM=yes expect "USE_KVM=yes: refused" 1 - "use 1 \(KVM required\), 0 \(TCG\)"
USE_KVM= expect "USE_KVM empty: as unset" 0 tcg "no KVM: "
[ $failures = 0 ] && echo "vm-accel-check: PASS" || echo "vm-accel-check: FAIL ($failures)"
[ $failures = 0 ]
