#!/bin/bash
# dracut module: an image whose /init is earlymount, with the kernel modules dracut selects
# (through its kernel-modules module, or exactly those of --drivers). Not part of the default
# set: ask for it with `dracut --add earlymount`, or with
#   add_dracutmodules+=" earlymount "
# in /etc/dracut.conf.d/earlymount.conf. `dracut -m "earlymount"` makes an image with nothing
# else. EARLYMOUNT_INIT (in the environment or a dracut.conf file) names another binary,
# EARLYMOUNT_HOOKS_DIR another /etc/earlymount/hooks.

earlymount_binary() {
    echo "${EARLYMOUNT_INIT:-/usr/lib/earlymount/init}"
}

# called by dracut
check() {
    local bin
    bin=$(earlymount_binary)
    if [[ ! -x $bin ]]; then
        derror "earlymount: $bin is missing or not executable; install earlymount or set EARLYMOUNT_INIT"
        return 1
    fi
    # only when asked for: it replaces dracut's own /init
    return 255
}

# called by dracut
depends() {
    echo kernel-modules
    return 0
}

# called by dracut
installkernel() {
    # --drivers means exactly those; otherwise add what the Discoverable Partitions
    # Specification mounts by itself, which dracut without host-only mode may leave out.
    [[ -n $drivers ]] && return 0
    hostonly='' instmods ext4 vfat nls_cp437 nls_ascii nls_iso8859_1 btrfs xfs erofs \
        squashfs f2fs overlay efivarfs
}

# called by dracut
install() {
    local bin point hook
    bin=$(earlymount_binary)
    # base (also 99, sorted before us) installs its init.sh as /init: replace it, do not
    # skip it the way inst_simple skips a file that exists
    rm -f "${initdir}/init"
    # "command": this function is itself called install
    if ! command install -m 0755 "$bin" "${initdir}/init"; then
        dfatal "earlymount: unable to install $bin as /init"
        return 1
    fi
    inst_dir /usr/lib/earlymount/hooks
    # runtime hooks of the host, /etc/earlymount/hooks/<point>.d/, see earlymount(8)
    for point in pre-discover pre-mount pre-switch; do
        for hook in "${EARLYMOUNT_HOOKS_DIR:-$dracutsysrootdir/etc/earlymount/hooks}/$point.d"/*; do
            [[ -f $hook && -x $hook ]] || continue
            inst_simple "$hook" "/usr/lib/earlymount/hooks/$point.d/${hook##*/}"
        done
    done
    return 0
}
