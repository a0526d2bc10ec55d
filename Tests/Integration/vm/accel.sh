# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Which accelerator the VM stages' qemu uses (host side; sourced by itest.sh and systemd-stage.sh).
#
# vm_accel sets VM_ACCEL to kvm or tcg and VM_ACCEL_WHY to the reason, from USE_KVM:
#   unset or auto: kvm when /dev/kvm works for this user and is hardware KVM (see kvm_works), tcg
#                  (qemu's software emulation, several times slower) otherwise;
#   0:             tcg;
#   1:             kvm, or status 1 with the reason KVM cannot be used (e.g. the user is not in
#                  group kvm) in VM_ACCEL_WHY.
# Nothing in the guests depends on the speed: their waits poll with deadlines (guest-lib.sh's
# wait_until) sized for TCG on a loaded host, and the sessions' lengths are the run's own schedule.

# kvm_works: status 0 when /dev/kvm is served by the CPU's virtualisation (module kvm_intel or
# kvm_amd), opens read-write for this user and creates a VM (KVM_CREATE_VM); else 1 with the
# reason in KVM_PROBLEM. The module matters: a /dev/kvm served by kvm_pvm alone (PVM, in a VM
# without nested virtualisation, as on the 2-core build machine) opens and creates VMs too, but
# runs only PVM-enabled guest kernels; the stock Debian kernels the stages boot stay in their
# firmware and real-mode setup code there, emulated one instruction at a time (no console output
# within minutes).
# KVM_DEV and KVM_MODULES stand in for /dev/kvm and /sys/module in accel-test.sh.
kvm_works() {
    local dev=${KVM_DEV:-/dev/kvm} modules=${KVM_MODULES:-/sys/module}
    KVM_PROBLEM=""
    if [ ! -e "$dev" ]; then
        KVM_PROBLEM="there is no /dev/kvm (no kvm module, or a machine without virtualisation)"
    elif [ ! -d "$modules/kvm_intel" ] && [ ! -d "$modules/kvm_amd" ]; then
        KVM_PROBLEM="$dev is not hardware KVM (neither kvm_intel nor kvm_amd is loaded$([ -d "$modules/kvm_pvm" ] &&
            echo "; kvm_pvm serves it, which boots only PVM-enabled guest kernels"))"
    elif ! { : <>"$dev"; } 2>/dev/null; then
        KVM_PROBLEM="$dev does not open read-write for $(id -un) ($(stat -c '%A %U:%G' "$dev"); add the user to group $(stat -c %G "$dev"))"
    elif ! KVM_DEV=$dev python3 - <<'PY' 2>/dev/null; then
import fcntl, os
fd = os.open(os.environ["KVM_DEV"], os.O_RDWR)
assert fcntl.ioctl(fd, 0xAE00) == 12  # KVM_GET_API_VERSION
os.close(fcntl.ioctl(fd, 0xAE01, 0))  # KVM_CREATE_VM
PY
        KVM_PROBLEM="$dev opens but cannot create a VM (KVM_CREATE_VM failed: virtualisation off in the firmware, or a nested guest without it)"
    fi
    [ -z "$KVM_PROBLEM" ]
}

vm_accel() {
    case "${USE_KVM:-auto}" in
    0)
        VM_ACCEL=tcg
        VM_ACCEL_WHY="USE_KVM=0"
        ;;
    1)
        if kvm_works; then
            VM_ACCEL=kvm
            VM_ACCEL_WHY="USE_KVM=1"
        else
            VM_ACCEL=""
            VM_ACCEL_WHY="USE_KVM=1 but $KVM_PROBLEM; unset USE_KVM to fall back to TCG"
            return 1
        fi
        ;;
    auto)
        if kvm_works; then
            VM_ACCEL=kvm
            VM_ACCEL_WHY="/dev/kvm works"
        else
            VM_ACCEL=tcg
            VM_ACCEL_WHY="no KVM: $KVM_PROBLEM"
        fi
        ;;
    *)
        VM_ACCEL=""
        VM_ACCEL_WHY="USE_KVM=$USE_KVM: use 1 (KVM required), 0 (TCG) or leave it unset (KVM when it works)"
        return 1
        ;;
    esac
}
