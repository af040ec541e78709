/* The paths more than one file names, each defined once. */
#pragma once

/* Where earlymount keeps its own mounts and state in the initramfs (moved with /run). */
#define EARLYMOUNT_RUN "/run/earlymount"
/* The record of the last boot's failure, passed on to the real system (init/last_failure.h). */
#define LAST_FAILURE_PATH EARLYMOUNT_RUN "/last-failure"
/* Where the device-mapper devices earlymount sets up are linked by name. */
#define DM_MAPPER_DIR "/dev/mapper"
/* The shell of rd.emergency, rd.break and a failed boot, when the image has one. */
#define EMERGENCY_SHELL "/bin/sh"
/* The consoles the kernel writes to, the last one its /dev/console. */
#define CONSOLE_ACTIVE "/sys/class/tty/console/active"
/* There when the machine booted through UEFI. */
#define EFI_FIRMWARE_DIR "/sys/firmware/efi"
/* lvm2's tool in an image made with --lvm: static, built from Debian's lvm2 source. */
#define EARLYMOUNT_LVM "/usr/lib/earlymount/lvm"
/* mdadm in an image made with --md: static, built from Debian's mdadm source. */
#define EARLYMOUNT_MDADM "/usr/lib/earlymount/mdadm"
/* Where mdadm links md arrays by name (/dev/md/NAME), without udev. */
/* klibc's ipconfig, which configures the network and writes NET_CONF_FORMAT */
#define EARLYMOUNT_IPCONFIG "/usr/lib/earlymount/ipconfig"
/* what an interface was configured with, as initramfs-tools hands it on */
#define NET_CONF_FORMAT "/run/net-%s.conf"

/* dropbear, its host keys, and the shell it gives root: /init, which answers the passphrase
 * prompt (password_agent.h) */
#define EARLYMOUNT_DROPBEAR "/usr/lib/earlymount/dropbear"
#define DROPBEAR_KEY_DIR "/etc/earlymount/dropbear"

#define MD_DEV_DIR "/dev/md"
/* mdadm's configuration, as Debian keeps it: the image gets the host's with --host-only. */
#define MDADM_CONF "/etc/mdadm/mdadm.conf"
/* The initramfs's crypttab: the LUKS volumes the boot opens (earlymount initramfs --crypttab). */
#define INITRAMFS_CRYPTTAB "/etc/crypttab"
/* Keymaps the image carries (earlymount initramfs --keymap): NAME.bmap each, and default.bmap
 * a link to the first. */
#define KEYMAP_DIR "/etc/earlymount/keymaps"
