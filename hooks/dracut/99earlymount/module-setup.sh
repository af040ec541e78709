#!/bin/bash
# dracut module: an image whose /init is earlymount, with the kernel modules dracut selects
# (through its kernel-modules module, or exactly those of --drivers). Not part of the default
# set: ask for it with `dracut --add earlymount`, or with
#   EARLYMOUNT=yes
# in /etc/dracut.conf.d/earlymount.conf (as for initramfs-tools: a setting that is harmless
# once the package is gone, where add_dracutmodules+=" earlymount " would make dracut fail).
# `dracut -m "earlymount"` makes an image with nothing else. EARLYMOUNT_INIT (in the environment or a dracut.conf file) names another binary,
# EARLYMOUNT_HOOKS_DIR another /etc/earlymount/hooks.
# EARLYMOUNT_LUKS=yes|no|auto (default auto) adds the LUKS helper, earlymount-luks from beside
# the binary (or EARLYMOUNT_LUKS_HELPER), and the kernel modules it needs; auto when dracut's
# crypt module is in the image or the host's / or /usr is on LUKS (see luks-functions).
# EARLYMOUNT_LVM=yes|no|auto (default auto) adds lvm2's tool (lvm beside the binary, or
# EARLYMOUNT_LVM_TOOL) and dm_mod; auto when the host's / or /usr is on LVM. EARLYMOUNT_MD
# likewise adds mdadm (EARLYMOUNT_MD_TOOL), md's modules and /etc/mdadm/mdadm.conf for a host
# on md RAID. A host whose / or /usr lies on a stack earlymount cannot assemble (firmware RAID,
# multipath, NFS, ...) makes installkernel fail, and dracut then writes no image.

earlymount_binary() {
    echo "${EARLYMOUNT_INIT:-/usr/lib/earlymount/init}"
}

# Whether the image gets the LUKS helper: 0 with the reason and the helper's path in
# earlymount_luks_why and earlymount_luks_bin; 1 when it does not; 2 on an error (reported).
# Decided once: install() and installkernel() both ask.
earlymount_luks() {
    [[ -n ${earlymount_luks_rc-} ]] && return "$earlymount_luks_rc"
    local functions=${EARLYMOUNT_LUKS_FUNCTIONS:-/usr/lib/earlymount/luks-functions} signal=""
    earlymount_luks_rc=0
    if [[ ! -f $functions ]]; then
        dfatal "earlymount: $functions is missing; install earlymount or set EARLYMOUNT_LUKS_FUNCTIONS"
        earlymount_luks_rc=2
        return 2
    fi
    # shellcheck source=hooks/luks-functions
    . "$functions"
    dracut_module_included crypt && signal="dracut's crypt module is in the image"
    earlymount_luks_why=$(earlymount_luks_wanted "${EARLYMOUNT_LUKS:-}" "$signal" 2>/dev/null) ||
        earlymount_luks_rc=$?
    if [[ $earlymount_luks_rc -eq 2 ]]; then
        dfatal "earlymount: EARLYMOUNT_LUKS=$EARLYMOUNT_LUKS: expected yes, no or auto"
    elif [[ $earlymount_luks_rc -eq 0 ]]; then
        earlymount_luks_bin=$(earlymount_luks_helper "$(earlymount_binary)")
        if [[ ! -x $earlymount_luks_bin ]]; then
            dfatal "earlymount: the image needs the LUKS helper ($earlymount_luks_why), but $earlymount_luks_bin is missing or not executable; install earlymount, set EARLYMOUNT_LUKS_HELPER, or EARLYMOUNT_LUKS=no"
            earlymount_luks_rc=2
        fi
    fi
    return "$earlymount_luks_rc"
}

# What the host's stacks need (earlymount_stacks in luks-functions): 0; 2 on an error or a host
# earlymount cannot boot (reported). Decided once, after earlymount_luks.
earlymount_host_stacks() {
    [[ -n ${earlymount_stacks_rc-} ]] && return "$earlymount_stacks_rc"
    earlymount_stacks_rc=0
    if ! earlymount_stacks "$(earlymount_binary)"; then
        dfatal "earlymount: this host cannot be booted through earlymount (above): no image is written; leave EARLYMOUNT unset to build dracut's own"
        earlymount_stacks_rc=2
    elif [[ $earlymount_luks_rc -ne 0 ]] && earlymount_needs_has luks; then
        dfatal "earlymount: EARLYMOUNT_LUKS=${EARLYMOUNT_LUKS:-auto}, but this host's / or /usr is on LUKS: an image without the helper could not boot it"
        earlymount_stacks_rc=2
    fi
    return "$earlymount_stacks_rc"
}

# Whether the image gets the tool of STACK (lvm, md): 0 with earlymount_stack_why,
# earlymount_stack_bin and earlymount_stack_name (its name in the image) when it does; 1 when
# it does not; 2 on an error (reported).
earlymount_stack() { # STACK
    local setting rc=0
    earlymount_host_stacks || return 2
    case $1 in
    lvm) setting=${EARLYMOUNT_LVM:-} earlymount_stack_name=lvm ;;
    md) setting=${EARLYMOUNT_MD:-} earlymount_stack_name=mdadm ;;
    esac
    earlymount_stack_why=$(earlymount_stack_wanted "$1" "$setting") || rc=$?
    if [[ $rc -eq 0 ]]; then
        earlymount_stack_bin=$(earlymount_stack_tool "$1" "$(earlymount_binary)")
        if [[ ! -x $earlymount_stack_bin ]]; then
            dfatal "earlymount: the image needs $earlymount_stack_name ($earlymount_stack_why), but $earlymount_stack_bin is missing or not executable; install earlymount, or set EARLYMOUNT_${1^^}_TOOL"
            rc=2
        fi
    fi
    return "$rc"
}

# The modules of a stack's tool.
earlymount_stack_modules() { # STACK
    case $1 in
    lvm) echo dm_mod ;;
    md) echo md_mod linear raid0 raid1 raid10 raid456 ;;
    esac
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
    case ${EARLYMOUNT:-no} in
    y | yes | 1 | true) return 0 ;;
    *) return 255 ;;
    esac
}

# called by dracut
depends() {
    echo kernel-modules
    return 0
}

# called by dracut
installkernel() {
    local r=0 l stack
    earlymount_luks || r=$?
    [[ $r -eq 2 ]] && return 1
    for stack in lvm md; do
        l=0
        earlymount_stack $stack || l=$?
        [[ $l -eq 2 ]] && return 1
        # shellcheck disable=SC2046
        [[ $l -eq 0 ]] && hostonly='' instmods $(earlymount_stack_modules $stack)
    done
    # the LUKS helper's modules, --drivers or not: it cannot work without them
    # shellcheck disable=SC2086
    [[ $r -eq 0 ]] && hostonly='' instmods $EARLYMOUNT_LUKS_MODULES
    # --drivers means exactly those. In host-only mode: what earlymount's --host-only picks
    # for this host (the drivers behind / and /usr, their filesystems with what they load at
    # mount time, efivarfs under UEFI). Otherwise add what the Discoverable Partitions
    # Specification mounts by itself, which dracut without host-only mode may leave out.
    [[ -n $drivers ]] && return 0
    local host_modules
    if [[ $hostonly ]]; then
        if host_modules=$("$(earlymount_host_command "$(earlymount_binary)")" initramfs --host-only --print-modules --moddir "$srcmods"); then
            # shellcheck disable=SC2086
            hostonly='' instmods $host_modules
            return 0
        fi
        dwarn "earlymount: 'earlymount initramfs --host-only' could not tell this host's modules (above); adding the filesystems of the generic mode instead"
    fi
    hostonly='' instmods ext4 vfat nls_cp437 nls_ascii nls_iso8859_1 btrfs xfs erofs \
        squashfs f2fs overlay efivarfs
}

# called by dracut
install() {
    local bin point hook stack
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
    local r=0
    earlymount_luks || r=$?
    [[ $r -eq 2 ]] && return 1
    if [[ $r -eq 0 ]]; then
        dinfo "earlymount: with the LUKS helper: $earlymount_luks_why"
        inst_simple "$earlymount_luks_bin" /usr/lib/earlymount/earlymount-luks || {
            dfatal "earlymount: unable to install $earlymount_luks_bin"
            return 1
        }
        # the prompt reads the host's layout (EARLYMOUNT_KEYMAP; a failure only warns)
        local keymap
        keymap=$(earlymount_keymap_for_image "${EARLYMOUNT_KEYMAP:-}")
        [[ -n $keymap ]] && earlymount_install_keymap "$initdir" "$keymap" &&
            dinfo "earlymount: with the keymap $keymap for the passphrase prompt"
    fi
    # dracut's crypt module put the host's crypttab (in host-only mode, the entries the
    # image needs) in the image: the boot opens its volumes under their names
    if [[ -s ${initdir}/etc/crypttab ]]; then
        if ! earlymount_crypttab_for_image "$(earlymount_host_command "$bin")" \
            "${initdir}/etc/crypttab" "${initdir}/etc/crypttab"; then
            dfatal "earlymount: the image's /etc/crypttab has an entry earlymount would not open as written (above): no image is written"
            return 1
        fi
        dinfo "earlymount: /etc/crypttab in the image: its volumes are opened at boot"
    fi
    local tab=${initdir}/etc/crypttab
    [[ -s $tab ]] || tab=/dev/null
    earlymount_host_stacks || return 1
    if earlymount_needs_has luks && ! earlymount_crypttab_covers "$(earlymount_host_command "$bin")" "$tab"; then
        dfatal "earlymount: the image would not open the volume / or /usr is on (above): no image is written; list it in /etc/crypttab"
        return 1
    fi
    for stack in lvm md; do
        r=0
        earlymount_stack $stack || r=$?
        [[ $r -eq 2 ]] && return 1
        [[ $r -eq 0 ]] || continue
        dinfo "earlymount: with $earlymount_stack_name $earlymount_stack_bin: $earlymount_stack_why"
        inst_simple "$earlymount_stack_bin" "/usr/lib/earlymount/$earlymount_stack_name" || {
            dfatal "earlymount: unable to install $earlymount_stack_bin"
            return 1
        }
        if [[ $stack = md && -f $dracutsysrootdir/etc/mdadm/mdadm.conf ]]; then
            inst_simple "$dracutsysrootdir/etc/mdadm/mdadm.conf" /etc/mdadm/mdadm.conf
        fi
    done
    # runtime hooks of the host, /etc/earlymount/hooks/<point>.d/, see earlymount(8)
    for point in pre-discover pre-mount pre-switch; do
        for hook in "${EARLYMOUNT_HOOKS_DIR:-$dracutsysrootdir/etc/earlymount/hooks}/$point.d"/*; do
            [[ -f $hook && -x $hook ]] || continue
            inst_simple "$hook" "/usr/lib/earlymount/hooks/$point.d/${hook##*/}"
        done
    done
    return 0
}
