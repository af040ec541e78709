/* The planner: options + disks + machine facts -> an ordered list of steps that bring the
 * real root up under /sysroot. Pure: no system calls; the same code runs at boot and in
 * `earlymount plan`. The executor knows nothing about the Discoverable Partitions spec. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmdline.h"
#include "crypttab.h"
#include "disk.h"
#include "dps.h"
#include "fstab.h"
#include "paths.h"
#include "sha256.h"
#include "verity.h"

#define SYSROOT "/sysroot"

#define PLAN_MAX_STEPS 64
#define PLAN_MAX_NOTES 32
#define PLAN_TEXT 256
/* an error names what was expected and lists what the disks hold */
#define PLAN_ERROR 640
#define PLAN_PATH 256
#define PLAN_OPTIONS 2048

enum plan_op {
	OP_MOUNT,   /* source (device spec) on target, fstype, options */
	OP_BIND,    /* bind source on target; "ro" in options makes it read-only */
	OP_MOVE,    /* move the mount at source to target */
	OP_TMPFS,   /* a tmpfs on target with options */
	OP_OVERLAY, /* an overlayfs on target; options hold lowerdir=,upperdir=,workdir= */
	OP_MKDIR,   /* a directory target with mode */
	OP_SYMLINK, /* target -> source */
	OP_SWAPON,  /* swap on source */
	OP_UMOUNT,  /* unmount target */
	OP_VERITY,  /* a dm-verity device target (/dev/mapper/NAME) over the data device source
		     * and the hash device hash_source, checked against root_hash; options are
		     * systemd-veritysetup's */
	OP_FSCK,    /* check the filesystem on source before it is mounted read-write on target;
		     * fstype "" when probed at boot (an unlocked device), options are fsck(8)'s
		     * (-a, -y or -n, and -f) */
	OP_UNLOCK,  /* the LUKS device source opened as target (/dev/mapper/NAME) with the key
		     * file key_file (on key_device when set), else a passphrase asked for on the
		     * consoles naming prompt; options are crypttab's words (luks.h) */
	/* The file-hierarchy skeleton of a writable root. The planner cannot look into /usr, so
	 * these are conditional: the executor checks at boot, never replaces what exists, and a
	 * failure is a warning (the switch_root check judges whether init can still start). */
	OP_POPULATE,  /* copy the tree source into target when source is a directory and target
		       * is missing or an empty directory (systemd-tmpfiles' "C") */
	OP_SKEL_DIR,  /* a directory target with exactly mode, when nothing is at target */
	OP_SKEL_LINK, /* target -> source when nothing is at target and source, read from
		       * target's directory, exists */
	/* Resume from the hibernation image on source (a device spec or MAJ:MIN): the kernel
	 * does not return when it resumes. Always first: nothing may be mounted (or its journal
	 * replayed) that the image still holds open. options: "resume_offset=PAGES" or "". */
	OP_RESUME,
	OP_SHARE,     /* the host share tagged source (virtiofs, 9p: fstype) on target, with
		       * options; at boot its driver may still be on its way */
	/* The storage stacks under a device a later step takes, made at boot as their members
	 * appear, before a plan can name the device (lvm2, mdadm, the btrfs scan): in the plan
	 * where they stand in the order, for the reader; the executor has nothing left to do.
	 * source: the members seen (", "-separated, "" when none), target: what they make. */
	OP_ACTIVATE,  /* the logical volume target (/dev/mapper/VG-LV) of a volume group */
	OP_ASSEMBLE,  /* the md array target (/dev/md/NAME, /dev/mdN) */
	OP_SCAN,      /* the btrfs target (UUID=) over several devices */
	/* Grow the filesystem (fstype: ext4, btrfs) mounted read-write on target from source
	 * to the size of source, online, through the kernel's resize ioctls: GPT bit 59 (grow-fs)
	 * of a discovered partition, x-systemd.growfs of an fstab entry. Once grown, a later boot
	 * finds nothing to do. A failure is a warning. */
	OP_GROWFS,
	OP_MAX,
};

struct plan_step {
	enum plan_op op;
	char source[PLAN_PATH];
	char target[PLAN_PATH];
	char fstype[32];
	char options[PLAN_OPTIONS];
	unsigned mode;                /* OP_MKDIR, OP_SKEL_DIR */
	const struct part *part;      /* the partition behind source, when known */
	char hash_source[PLAN_PATH];  /* OP_VERITY: the hash device spec */
	const struct part *hash_part; /* OP_VERITY: the partition behind hash_source, when known */
	char root_hash[VERITY_HASH_HEX_MAX + 1]; /* OP_VERITY */
	char sig_source[PLAN_PATH];   /* OP_VERITY: the signature partition, "" when the hash was
				       * given on the command line */
	const struct part *sig_part;
	char key_file[PLAN_PATH];     /* OP_UNLOCK: "" asks for a passphrase */
	char key_device[PLAN_PATH];   /* OP_UNLOCK: the device spec key_file is on, "" for the
				       * initramfs */
	char prompt[PLAN_TEXT];       /* OP_UNLOCK: what the passphrase prompt names */
	/* OP_MOUNT, OP_SWAPON from an unlocked device: fstype is "" unless forced, and the
	 * executor probes what the device holds; with norecovery_if_journalled (GPT bit 60),
	 * a journalled filesystem gets norecovery, as a plain partition's would. */
	bool norecovery_if_journalled;
	bool optional;                /* a failure is a warning and the boot goes on without it */
	bool identity;                /* OP_UNLOCK: a discovered root or /var, whose volume key
				       * systemd measures by default (luks_open.h) */
	bool discovered;              /* OP_UNLOCK: of a partition discovery found */
	char reason[PLAN_TEXT];       /* one line: why this step */
};

struct machine {
	enum arch arch;
	bool has_machine_id;
	uint8_t machine_id[16];
	char loader_partuuid[UUID_STR_LEN]; /* LoaderDevicePartUUID, "" when unknown */
	/* The root's /etc/fstab, its entries for the initramfs (/usr, x-initrd.mount): read at
	 * boot once the root is mounted, or given to `earlymount plan --fstab` */
	bool has_fstab;
	struct fstab fstab;
	/* The initramfs's /etc/crypttab: the LUKS volumes opened at boot, under their names (read
	 * at boot from the image, given to `earlymount plan --crypttab`) */
	bool has_crypttab;
	struct crypttab crypttab;
	/* The interface the boot configured (ip=, an NFS root), from its /run/net-IFACE.conf: the
	 * client's address and what DHCP named (root-path, next server) */
	bool has_net;
	struct net_lease net;
};

/* A partition that failed at this boot: set up, mounted, or found to hold no init. */
struct plan_failure {
	char partuuid[UUID_STR_LEN];
	char why[PLAN_TEXT];
};

#define PLAN_MAX_FAILURES 8

struct plan_input {
	const struct options *opts;
	const struct disk_set *disks;
	const struct machine *machine;
	/* Discovery passes these over, with a note: the A/B fallback. A partition the command
	 * line names (root=, mount.usr=, roothash=) is used whatever failed before. */
	const struct plan_failure *failed;
	size_t n_failed;
};

struct plan {
	const struct disk *disk;      /* the boot disk partitions were discovered on, or NULL */
	struct plan_step steps[PLAN_MAX_STEPS];
	size_t n_steps;
	/* Steps [0, root_steps) make the root's /etc readable at machine_id_path and
	 * fstab_path; at boot a plan that wants_machine_id or wants_fstab is built again once
	 * those files have been read (the rest of its steps may change, never these). */
	size_t root_steps;
	bool wants_machine_id;
	bool wants_fstab;
	/* The root and /usr partitions and whether each was picked by discovery among versions:
	 * only such a pick may give way to the next newest when it fails (the A/B fallback). */
	const struct part *root;
	const struct part *usr;
	bool root_discovered;
	bool usr_discovered;
	char machine_id_path[PLAN_PATH];
	char fstab_path[PLAN_PATH];   /* "" when the root's fstab has nothing to say (a tmpfs root) */
	char init[PLAN_PATH];         /* init= or "" for the fallbacks */
	char notes[PLAN_MAX_NOTES][PLAN_TEXT]; /* choices made and partitions passed over, and why */
	size_t n_notes;
	char error[PLAN_ERROR];       /* when plan_build fails: what was expected, what was found */
};

/* Builds the plan. 0 on success; on failure plan->error says why and:
 *   -ENOENT    nothing to mount as root (at boot: the device may not have appeared yet)
 *   -ENOTUNIQ  the choice is ambiguous (several disks with roots, duplicate PARTUUIDs)
 *   -EPERM     a candidate exists but a rule refuses it (removable disk, no GPT, …), or the
 *              partition to mount is damaged: empty, past the end of any disk, numbered
 *              above the 255 partitions the kernel makes devices for, or overlapping another
 *              partition of its GPT (never another picked in its place; a damaged ESP,
 *              XBOOTLDR or swap is only left out, with a note)
 *   -EINVAL    contradictory options, or a value too long for the plan's fields
 *   -EOPNOTSUPP the image or the root asks for what earlymount does not do: a crypttab entry
 *              with a refused option (keyscript=, tcrypt, …), /usr from a network filesystem
 *   -E2BIG     more steps than the plan holds (notes past PLAN_MAX_NOTES are summed up in
 *              the last one: an overflow of explanations never stops a boot) */
int plan_build(const struct plan_input *in, struct plan *plan);

/* The unlock steps of the volumes rd.luks.uuid=, rd.luks.name= and the image's crypttab list
 * that are on the disks and not unlocked yet, alone: at boot they run as soon as the volumes
 * appear, when what the root is on lies inside one (LVM on LUKS) and no plan can be made
 * before. 0 or as
 * plan_build(). */
int plan_build_listed_unlocks(const struct plan_input *in, struct plan *plan);

/* Whether the boot opens the LUKS volume whose header has uuid for itself, because the
 * command line or the image's crypttab lists it (not because a mount needs it): 0 with the
 * name it opens it under and what lists it ("the image's crypttab: NAME (line 1)") in name
 * and origin; -ENOENT when nothing lists it; or as plan_build(), plan->error saying why.
 * For `earlymount check`, whose host has the volume open already. */
int plan_listed_volume(const struct plan_input *in, const char *uuid, struct plan *plan,
		       char *name, size_t name_size, char *origin, size_t origin_size);

const char *plan_op_name(enum plan_op op);

/* SHA-256 of the plan's steps, each a line of its op's name, source, target, fstype and options
 * separated by tabs (plan_digest.c): what `earlymount plan --json` shows of each step, so
 *   jq -r '.steps[] | [.op, .source, .target, .fstype, .options] | join("\t")' | sha256sum
 * gives the same. */
void plan_digest(const struct plan *plan, uint8_t digest[SHA256_DIGEST_SIZE]);

/* Whether plan is to be made again at boot once the root's files were read. */
static inline bool plan_wants_root_files(const struct plan *plan)
{
	return plan->wants_machine_id || plan->wants_fstab;
}

/* Whether fstype keeps a journal that "norecovery" skips replaying (ext4, xfs, btrfs). */
bool plan_fstype_journalled(const char *fstype);

/* The fallback inits tried in order when init= is not given. */
extern const char *const plan_default_inits[];

/* What an initramfs must hold to carry a plan out, beside /init: a program the image builder
 * adds with an option, a kernel module (nothing when the kernel builds it in), a filesystem
 * checker. Read from the steps: a filesystem probed at boot (an unlocked volume, a logical
 * volume seen from the host) needs what it holds, which the plan cannot name. */
enum plan_need_kind {
	NEED_PROGRAM, /* name: "earlymount-luks", "lvm", "mdadm"; option: the builder's */
	NEED_MODULE,  /* name: the module's ("dm_crypt", "ext4") */
	NEED_FSCK,    /* name: the checker's ("fsck.ext4") */
};

struct plan_need {
	enum plan_need_kind kind;
	char name[32];
	const char *option; /* NEED_PROGRAM: "--lvm"; else NULL */
};

#define PLAN_MAX_NEEDS 32

struct plan_needs {
	struct plan_need items[PLAN_MAX_NEEDS];
	size_t n; /* each need once, in the order the steps first need it */
};

void plan_needs(const struct plan *plan, struct plan_needs *needs);
/* Adds to needs what a step op on fstype ("" for none) needs: for what a host's plan cannot
 * see, a volume unlocked already. */
void plan_needs_add_op(enum plan_op op, const char *fstype, struct plan_needs *needs);
