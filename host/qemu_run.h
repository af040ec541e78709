/* `earlymount qemu`: the run of one VM, and how its end becomes an exit status. Host side. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "dps.h"

/* Debian 12 ships it in qemu-system-common. */
#define VIRTIOFSD_PATH "/usr/lib/qemu/virtiofsd"

#define QEMU_ARGS_MAX 64

/* Exit statuses of `earlymount qemu` besides EXIT_USAGE and EXIT_SYSTEM (commands.h). */
#define QEMU_EXIT_POWEROFF 0 /* the guest powered off: its init ended cleanly */
#define QEMU_EXIT_FAILED 1   /* the boot failed: earlymount stopped, a panic, a reboot, no power-off */
#define QEMU_EXIT_TIMEOUT 124

struct qemu_vm {
	enum arch arch;
	const char *kernel;
	const char *initrd;
	const char *append;       /* the whole kernel command line; with uki, NULL or "" keeps
				   * the image's own */
	const char *uki;          /* a unified kernel image booted by UEFI firmware instead of
				   * kernel and initrd, or NULL */
	const char *image;        /* a disk image, or NULL */
	const char *share_dir;    /* the root share's directory, or NULL */
	const char *share_kind;   /* "virtiofs" or "9p" */
	const char *share_tag;
	bool kvm;
	/* KVM was chosen, not asked for: where it runs no guest (nested virtualization, micro-VM
	 * hosts make VMs whose vCPUs never run, or QEMU refuses the host's CPU), the VM starts
	 * again under TCG, with a note */
	bool kvm_fallback;
	unsigned memory_mib;
	int timeout_sec;          /* 0: none */
	bool verbose;             /* print the commands run */
};

/* What a line of the guest's console says about its end. */
enum qemu_end {
	QEMU_END_UNKNOWN,
	QEMU_END_POWEROFF, /* the kernel powered the machine off */
	QEMU_END_FAILED,   /* earlymount stopped the boot, the kernel panicked or rebooted */
};

enum qemu_end qemu_console_line(const char *line);

/* The serial console's device in the guest: ttyS0, ttyAMA0; NULL for an unknown arch. */
const char *qemu_console_device(enum arch arch);

/* Whether KVM can run a guest of arch here: the host's arch and a /dev/kvm that makes VMs. */
bool qemu_kvm_usable(enum arch arch);

/* Runs the VM to its end, its serial console on stdout; one of the statuses above, or
 * EXIT_SYSTEM when QEMU or virtiofsd could not be started. */
int qemu_run(const struct qemu_vm *vm);
