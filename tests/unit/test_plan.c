/* The planner: every selection rule, every option rule and every refusal. Most cases are rows
 * of plan_cases[] (disks, command line, machine → what the plan must hold), each its own
 * cmocka test under the row's name; the few that do not fit a row follow the table. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "plan_fixtures.h"
#include "util.h"

#define RO GPT_FLAG_READ_ONLY
#define NO_AUTO GPT_FLAG_NO_AUTO
#define GROW GPT_FLAG_GROWFS

/* The volatile tmpfs options (systemd's limits) and the skeleton's length: whole, and the
 * part of it in /var (a volatile=state root). */
#define TMPFS_OPTS "mode=0755,size=25%,nr_inodes=1m"
#define SKEL_FULL 16
#define SKEL_VAR 3

#define FAT_RO "ro,nodev,nosuid,noexec,umask=0077"
#define FAT_RW "rw,nodev,nosuid,noexec,umask=0077"

/* What fx_part() gives partition n (1 to 9) of disk d (0 or 1) when given no PARTUUID, as a
 * literal, so that rows can name it. */
#define FX_UUID(d, n) "0000000" FX_DISK_##d "-0000-4000-8000-00000000000" #n
#define FX_DISK_0 "1"
#define FX_DISK_1 "2"
#define PU(d, n) "PARTUUID=" FX_UUID(d, n)

struct part_row {
	unsigned number; /* 0 ends the disk's list */
	const char *type;
	const char *partuuid; /* NULL: fx_part()'s, FX_UUID() */
	const char *label;
	uint64_t flags;
	const char *fstype;
	const char *devpath, *fsuuid, *fslabel; /* NULL: "" */
};

struct disk_row {
	const char *path; /* NULL ends the row's list */
	const char *pttype;
	const char *ptuuid;
	bool removable;
	struct part_row parts[9];
};

/* fx_part()'s arguments, in its order. */
#define P(n, type, partuuid, label, flags, fstype) \
	{ n, type, partuuid, label, flags, fstype, NULL, NULL, NULL }
#define DISK(path, pttype, ptuuid, removable, ...) \
	{ path, pttype, ptuuid, removable, { __VA_ARGS__ } }
#define GPT(path, ...) DISK(path, "gpt", "", false, __VA_ARGS__)
#define GPT_REMOVABLE(path, ...) DISK(path, "gpt", "", true, __VA_ARGS__)
#define NO_PARTS { 0 }

#define ESP_ROOT P(1, T_ESP, NULL, "esp", 0, "vfat"), P(2, T_ROOT_X86_64, NULL, "root", 0, "ext4")

#define FULL_PARTS                                                        \
	P(1, T_ESP, NULL, "esp", 0, "vfat"),                              \
	P(2, T_XBOOTLDR, NULL, "xbootldr", 0, "vfat"),                    \
	P(3, T_ROOT_X86_64, NULL, "root", 0, "ext4"),                     \
	P(4, T_USR_X86_64, NULL, "usr", 0, "erofs"),                      \
	P(5, T_VAR, MACHINE_VAR_PARTUUID, "var", 0, "ext4"),              \
	P(6, T_HOME, NULL, "home", 0, "btrfs"),                           \
	P(7, T_SRV, NULL, "srv", 0, "xfs"),                               \
	P(8, T_TMP, NULL, "tmp", 0, "ext4"),                              \
	P(9, T_SWAP, NULL, "swap", 0, "swap")

/* /dev/vda, whose root partition can be named every way. */
#define ROOT_FSUUID "0a1b2c3d-aaaa-4bbb-8ccc-123456789abc"
#define VDA(root_fstype)                                                               \
	GPT("/dev/vda", { 1, T_ESP, NULL, "esp", 0, "vfat", "/dev/vda1", NULL, NULL }, \
	    { 2, T_ROOT_X86_64, NULL, "root", 0, root_fstype, "/dev/vda2", ROOT_FSUUID, "rootfs" })

/* For systemd.volatile=: the state partitions are this machine's (rows give it MACHINE_ID_HEX). */
#define VOL_ROOT P(2, T_ROOT_X86_64, NULL, "root", 0, "ext4")
#define VOL_USR P(3, T_USR_X86_64, NULL, "usr", 0, "erofs")
#define VOL_STATE                                            \
	P(4, T_VAR, MACHINE_VAR_PARTUUID, "var", 0, "ext4"), \
	P(5, T_TMP, NULL, "tmp", 0, "ext4"),                 \
	P(6, T_HOME, NULL, "home", 0, "ext4")

/* A flag of the plan: what a row wants of it, ANY when the row says nothing. */
enum want { ANY, NO, YES };

struct step_row {
	size_t index;
	enum plan_op op;
	const char *source, *target, *fstype, *options; /* target NULL ends the list */
};

enum skeleton { SKEL_NONE, SKEL_WHOLE, SKEL_IN_VAR };

#define ROW_STEPS 9

struct plan_case {
	const char *name;

	struct disk_row disks[2];
	const char *cmdline;                  /* NULL: none parsed */
	enum arch arch;
	const char *machine_id;               /* 32 hex digits; NULL: the machine has none */
	const char *loader_partuuid;          /* NULL: the firmware said nothing */

	int result;                           /* 0 or -errno */
	size_t n_steps;                       /* when result is 0 */
	const char *error[2];                 /* parts of the error, when result is not 0 */
	struct step_row steps[ROW_STEPS];
	enum want optional[ROW_STEPS];        /* by step index */
	unsigned mode[ROW_STEPS];             /* by step index; 0: not checked */
	const char *notes[3];
	struct { enum skeleton kind; size_t from; } skeleton;
	struct { int disk; unsigned number; } root_part; /* behind step 0; number 0: not checked */
	struct { bool checked; int index; } boot_disk;   /* plan.disk; index -1: NULL */
	size_t root_steps;                    /* 0: not checked */
	enum want wants_machine_id;
	const char *machine_id_path;          /* NULL: not checked */
	const char *init;                     /* NULL: not checked */
};

#define BOOT_DISK(d) { true, d }
#define NO_BOOT_DISK { true, -1 }

/* root= naming VDA's root: mounted as named, and the rest still comes from the root's disk. */
#define EXPLICIT_ROOT(spec)                                                           \
	.disks = { VDA("ext4") }, .cmdline = "root=" spec, .n_steps = 2,              \
	.steps = { { 0, OP_MOUNT, spec, "/sysroot", "ext4", "ro" },                   \
		   { 1, OP_MOUNT, PU(0, 1), "/sysroot/boot", "vfat", FAT_RO } },      \
	.root_part = { 0, 2 }, .boot_disk = BOOT_DISK(0)

static const struct plan_case plan_cases[] = {
	{ "plain_root",
	  .disks = { GPT("/disk.img", ESP_ROOT) },
	  .n_steps = 2,
	  .steps = { { 0, OP_MOUNT, PU(0, 2), "/sysroot", "ext4", "ro,nodev" },
		     { 1, OP_MOUNT, PU(0, 1), "/sysroot/boot", "vfat", FAT_RO } },
	  .root_part = { 0, 2 }, .boot_disk = BOOT_DISK(0), .root_steps = 1,
	  .machine_id_path = "/sysroot/etc/machine-id", .wants_machine_id = NO, .init = "",
	  .notes = { "disk chosen: /disk.img, the only fixed disk with an x86-64 root partition" } },

	/* A FAT mounted read-write is marked dirty: the ESP is writable only when the boot is rw.
	 * The system runs without its ESP; never without its root. */
	{ "esp_writable_only_with_rw: ro",
	  .disks = { GPT("/disk.img", ESP_ROOT) },
	  .n_steps = 2,
	  .steps = { { 0, OP_MOUNT, PU(0, 2), "/sysroot", "ext4", "ro,nodev" },
		     { 1, OP_MOUNT, PU(0, 1), "/sysroot/boot", "vfat", FAT_RO } },
	  .optional = { [0] = NO, [1] = YES },
	  .notes = { "esp partition 1 mounted read-only, as the boot is" } },
	{ "esp_writable_only_with_rw: rw",
	  .disks = { GPT("/disk.img", ESP_ROOT) }, .cmdline = "rw",
	  .n_steps = 2 + SKEL_FULL,
	  .steps = { { 0, OP_MOUNT, PU(0, 2), "/sysroot", "ext4", "rw,nodev" },
		     { 1, OP_MOUNT, PU(0, 1), "/sysroot/boot", "vfat", FAT_RW } } },

	/* First-boot growth: bit 59 grows what is mounted read-write, right after its mount, and
	 * says why not otherwise (a read-only mount, a type without online resize); the ESP's
	 * role does not honour the bit. */
	{ "growfs: rw",
	  .disks = { GPT("/disk.img", P(1, T_ESP, NULL, "esp", GROW, "vfat"),
			 P(2, T_ROOT_X86_64, NULL, "root", GROW, "ext4"),
			 P(3, T_SRV, NULL, "srv", GROW, "btrfs"), P(4, T_HOME, NULL, "home", GROW, "xfs")) },
	  .cmdline = "rw",
	  .n_steps = 6 + SKEL_FULL,
	  .steps = { { 0, OP_MOUNT, PU(0, 2), "/sysroot", "ext4", "rw,nodev" },
		     { 1, OP_GROWFS, PU(0, 2), "/sysroot", "ext4", "" },
		     { 2, OP_MOUNT, PU(0, 4), "/sysroot/home", "xfs", "rw,nodev" },
		     { 3, OP_MOUNT, PU(0, 3), "/sysroot/srv", "btrfs", "rw,nodev" },
		     { 4, OP_GROWFS, PU(0, 3), "/sysroot/srv", "btrfs", "" },
		     { 5, OP_MOUNT, PU(0, 1), "/sysroot/boot", "vfat", FAT_RW } },
	  .optional = { [1] = YES, [4] = YES },
	  .notes = { "/sysroot/home not grown (GPT bit 59 (grow-fs) of the home partition): xfs has "
		     "no online resize earlymount uses (ext4, btrfs)" } },
	{ "growfs: ro, and bit 60",
	  .disks = { GPT("/disk.img", P(1, T_ROOT_X86_64, NULL, "root", GROW, "ext4"),
			 P(2, T_SRV, NULL, "srv", GROW | RO, "ext4")) },
	  .n_steps = 2,
	  .steps = { { 0, OP_MOUNT, PU(0, 1), "/sysroot", "ext4", "ro,nodev" },
		     { 1, OP_MOUNT, PU(0, 2), "/sysroot/srv", "ext4", "ro,nodev,norecovery" } },
	  .notes = { "/sysroot not grown (GPT bit 59 (grow-fs) of the root partition): it is mounted "
		     "read-only" } },

	{ "full_set",
	  .disks = { GPT("/full.img", FULL_PARTS) }, .machine_id = MACHINE_ID_HEX,
	  .n_steps = 9,
	  .steps = { { 0, OP_MOUNT, PU(0, 3), "/sysroot", "ext4", "ro,nodev" },
		     { 1, OP_MOUNT, PU(0, 4), "/sysroot/usr", "erofs", "ro,nodev" },
		     { 2, OP_MOUNT, "PARTUUID=" MACHINE_VAR_PARTUUID, "/sysroot/var", "ext4", "rw,nodev" },
		     { 3, OP_MOUNT, PU(0, 8), "/sysroot/var/tmp", "ext4", "rw,nodev,nosuid" },
		     { 4, OP_MOUNT, PU(0, 6), "/sysroot/home", "btrfs", "rw,nodev" },
		     { 5, OP_MOUNT, PU(0, 7), "/sysroot/srv", "xfs", "rw,nodev" },
		     { 6, OP_MOUNT, PU(0, 2), "/sysroot/boot", "vfat", FAT_RO },
		     { 7, OP_MOUNT, PU(0, 1), "/sysroot/efi", "vfat", FAT_RO },
		     { 8, OP_SWAPON, PU(0, 9), "", "swap", "" } },
	  .root_steps = 1, .wants_machine_id = NO },

	{ "versioned_labels",
	  .disks = { GPT("/ab.img", P(2, T_ROOT_X86_64, NULL, "root-1.9", 0, "ext4"),
			 P(3, T_ROOT_X86_64, NULL, "root-1.10", 0, "ext4")) },
	  .n_steps = 1,
	  .steps = { { 0, OP_MOUNT, PU(0, 3), "/sysroot", "ext4", "ro,nodev" } },
	  .notes = { "partition 2 (root, label 'root-1.9') passed over: partition 3" } },

	{ "same_label_lowest_number",
	  .disks = { GPT("/ab.img", P(5, T_ROOT_X86_64, NULL, "root", 0, "ext4"),
			 P(3, T_ROOT_X86_64, NULL, "root", 0, "ext4")) },
	  .n_steps = 1,
	  .steps = { { 0, OP_MOUNT, PU(0, 3), "/sysroot", "ext4", "ro,nodev" } },
	  .notes = { "partition 5 (root, label 'root') passed over" } },

	{ "no_auto_skipped",
	  .disks = { GPT("/d.img", P(3, T_ROOT_X86_64, NULL, "root-1.2", NO_AUTO, "ext4"),
			 P(4, T_ROOT_X86_64, NULL, "root-1.1", 0, "ext4"),
			 P(5, T_HOME, NULL, "home", NO_AUTO, "ext4")) },
	  .n_steps = 1,
	  .steps = { { 0, OP_MOUNT, PU(0, 4), "/sysroot", "ext4", "ro,nodev" } },
	  .notes = { "partition 3 (root, label 'root-1.2') passed over: bit 63 (no-auto) set",
		     "partition 5 (home, label 'home') passed over: bit 63 (no-auto) set" } },

	{ "no_auto_only_root",
	  .disks = { GPT("/d.img", P(3, T_ROOT_X86_64, NULL, "root", NO_AUTO, "ext4")) },
	  .result = -ENOENT,
	  .error = { "no root partition (type " T_ROOT_X86_64 " for x86-64) on any disk",
		     "found: /d.img: gpt, 1 partition of type root-x86-64" } },

	/* A root named and not found: the members of storage stacks are said as such, since the
	 * root may lie inside what they hold. */
	{ "not_found_names_stack_members",
	  .disks = { GPT("/d.img",
			 P(1, "e6d6d379-f507-44c2-a23c-238f2a3df928", NULL, "lvm", 0, "LVM2_member"),
			 P(2, "a19d880f-05fc-4d3b-a006-743f0f84911e", NULL, "raid", 0,
			   "linux_raid_member")) },
	  .cmdline = "root=LABEL=r",
	  .result = -ENOENT,
	  .error = { "found: /d.img: gpt, 2 partitions of types e6d6d379-f507-44c2-a23c-238f2a3df928 "
		     "(an LVM physical volume), a19d880f-05fc-4d3b-a006-743f0f84911e (an md RAID "
		     "member)" } },

	{ "empty_label_skipped",
	  .disks = { GPT("/d.img", P(2, T_ROOT_X86_64, NULL, "_empty", 0, "ext4"),
			 P(3, T_ROOT_X86_64, NULL, "root-0.1", 0, "ext4")) },
	  .n_steps = 1,
	  .steps = { { 0, OP_MOUNT, PU(0, 3), "/sysroot", "ext4", "ro,nodev" } },
	  .notes = { "partition 2 (root, label '_empty') passed over: label '_empty' marks it "
		     "unused" } },

	/* /usr follows the root's arch before the native one. */
	{ "secondary_arch",
	  .disks = { GPT("/d.img", P(2, T_ROOT_X86, NULL, "root", 0, "ext4"),
			 P(3, T_USR_X86_64, NULL, "usr", 0, "erofs"),
			 P(4, T_USR_X86, NULL, "usr", 0, "erofs")) },
	  .n_steps = 2,
	  .steps = { { 0, OP_MOUNT, PU(0, 2), "/sysroot", "ext4", "ro,nodev" },
		     { 1, OP_MOUNT, PU(0, 4), "/sysroot/usr", "erofs", "ro,nodev" } },
	  .notes = { "the only fixed disk with an x86 root partition",
		     "no x86-64 root partition on /d.img: using the x86 one" } },

	{ "native_beats_secondary",
	  .disks = { GPT("/d.img", P(2, T_ROOT_X86, NULL, "root-9", 0, "ext4"),
			 P(3, T_ROOT_X86_64, NULL, "root-1", 0, "ext4")) },
	  .n_steps = 1,
	  .steps = { { 0, OP_MOUNT, PU(0, 3), "/sysroot", "ext4", "ro,nodev" } } },

	{ "arm64_machine",
	  .disks = { GPT("/arm.img", P(2, T_ROOT_X86_64, NULL, "root", 0, "ext4"),
			 P(3, T_ROOT_ARM64, NULL, "root", 0, "ext4"),
			 P(4, T_USR_X86_64, NULL, "usr", 0, "erofs"),
			 P(5, T_USR_ARM64, NULL, "usr", 0, "erofs")) },
	  .arch = ARCH_AARCH64,
	  .n_steps = 2,
	  .steps = { { 0, OP_MOUNT, PU(0, 3), "/sysroot", "ext4", "ro,nodev" },
		     { 1, OP_MOUNT, PU(0, 5), "/sysroot/usr", "erofs", "ro,nodev" } },
	  .notes = { "an arm64 root partition" } },

	{ "arm64_machine_x86_disk",
	  .disks = { GPT("/x.img", P(2, T_ROOT_X86_64, NULL, "root", 0, "ext4")) },
	  .arch = ARCH_AARCH64,
	  .result = -ENOENT,
	  .error = { "no root partition (type " T_ROOT_ARM64 " for arm64) on any disk" } },

	{ "read_only_bit_beats_rw",
	  .disks = { GPT("/d.img", P(2, T_ROOT_X86_64, NULL, "root", RO, "ext4")) },
	  .cmdline = "rw",
	  .n_steps = 1,
	  .steps = { { 0, OP_MOUNT, PU(0, 2), "/sysroot", "ext4", "ro,nodev,norecovery" } },
	  .notes = { "root partition 2 mounted read-only although rw was given: GPT bit 60" } },

	/* A read-write root gets the skeleton too; the executor fills only what is missing. */
	{ "rw",
	  .disks = { GPT("/d.img", ESP_ROOT) }, .cmdline = "rw",
	  .n_steps = 2 + SKEL_FULL,
	  .steps = { { 0, OP_MOUNT, PU(0, 2), "/sysroot", "ext4", "rw,nodev" } },
	  .skeleton = { SKEL_WHOLE, 2 } },

	/* The ESP ignores bit 60. */
	{ "norecovery_rules",
	  .disks = { GPT("/d.img", P(2, T_ROOT_X86_64, NULL, "root", RO, "erofs"),
			 P(3, T_USR_X86_64, NULL, "usr", RO, "btrfs"),
			 P(4, T_HOME, NULL, "home", RO, "xfs"),
			 P(5, T_SRV, NULL, "srv", 0, "ext4"),
			 P(6, T_ESP, NULL, "esp", RO, "vfat")) },
	  .n_steps = 5,
	  .steps = { { 0, OP_MOUNT, PU(0, 2), "/sysroot", "erofs", "ro,nodev" },
		     { 1, OP_MOUNT, PU(0, 3), "/sysroot/usr", "btrfs", "ro,nodev,norecovery" },
		     { 2, OP_MOUNT, PU(0, 4), "/sysroot/home", "xfs", "ro,nodev,norecovery" },
		     { 3, OP_MOUNT, PU(0, 5), "/sysroot/srv", "ext4", "rw,nodev" },
		     { 4, OP_MOUNT, PU(0, 6), "/sysroot/boot", "vfat", FAT_RO } } },

	{ "plain_ro_ext4_no_norecovery",
	  .disks = { GPT("/d.img", ESP_ROOT) }, .cmdline = "ro",
	  .n_steps = 2,
	  .steps = { { 0, OP_MOUNT, PU(0, 2), "/sysroot", "ext4", "ro,nodev" } } },

	{ "foreign_var",
	  .disks = { GPT("/d.img", P(2, T_ROOT_X86_64, NULL, "root", 0, "ext4"),
			 P(3, T_VAR, "11111111-2222-4333-8444-555555555555", "var", 0, "ext4")) },
	  .machine_id = MACHINE_ID_HEX,
	  .n_steps = 1,
	  .notes = { "partition 3 (var) not mounted: its PARTUUID 11111111-2222-4333-8444-555555555555 "
		     "is not this machine's (expected " MACHINE_VAR_PARTUUID " from machine ID "
		     MACHINE_ID_HEX ")" },
	  .wants_machine_id = NO },

	{ "var_picks_matching_of_two",
	  .disks = { GPT("/d.img", P(2, T_ROOT_X86_64, NULL, "root", 0, "ext4"),
			 P(3, T_VAR, "11111111-2222-4333-8444-555555555555", "var", 0, "ext4"),
			 P(4, T_VAR, "6028E3A1-54EF-41BE-90B1-C54F2E22254C", "var", 0, "ext4")) },
	  .machine_id = MACHINE_ID_HEX,
	  .n_steps = 2,
	  .steps = { { 1, OP_MOUNT, "PARTUUID=6028E3A1-54EF-41BE-90B1-C54F2E22254C", "/sysroot/var",
		       "ext4", "rw,nodev" } } },

	{ "no_machine_id_wants_it",
	  .disks = { GPT("/full.img", FULL_PARTS) },
	  .n_steps = 8,
	  .steps = { { 2, OP_MOUNT, PU(0, 8), "/sysroot/var/tmp", "ext4", "rw,nodev,nosuid" } },
	  .wants_machine_id = YES, .root_steps = 1,
	  .notes = { "/var partition 5: the machine ID is read from /sysroot/etc/machine-id at boot "
		     "(pass --machine-id to plan it here)" } },

	{ "machine_id_from_cmdline_wins",
	  .disks = { GPT("/d.img", P(2, T_ROOT_X86_64, NULL, "root", 0, "ext4"),
			 P(3, T_VAR, MACHINE_VAR_PARTUUID, "var", RO, "ext4")) },
	  .machine_id = "42424242424242424242424242424242",
	  .cmdline = "systemd.machine_id=" MACHINE_ID_HEX,
	  .n_steps = 2,
	  .steps = { { 1, OP_MOUNT, "PARTUUID=" MACHINE_VAR_PARTUUID, "/sysroot/var", "ext4",
		       "ro,nodev,norecovery" } } },

	/* Bit 63 means nothing for an ESP; NoBlockIO does. */
	{ "esp_no_block_io_skipped",
	  .disks = { GPT("/d.img", P(1, T_ESP, NULL, "esp", GPT_FLAG_NO_BLOCK_IO, "vfat"),
			 P(2, T_ROOT_X86_64, NULL, "root", 0, "ext4"),
			 P(3, T_ESP, NULL, "esp2", NO_AUTO, "vfat")) },
	  .n_steps = 2,
	  .steps = { { 1, OP_MOUNT, PU(0, 3), "/sysroot/boot", "vfat", FAT_RO } },
	  .notes = { "partition 1 (esp, label 'esp') passed over: bit 1 (NoBlockIO)" } },

	{ "first_of_type_wins",
	  .disks = { GPT("/d.img", P(2, T_ROOT_X86_64, NULL, "root", 0, "ext4"),
			 P(7, T_HOME, NULL, "home-b", 0, "ext4"),
			 P(6, T_HOME, NULL, "home-a", 0, "ext4"),
			 P(8, T_USER_HOME, NULL, "user", 0, "ext4"),
			 P(9, T_LINUX, NULL, "data", 0, "ext4")) },
	  .n_steps = 2,
	  .steps = { { 1, OP_MOUNT, PU(0, 6), "/sysroot/home", "ext4", "rw,nodev" } },
	  .notes = { "partition 7 (home, label 'home-b') passed over: partition 6 is the first "
		     "home" } },

	{ "home_luks_skipped",
	  .disks = { GPT("/d.img", P(2, T_ROOT_X86_64, NULL, "root", 0, "ext4"),
			 P(3, T_HOME, NULL, "home", 0, "crypto_LUKS"),
			 P(4, T_SWAP, NULL, "swap", 0, "")) },
	  .cmdline = "rd.luks=no",
	  .n_steps = 1,
	  .notes = { "partition 3 (home) not used: it is encrypted (LUKS) and rd.luks=no leaves it "
		     "locked",
		     "partition 4 (swap) not used: no swap signature" } },

	{ "root_forms: device path", EXPLICIT_ROOT("/dev/vda2") },
	{ "root_forms: UUID=", EXPLICIT_ROOT("UUID=" ROOT_FSUUID) },
	{ "root_forms: UUID= upper case", EXPLICIT_ROOT("UUID=0A1B2C3D-AAAA-4BBB-8CCC-123456789ABC") },
	{ "root_forms: LABEL=", EXPLICIT_ROOT("LABEL=rootfs") },
	{ "root_forms: PARTLABEL=", EXPLICIT_ROOT("PARTLABEL=root") },
	/* PARTUUID= has no upper-case row: fx_part()'s PARTUUIDs have no letters. */
	{ "root_forms: PARTUUID=", EXPLICIT_ROOT(PU(0, 2)) },

	{ "root_not_found",
	  .disks = { VDA("ext4") }, .cmdline = "root=LABEL=nope",
	  .result = -ENOENT,
	  .error = { "root=LABEL=nope matches no partition",
		     "found: /dev/vda: gpt, 2 partitions of types esp, root-x86-64" } },

	{ "root_duplicate",
	  .disks = { GPT("/a.img", P(1, T_ESP, NULL, "esp", 0, "vfat"),
			 { 2, T_ROOT_X86_64, NULL, "root", 0, "ext4", NULL, NULL, "root" }),
		     GPT("/b.img", P(1, T_ESP, NULL, "esp", 0, "vfat"),
			 { 2, T_ROOT_X86_64, NULL, "root", 0, "ext4", NULL, NULL, "root" }) },
	  .cmdline = "root=LABEL=root",
	  .result = -ENOTUNIQ,
	  .error = { "root=LABEL=root matches several partitions" } },

	{ "root_explicit_on_mbr",
	  .disks = { DISK("/mbr.img", "dos", "1234abcd", false,
			  { 1, "0x83", "1234abcd-01", "", 0, "ext4", "/dev/sda1", NULL, NULL }) },
	  .cmdline = "root=PARTUUID=1234abcd-01",
	  .n_steps = 1,
	  .steps = { { 0, OP_MOUNT, "PARTUUID=1234abcd-01", "/sysroot", "ext4", "ro" } },
	  .boot_disk = NO_BOOT_DISK,
	  .notes = { "nothing discovered: /mbr.img has a dos partition table, not GPT" } },

	{ "root_explicit_not_mounted_twice",
	  .disks = { GPT("/d.img", ESP_ROOT, P(3, T_HOME, NULL, "home", 0, "ext4")) },
	  .cmdline = "root=" PU(0, 3),
	  .n_steps = 2,
	  .steps = { { 0, OP_MOUNT, PU(0, 3), "/sysroot", "ext4", "ro" },
		     { 1, OP_MOUNT, PU(0, 1), "/sysroot/boot", "vfat", FAT_RO } },
	  .notes = { "partition 3 (home) not mounted again: it is named by root=" } },

	{ "root_luks_refused: rd.luks=no",
	  .disks = { GPT("/d.img", P(2, T_ROOT_X86_64, NULL, "root", 0, "crypto_LUKS")) },
	  .cmdline = "rd.luks=no",
	  .result = -EPERM,
	  .error = { "root: partition 2 of /d.img is encrypted (LUKS) and rd.luks=no leaves it locked" } },
	{ "root_luks_refused: unlocked",
	  .disks = { GPT("/d.img", P(2, T_ROOT_X86_64, NULL, "root", 0, "crypto_LUKS")) },
	  .cmdline = "rootfstype=ext4",
	  .n_steps = 2,
	  .steps = { { 0, OP_UNLOCK, PU(0, 2), "/dev/mapper/root", "", "" },
		     { 1, OP_MOUNT, "/dev/mapper/root", "/sysroot", "ext4", "ro,nodev" } } },

	{ "root_no_filesystem",
	  .disks = { GPT("/d.img", P(2, T_ROOT_X86_64, NULL, "root", 0, "")) },
	  .result = -EPERM,
	  .error = { "root: no filesystem recognised on partition 2 of /d.img; format it" } },

	{ "explicit_root_luks_refused: LUKS",
	  .disks = { VDA("crypto_LUKS") }, .cmdline = "root=/dev/vda2 rd.luks=no",
	  .result = -EPERM,
	  .error = { "root: /dev/vda2 is encrypted (LUKS) and rd.luks=no leaves it locked" } },
	{ "explicit_root_luks_refused: swap",
	  .disks = { VDA("swap") }, .cmdline = "root=/dev/vda2 rd.luks=no",
	  .result = -EPERM,
	  .error = { "root: /dev/vda2 is a swap area (swap), and swap is no filesystem to mount" } },

	{ "usr_luks_refused",
	  .disks = { GPT("/d.img", ESP_ROOT, P(3, T_USR_X86_64, NULL, "usr", 0, "crypto_LUKS")) },
	  .cmdline = "rd.luks=no",
	  .result = -EPERM,
	  .error = { "usr: partition 3 of /d.img is encrypted (LUKS) and rd.luks=no" } },

	{ "root_and_usr_same_partition",
	  .disks = { VDA("ext4") }, .cmdline = "root=/dev/vda2 mount.usr=LABEL=rootfs",
	  .result = -EINVAL,
	  .error = { "root=/dev/vda2 and mount.usr=LABEL=rootfs name the same device (/dev/vda2)" } },

	{ "root_explicit_is_discovered_usr",
	  .disks = { GPT("/d.img", ESP_ROOT, P(3, T_USR_X86_64, NULL, "usr", 0, "ext4")) },
	  .cmdline = "root=" PU(0, 3),
	  .n_steps = 2,
	  .steps = { { 0, OP_MOUNT, PU(0, 3), "/sysroot", "ext4", "ro" },
		     { 1, OP_MOUNT, PU(0, 1), "/sysroot/boot", "vfat", FAT_RO } },
	  .notes = { "partition 3 not mounted on /usr: it is the root" } },

	/* Found by fuzz_plan: the discovered root was also mounted on /usr. */
	{ "usr_explicit_is_not_discovered_root",
	  .disks = { GPT("/d.img", ESP_ROOT, P(3, T_ROOT_X86_64, NULL, "root-0.9", 0, "ext4")) },
	  .cmdline = "mount.usr=" PU(0, 2),
	  .n_steps = 3,
	  .steps = { { 0, OP_MOUNT, PU(0, 3), "/sysroot", "ext4", "ro,nodev" },
		     { 1, OP_MOUNT, PU(0, 2), "/sysroot/usr", "ext4", "ro" } },
	  .notes = { "partition 2 (root, label 'root') passed over: it is named by mount.usr=" } },

	{ "usr_explicit_is_only_root",
	  .disks = { GPT("/d.img", ESP_ROOT) }, .cmdline = "mount.usr=" PU(0, 2),
	  .result = -ENOENT,
	  .error = { "no root partition" } },

	{ "root_tmpfs_mbr_hint",
	  .disks = { DISK("/m.img", "", "", false, NO_PARTS) }, .cmdline = "root=tmpfs",
	  .result = -EPERM,
	  .error = { "/m.img has no partition table, not GPT: discovery needs GPT; use "
		     "mount.usr=PARTUUID=" } },

#define USR_FORMS_DISK \
	GPT("/dev/vda", ESP_ROOT, { 3, T_LINUX, NULL, "usr-data", 0, "squashfs", NULL, NULL, "usr" })
	{ "usr_forms: LABEL=",
	  .disks = { USR_FORMS_DISK }, .cmdline = "mount.usr=LABEL=usr",
	  .n_steps = 3,
	  .steps = { { 1, OP_MOUNT, "LABEL=usr", "/sysroot/usr", "squashfs", "ro" } } },
	{ "usr_forms: PARTLABEL= and mount.usrfstype=",
	  .disks = { USR_FORMS_DISK },
	  .cmdline = "mount.usr=PARTLABEL=usr-data mount.usrfstype=erofs",
	  .n_steps = 3,
	  .steps = { { 1, OP_MOUNT, "PARTLABEL=usr-data", "/sysroot/usr", "erofs", "ro" } } },
	{ "usr_forms: not found",
	  .disks = { USR_FORMS_DISK }, .cmdline = "mount.usr=LABEL=nothing mount.usrfstype=erofs",
	  .result = -ENOENT,
	  .error = { "mount.usr=LABEL=nothing matches no partition" } },
#undef USR_FORMS_DISK

	{ "usr_explicit_beats_discovered",
	  .disks = { GPT("/dev/vda", ESP_ROOT, P(3, T_USR_X86_64, NULL, "usr-1", 0, "erofs"),
			 P(4, T_USR_X86_64, NULL, "usr-2", 0, "erofs")) },
	  .cmdline = "mount.usr=PARTLABEL=usr-1",
	  .n_steps = 3,
	  .steps = { { 1, OP_MOUNT, "PARTLABEL=usr-1", "/sysroot/usr", "erofs", "ro" } } },

	/* mount.usrflags= defaults to rootflags=. */
	{ "rootflags_join",
	  .disks = { GPT("/d.img", P(2, T_ROOT_X86_64, NULL, "root", 0, "ext4"),
			 P(3, T_USR_X86_64, NULL, "usr", 0, "ext4")) },
	  .cmdline = "rootflags=noatime,nodev,ro,data=journal",
	  .n_steps = 2,
	  .steps = { { 0, OP_MOUNT, PU(0, 2), "/sysroot", "ext4", "ro,nodev,noatime,data=journal" },
		     { 1, OP_MOUNT, PU(0, 3), "/sysroot/usr", "ext4",
		       "ro,nodev,noatime,data=journal" } } },

	{ "usrflags_rw",
	  .disks = { GPT("/d.img", P(2, T_ROOT_X86_64, NULL, "root", 0, "ext4"),
			 P(3, T_USR_X86_64, NULL, "usr", 0, "ext4")) },
	  .cmdline = "rootflags=noatime mount.usrflags=discard,rw",
	  .n_steps = 2,
	  .steps = { { 0, OP_MOUNT, PU(0, 2), "/sysroot", "ext4", "ro,nodev,noatime" },
		     { 1, OP_MOUNT, PU(0, 3), "/sysroot/usr", "ext4", "rw,nodev,discard" } } },
	{ "usrflags_rw: read-only bit",
	  .disks = { GPT("/d.img", P(2, T_ROOT_X86_64, NULL, "root", 0, "ext4"),
			 P(3, T_USR_X86_64, NULL, "usr", RO, "ext4")) },
	  .cmdline = "rootflags=noatime mount.usrflags=discard,rw",
	  .n_steps = 2,
	  .steps = { { 1, OP_MOUNT, PU(0, 3), "/sysroot/usr", "ext4", "ro,nodev,norecovery,discard" } },
	  .notes = { "usr partition 3 mounted read-only although rw was given" } },

	{ "gpt_auto_off",
	  .disks = { VDA("ext4") }, .cmdline = "systemd.gpt_auto=0",
	  .result = -ENOENT,
	  .error = { "root= not given and systemd.gpt_auto=0" } },
	{ "gpt_auto_off: root=",
	  .disks = { VDA("ext4") }, .cmdline = "systemd.gpt_auto=0 root=/dev/vda2",
	  .n_steps = 1,
	  .steps = { { 0, OP_MOUNT, "/dev/vda2", "/sysroot", "ext4", "ro" } },
	  .boot_disk = NO_BOOT_DISK },

	/* The firmware's PARTUUID is upper case; fx_part()'s has no letters to differ in. */
	{ "loader_partuuid",
	  .disks = { GPT("/a.img", ESP_ROOT), GPT_REMOVABLE("/b.img", ESP_ROOT) },
	  .loader_partuuid = FX_UUID(1, 1),
	  .n_steps = 2,
	  .steps = { { 0, OP_MOUNT, PU(1, 2), "/sysroot", "ext4", "ro,nodev" } },
	  .boot_disk = BOOT_DISK(1),
	  .notes = { "disk chosen: /b.img, whose esp partition 1 the firmware booted from" } },

	{ "loader_partuuid_no_match",
	  .disks = { GPT("/a.img", ESP_ROOT) },
	  .loader_partuuid = "AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE",
	  .result = -ENOENT,
	  .error = { "no ESP or XBOOTLDR partition has PARTUUID "
		     "AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE" } },

	{ "disk_by_path",
	  .disks = { GPT("/a.img", ESP_ROOT), GPT_REMOVABLE("/b.img", ESP_ROOT) },
	  .cmdline = "earlymount.disk=/b.img",
	  .n_steps = 2,
	  .steps = { { 0, OP_MOUNT, PU(1, 2), "/sysroot", "ext4", "ro,nodev" } },
	  .notes = { "disk chosen: /b.img, named by earlymount.disk=/b.img" } },

	{ "disk_by_partuuid",
	  .disks = { GPT("/a.img", ESP_ROOT), GPT("/b.img", ESP_ROOT) },
	  .cmdline = "earlymount.disk=" PU(1, 1),
	  .n_steps = 2,
	  .steps = { { 0, OP_MOUNT, PU(1, 2), "/sysroot", "ext4", "ro,nodev" } } },

	{ "disk_by_gpt_uuid",
	  .disks = { DISK("/a.img", "gpt", "0000aaaa-0000-4000-8000-000000000001", false, ESP_ROOT),
		     DISK("/b.img", "gpt", "0000bbbb-0000-4000-8000-000000000002", false, ESP_ROOT) },
	  .cmdline = "earlymount.disk=0000BBBB-0000-4000-8000-000000000002",
	  .n_steps = 2,
	  .steps = { { 0, OP_MOUNT, PU(1, 2), "/sysroot", "ext4", "ro,nodev" } } },

	{ "disk_not_found",
	  .disks = { GPT("/a.img", ESP_ROOT) }, .cmdline = "earlymount.disk=/c.img",
	  .result = -ENOENT,
	  .error = { "earlymount.disk=/c.img names no disk", "found: /a.img: gpt, 2 partitions" } },

	{ "disk_named_mbr",
	  .disks = { GPT("/a.img", ESP_ROOT), DISK("/m.img", "dos", "1234abcd", false, NO_PARTS) },
	  .cmdline = "earlymount.disk=/m.img",
	  .result = -EPERM,
	  .error = { "/m.img (named by earlymount.disk=) has a dos partition table, not GPT: "
		     "discovery needs GPT; use root=" } },

	{ "two_fixed_disks",
	  .disks = { GPT("/a.img", ESP_ROOT), GPT("/b.img", ESP_ROOT) },
	  .result = -ENOTUNIQ,
	  .error = { "2 fixed disks hold an x86-64 root partition: /a.img /b.img",
		     "earlymount.disk=" } },

	{ "removable_only",
	  .disks = { GPT_REMOVABLE("/usb.img", ESP_ROOT) },
	  .result = -EPERM,
	  .error = { "/usb.img holds an x86-64 root partition but is removable; earlymount never "
		     "picks a removable disk by itself: name it with earlymount.disk=/usb.img" } },

	{ "removable_and_fixed",
	  .disks = { GPT_REMOVABLE("/usb.img", ESP_ROOT), GPT("/fixed.img", ESP_ROOT) },
	  .n_steps = 2,
	  .steps = { { 0, OP_MOUNT, PU(1, 2), "/sysroot", "ext4", "ro,nodev" } } },

	{ "mbr_only",
	  .disks = { DISK("/x.img", "dos", "1234abcd", false,
			  P(1, "0x83", "1234abcd-01", "", 0, "ext4")) },
	  .result = -EPERM,
	  .error = { "/x.img has a dos partition table, not GPT: discovery needs GPT; use root=" } },

	{ "no_disks",
	  .result = -ENOENT,
	  .error = { "no disks found" } },

	{ "gpt_without_root",
	  .disks = { GPT("/x.img", P(1, T_ESP, NULL, "esp", 0, "vfat"),
			 P(2, T_LINUX, NULL, "data", 0, "ext4")),
		     DISK("/y.img", "dos", "1234abcd", false, NO_PARTS) },
	  .result = -ENOENT,
	  .error = { "no root partition (type " T_ROOT_X86_64 " for x86-64) on any disk; found: "
		     "/x.img: gpt, 2 partitions of types esp, linux-generic; /y.img: dos, 0 "
		     "partitions" } },

	{ "cloned_partuuid",
	  .disks = { GPT("/a.img", ESP_ROOT),
		     GPT_REMOVABLE("/b.img", P(2, T_ROOT_X86_64, FX_UUID(0, 2), "root", 0, "ext4")) },
	  .result = -ENOTUNIQ,
	  .error = { "is on several partitions" } },

	{ "verity_noted",
	  .disks = { GPT("/d.img", ESP_ROOT, P(3, T_ROOT_VERITY_X86_64, NULL, "root-verity", 0, "")) },
	  .n_steps = 2,
	  .notes = { "partition 3 (root-verity) not used: no roothash=" } },

	{ "volatile_yes_with_usr",
	  .disks = { GPT("/v.img", VOL_ROOT, VOL_USR, VOL_STATE) }, .machine_id = MACHINE_ID_HEX,
	  .cmdline = "systemd.volatile=yes mount.usrflags=rw",
	  .n_steps = 3 + SKEL_FULL,
	  .steps = { { 0, OP_TMPFS, "tmpfs", "/sysroot", "tmpfs", TMPFS_OPTS },
		     { 1, OP_MOUNT, PU(0, 3), "/sysroot/usr", "erofs", "ro,nodev" },
		     { 2, OP_MOUNT, PU(0, 6), "/sysroot/home", "ext4", "rw,nodev" } },
	  .skeleton = { SKEL_WHOLE, 3 },
	  .notes = { "partition 4 (var, label 'var') passed over: systemd.volatile=yes throws "
		     "state away",
		     "partition 5 (tmp, label 'tmp') passed over: systemd.volatile=yes",
		     "/usr mounted read-only although rw was given" },
	  .wants_machine_id = NO },

	{ "volatile_yes_without_usr",
	  .disks = { GPT("/v.img", VOL_ROOT, VOL_STATE) }, .machine_id = MACHINE_ID_HEX,
	  .cmdline = "systemd.volatile=yes",
	  .n_steps = 5 + SKEL_FULL,
	  .steps = { { 0, OP_MOUNT, PU(0, 2), "/run/earlymount/root", "ext4", "ro,nodev" },
		     { 1, OP_TMPFS, "tmpfs", "/sysroot", "tmpfs", TMPFS_OPTS },
		     { 2, OP_BIND, "/run/earlymount/root/usr", "/sysroot/usr", "", "ro" },
		     { 3, OP_UMOUNT, "", "/run/earlymount/root", "", "" },
		     { 4, OP_MOUNT, PU(0, 6), "/sysroot/home", "ext4", "rw,nodev" } },
	  .skeleton = { SKEL_WHOLE, 5 },
	  .root_steps = 1, .machine_id_path = "/run/earlymount/root/etc/machine-id" },

	{ "volatile_state",
	  .disks = { GPT("/v.img", VOL_ROOT, VOL_USR, VOL_STATE) }, .machine_id = MACHINE_ID_HEX,
	  .cmdline = "systemd.volatile=state rw",
	  .n_steps = 4 + SKEL_VAR,
	  .steps = { { 0, OP_MOUNT, PU(0, 2), "/sysroot", "ext4", "ro,nodev" },
		     { 1, OP_MOUNT, PU(0, 3), "/sysroot/usr", "erofs", "ro,nodev" },
		     { 2, OP_TMPFS, "tmpfs", "/sysroot/var", "tmpfs", TMPFS_OPTS },
		     { 3, OP_MOUNT, PU(0, 6), "/sysroot/home", "ext4", "rw,nodev" } },
	  .skeleton = { SKEL_IN_VAR, 4 },
	  .notes = { "root mounted read-only although rw was given: systemd.volatile=state",
		     "partition 4 (var, label 'var') passed over: systemd.volatile=state" } },

	{ "volatile_tmpfs_flags_replace_the_limits",
	  .disks = { GPT("/v.img", VOL_ROOT, VOL_USR, VOL_STATE) }, .machine_id = MACHINE_ID_HEX,
	  .cmdline = "systemd.volatile=state earlymount.tmpfs=size=10%,noexec",
	  .n_steps = 4 + SKEL_VAR,
	  .steps = { { 2, OP_TMPFS, "tmpfs", "/sysroot/var", "tmpfs",
		       "mode=0755,size=10%,nr_inodes=1m,noexec" } } },

	{ "volatile_state_without_usr",
	  .disks = { GPT("/v.img", VOL_ROOT, VOL_STATE) }, .machine_id = MACHINE_ID_HEX,
	  .cmdline = "systemd.volatile=state",
	  .n_steps = 3 + SKEL_VAR,
	  .steps = { { 0, OP_MOUNT, PU(0, 2), "/sysroot", "ext4", "ro,nodev" },
		     { 1, OP_TMPFS, "tmpfs", "/sysroot/var", "tmpfs", TMPFS_OPTS },
		     { 2, OP_MOUNT, PU(0, 6), "/sysroot/home", "ext4", "rw,nodev" } } },

#define OVERLAY_OPTS \
	"lowerdir=/sysroot,upperdir=/run/earlymount/overlay/upper,workdir=/run/earlymount/overlay/work"
	/* /usr goes on top of the overlay (as systemd mounts it), so it stays visible and
	 * read-only. */
	{ "volatile_overlay_with_usr",
	  .disks = { GPT("/v.img", VOL_ROOT, VOL_USR, VOL_STATE) }, .machine_id = MACHINE_ID_HEX,
	  .cmdline = "systemd.volatile=overlay",
	  .n_steps = 9 + SKEL_FULL,
	  .steps = { { 0, OP_MOUNT, PU(0, 2), "/sysroot", "ext4", "ro,nodev" },
		     { 1, OP_TMPFS, "tmpfs", "/run/earlymount/overlay", "tmpfs", TMPFS_OPTS },
		     { 2, OP_MKDIR, "", "/run/earlymount/overlay/upper", "", "" },
		     { 3, OP_MKDIR, "", "/run/earlymount/overlay/work", "", "" },
		     { 4, OP_OVERLAY, "overlay", "/sysroot", "overlay", OVERLAY_OPTS },
		     { 5, OP_MOUNT, PU(0, 3), "/sysroot/usr", "erofs", "ro,nodev" },
		     { 6, OP_MOUNT, "PARTUUID=" MACHINE_VAR_PARTUUID, "/sysroot/var", "ext4", "rw,nodev" },
		     { 7, OP_MOUNT, PU(0, 5), "/sysroot/var/tmp", "ext4", "rw,nodev,nosuid" },
		     { 8, OP_MOUNT, PU(0, 6), "/sysroot/home", "ext4", "rw,nodev" } },
	  .mode = { [2] = 0755, [3] = 0755 },
	  .skeleton = { SKEL_WHOLE, 9 },
	  .root_steps = 1, .machine_id_path = "/sysroot/etc/machine-id" },

	{ "volatile_overlay_without_usr",
	  .disks = { GPT("/v.img", VOL_ROOT, VOL_STATE) }, .machine_id = MACHINE_ID_HEX,
	  .cmdline = "systemd.volatile=overlay",
	  .n_steps = 8 + SKEL_FULL,
	  .steps = { { 4, OP_OVERLAY, "overlay", "/sysroot", "overlay", OVERLAY_OPTS },
		     { 5, OP_MOUNT, "PARTUUID=" MACHINE_VAR_PARTUUID, "/sysroot/var", "ext4",
		       "rw,nodev" } } },
#undef OVERLAY_OPTS

	/* The machine's own ID comes from a root that is not there: only the command line counts. */
#define TMPFS_USR_DISK                                                                    \
	GPT("/u.img", P(3, T_USR_X86_64, NULL, "usr", 0, "erofs"),                        \
	    P(4, T_VAR, MACHINE_VAR_PARTUUID, "var", 0, "ext4"), P(5, T_HOME, NULL, "home", 0, "ext4"))
	{ "root_tmpfs_with_usr_partition",
	  .disks = { TMPFS_USR_DISK }, .machine_id = MACHINE_ID_HEX,
	  .cmdline = "root=tmpfs systemd.volatile=overlay",
	  .n_steps = 3 + SKEL_FULL,
	  .steps = { { 0, OP_TMPFS, "tmpfs", "/sysroot", "tmpfs", "rw," TMPFS_OPTS },
		     { 1, OP_MOUNT, PU(0, 3), "/sysroot/usr", "erofs", "ro,nodev" },
		     { 2, OP_MOUNT, PU(0, 5), "/sysroot/home", "ext4", "rw,nodev" } },
	  .notes = { "systemd.volatile= ignored: root=tmpfs is volatile already",
		     "the only fixed disk with an x86-64 usr partition",
		     "partition 4 (var) not mounted: root=tmpfs has no machine ID" },
	  .wants_machine_id = NO },
	{ "root_tmpfs_with_usr_partition: systemd.machine_id=",
	  .disks = { TMPFS_USR_DISK }, .machine_id = MACHINE_ID_HEX,
	  .cmdline = "root=tmpfs systemd.volatile=overlay systemd.machine_id=" MACHINE_ID_HEX,
	  .n_steps = 4 + SKEL_FULL,
	  .steps = { { 2, OP_MOUNT, "PARTUUID=" MACHINE_VAR_PARTUUID, "/sysroot/var", "ext4",
		       "rw,nodev" } },
	  .skeleton = { SKEL_WHOLE, 4 } },
#undef TMPFS_USR_DISK

#define VDA_USR GPT("/dev/vda", { 1, T_LINUX, NULL, "usr", 0, "ext4", "/dev/vda1", NULL, NULL })
	{ "root_tmpfs_with_mount_usr",
	  .disks = { VDA_USR }, .cmdline = "root=tmpfs mount.usr=/dev/vda1",
	  .n_steps = 2 + SKEL_FULL,
	  .steps = { { 0, OP_TMPFS, "tmpfs", "/sysroot", "tmpfs", "rw," TMPFS_OPTS },
		     { 1, OP_MOUNT, "/dev/vda1", "/sysroot/usr", "ext4", "ro" } },
	  .skeleton = { SKEL_WHOLE, 2 } },

	/* rootflags= tunes the tmpfs root word by word and says nothing about /usr. */
	{ "root_tmpfs_rootflags",
	  .disks = { VDA_USR },
	  .cmdline = "root=tmpfs mount.usr=/dev/vda1 rootflags=ro,size=20%,size=50%,noatime,mode=0700",
	  .n_steps = 2 + SKEL_FULL,
	  .steps = { { 0, OP_TMPFS, "tmpfs", "/sysroot", "tmpfs",
		       "rw,mode=0700,size=50%,nr_inodes=1m,noatime" },
		     { 1, OP_MOUNT, "/dev/vda1", "/sysroot/usr", "ext4", "ro" } } },
	{ "root_tmpfs_rootflags: mount.usrflags=",
	  .disks = { VDA_USR },
	  .cmdline = "root=tmpfs mount.usr=/dev/vda1 rootflags=ro,size=20%,size=50%,noatime,mode=0700 "
		     "mount.usrflags=rw,noatime",
	  .n_steps = 2 + SKEL_FULL,
	  .steps = { { 1, OP_MOUNT, "/dev/vda1", "/sysroot/usr", "ext4", "rw,noatime" } } },
#undef VDA_USR

	/* Read-only /usr everywhere: rw for the root, even in rootflags=, leaves /usr alone. */
	{ "usr_ro_unless_usrflags_rw",
	  .disks = { GPT("/v.img", VOL_ROOT, VOL_USR, VOL_STATE) }, .machine_id = MACHINE_ID_HEX,
	  .cmdline = "rw rootflags=rw",
	  .n_steps = 5 + SKEL_FULL,
	  .steps = { { 0, OP_MOUNT, PU(0, 2), "/sysroot", "ext4", "rw,nodev" },
		     { 1, OP_MOUNT, PU(0, 3), "/sysroot/usr", "erofs", "ro,nodev" } } },
	{ "usr_ro_unless_usrflags_rw: mount.usrflags=rw",
	  .disks = { GPT("/v.img", VOL_ROOT, VOL_USR, VOL_STATE) }, .machine_id = MACHINE_ID_HEX,
	  .cmdline = "rw rootflags=rw mount.usrflags=rw",
	  .n_steps = 5 + SKEL_FULL,
	  .steps = { { 1, OP_MOUNT, PU(0, 3), "/sysroot/usr", "erofs", "rw,nodev" } } },

	{ "root_tmpfs_without_usr",
	  .disks = { GPT("/d.img", ESP_ROOT) }, .cmdline = "root=tmpfs",
	  .result = -ENOENT,
	  .error = { "root=tmpfs needs a /usr: give mount.usr= or add a usr partition" } },
	{ "root_tmpfs_without_usr: systemd.gpt_auto=0",
	  .disks = { GPT("/d.img", ESP_ROOT) }, .cmdline = "root=tmpfs systemd.gpt_auto=0",
	  .result = -ENOENT,
	  .error = { "root=tmpfs needs a /usr: give mount.usr=" } },

	{ "label_with_control_characters",
	  .disks = { GPT("/d.img", P(2, T_ROOT_X86_64, NULL, "root\nevil", NO_AUTO, "ext4"),
			 P(3, T_ROOT_X86_64, NULL, "root", 0, "ext4")) },
	  .n_steps = 1,
	  .notes = { "label 'root?evil'" } },
};

static void add_disk(struct fixture *f, const struct disk_row *row)
{
	size_t d = fx_disk(f, row->path, row->pttype, row->ptuuid, row->removable);

	for (size_t i = 0; i < ARRAY_SIZE(row->parts) && row->parts[i].number; i++) {
		const struct part_row *r = &row->parts[i];
		struct part *p = fx_part(f, d, r->number, r->type, r->partuuid, r->label, r->flags,
					 r->fstype);

		snprintf(p->devpath, sizeof(p->devpath), "%s", r->devpath ? r->devpath : "");
		snprintf(p->fsuuid, sizeof(p->fsuuid), "%s", r->fsuuid ? r->fsuuid : "");
		snprintf(p->fslabel, sizeof(p->fslabel), "%s", r->fslabel ? r->fslabel : "");
	}
}

static void set_up(struct fixture *f, const struct plan_case *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(c->disks) && c->disks[i].path; i++)
		add_disk(f, &c->disks[i]);
	if (c->cmdline) {
		assert_int_equal(cmdline_parse(c->cmdline, &f->opts, NULL, 0), 0);
		/* The parse starts from the defaults, fsck.mode=auto among them. */
		f->opts.fsck_mode = FSCK_SKIP;
	}
	f->machine.arch = c->arch;
	if (c->machine_id) {
		f->machine.has_machine_id = true;
		assert_int_equal(id128_parse(c->machine_id, f->machine.machine_id), 0);
	}
	if (c->loader_partuuid)
		snprintf(f->machine.loader_partuuid, sizeof(f->machine.loader_partuuid), "%s",
			 c->loader_partuuid);
}

static void check_step(const struct fixture *f, size_t i, enum plan_op op, const char *source,
		       const char *target, const char *fstype, const char *options)
{
	const struct plan_step *s;
	char want_source[PLAN_PATH];

	if (i >= f->plan.n_steps) {
		fx_dump(f);
		fail_msg("step %zu missing: the plan has %zu", i, f->plan.n_steps);
	}
	s = &f->plan.steps[i];
	snprintf(want_source, sizeof(want_source), "%s", source);
	if (s->op != op || strcmp(s->source, want_source) != 0 || strcmp(s->target, target) != 0 ||
	    strcmp(s->fstype, fstype) != 0 || strcmp(s->options, options) != 0) {
		fx_dump(f);
		fail_msg("step %zu: want %s %s %s %s [%s]", i, plan_op_name(op), want_source, target,
			 fstype, options);
	}
	if (s->reason[0] == '\0') {
		fx_dump(f);
		fail_msg("step %zu has no reason", i);
	}
}

static void check_note(const struct fixture *f, const char *text)
{
	if (!fx_has_note(f, text)) {
		fx_dump(f);
		fail_msg("no note contains '%s'", text);
	}
}

static void check_error(const struct fixture *f, int r, int want, const char *text)
{
	if (r != want || !strstr(f->plan.error, text)) {
		fx_dump(f);
		fail_msg("want %d and an error with '%s'; got %d", want, text, r);
	}
	assert_null(strchr(f->plan.error, '\n'));
}

static void check_ok(const struct fixture *f, int r, size_t n_steps)
{
	if (r != 0 || f->plan.n_steps != n_steps) {
		fx_dump(f);
		fail_msg("want 0 and %zu steps; got %d and %zu", n_steps, r, f->plan.n_steps);
	}
	assert_string_equal(f->plan.error, "");
}

static const struct plan_step *find_step(const struct fixture *f, size_t from, enum plan_op op,
					 const char *source, const char *target)
{
	for (size_t i = from; i < f->plan.n_steps; i++) {
		const struct plan_step *s = &f->plan.steps[i];

		if (s->op == op && strcmp(s->source, source) == 0 && strcmp(s->target, target) == 0)
			return s;
	}
	fx_dump(f);
	fail_msg("no %s step %s -> %s from step %zu", plan_op_name(op), source, target, from);
	return NULL;
}

/* Steps [from, end) are the skeleton: all of it, or only what lies in /var. */
static void check_skeleton(const struct fixture *f, size_t from, bool whole)
{
	size_t want = whole ? SKEL_FULL : SKEL_VAR;
	const struct plan_step *s;

	if (f->plan.n_steps - from != want) {
		fx_dump(f);
		fail_msg("want %zu skeleton steps from step %zu; the plan has %zu steps", want, from,
			 f->plan.n_steps);
	}
	for (size_t i = from; i < f->plan.n_steps; i++)
		assert_true(f->plan.steps[i].op == OP_POPULATE || f->plan.steps[i].op == OP_SKEL_DIR ||
			    f->plan.steps[i].op == OP_SKEL_LINK);
	find_step(f, from, OP_POPULATE, "/sysroot/usr/share/factory/var", "/sysroot/var");
	assert_int_equal(find_step(f, from, OP_SKEL_DIR, "", "/sysroot/var/tmp")->mode, 01777);
	find_step(f, from, OP_SKEL_LINK, "../run", "/sysroot/var/run");
	if (!whole)
		return;
	s = find_step(f, from, OP_POPULATE, "/sysroot/usr/share/factory/etc", "/sysroot/etc");
	/* The factory tree goes first: a directory made before it would look taken. */
	assert_ptr_equal(s, &f->plan.steps[from]);
	assert_int_equal(find_step(f, from, OP_SKEL_DIR, "", "/sysroot/tmp")->mode, 01777);
	assert_int_equal(find_step(f, from, OP_SKEL_DIR, "", "/sysroot/root")->mode, 0700);
	find_step(f, from, OP_SKEL_DIR, "", "/sysroot/run");
	find_step(f, from, OP_SKEL_LINK, "usr/bin", "/sysroot/bin");
	/* /sbin: usr/sbin where /usr has one, else usr/bin; the first link made wins. */
	s = find_step(f, from, OP_SKEL_LINK, "usr/sbin", "/sysroot/sbin");
	assert_ptr_equal(find_step(f, from, OP_SKEL_LINK, "usr/bin", "/sysroot/sbin"), s + 1);
	find_step(f, from, OP_SKEL_LINK, "usr/lib", "/sysroot/lib");
	find_step(f, from, OP_SKEL_LINK, "usr/lib64", "/sysroot/lib64");
}

static void check_want(bool got, enum want want)
{
	if (want != ANY)
		assert_int_equal(got, want == YES);
}

static void check_steps(const struct fixture *f, const struct plan_case *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(c->steps) && c->steps[i].target; i++) {
		const struct step_row *w = &c->steps[i];

		check_step(f, w->index, w->op, w->source, w->target, w->fstype, w->options);
	}
	for (size_t i = 0; i < ROW_STEPS; i++) {
		if (c->optional[i] == ANY && !c->mode[i])
			continue;
		assert_true(i < f->plan.n_steps);
		check_want(f->plan.steps[i].optional, c->optional[i]);
		if (c->mode[i])
			assert_int_equal(f->plan.steps[i].mode, c->mode[i]);
	}
}

static void check_case(struct fixture *f, const struct plan_case *c, int r)
{
	if (c->result == 0) {
		check_ok(f, r, c->n_steps);
	} else {
		assert_non_null(c->error[0]);
		for (size_t i = 0; i < ARRAY_SIZE(c->error) && c->error[i]; i++)
			check_error(f, r, c->result, c->error[i]);
	}
	check_steps(f, c);
	if (c->skeleton.kind != SKEL_NONE)
		check_skeleton(f, c->skeleton.from, c->skeleton.kind == SKEL_WHOLE);
	for (size_t i = 0; i < ARRAY_SIZE(c->notes) && c->notes[i]; i++)
		check_note(f, c->notes[i]);
	/* Notes are printed one a line: a label's newline must not forge another. */
	for (size_t i = 0; i < f->plan.n_notes; i++)
		assert_null(strchr(f->plan.notes[i], '\n'));
	if (c->root_part.number)
		assert_ptr_equal(f->plan.steps[0].part, fx_get(f, c->root_part.disk, c->root_part.number));
	if (c->boot_disk.checked && c->boot_disk.index < 0)
		assert_null(f->plan.disk);
	else if (c->boot_disk.checked)
		assert_ptr_equal(f->plan.disk, &f->set.disks[c->boot_disk.index]);
	if (c->root_steps)
		assert_int_equal(f->plan.root_steps, c->root_steps);
	check_want(f->plan.wants_machine_id, c->wants_machine_id);
	if (c->machine_id_path)
		assert_string_equal(f->plan.machine_id_path, c->machine_id_path);
	if (c->init)
		assert_string_equal(f->plan.init, c->init);
}

static void test_case(void **state)
{
	const struct plan_case *c = *state;
	struct fixture *f = fx_new();

	set_up(f, c);
	check_case(f, c, fx_plan(f));
	fx_free(f);
}

/* Past PLAN_MAX_NOTES the notes are summed up, and the plan still holds. */
static void test_many_partitions(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/many.img", "gpt", "", false);
	int r;

	fx_part(f, d, 1, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	for (unsigned n = 2; n < 302; n++)
		fx_part(f, d, n, T_HOME, NULL, "home", 0, "ext4");
	r = fx_plan(f);
	check_ok(f, r, 2);
	check_step(f, 1, OP_MOUNT, PU(0, 2), "/sysroot/home", "ext4", "rw,nodev");
	assert_int_equal(f->plan.n_notes, PLAN_MAX_NOTES);
	assert_non_null(strstr(f->plan.notes[PLAN_MAX_NOTES - 1], "more notes left out"));
	fx_free(f);
	(void)state;
}

/* An empty word in rootflags=, set directly: the command line's parser drops it before the
 * planner could see it. */
static void test_root_explicit_with_rootfstype_and_flags(void **state)
{
	struct fixture *f = fx_new();
	int r;

	add_disk(f, &(const struct disk_row)VDA("ext4"));
	f->opts.root_kind = ROOT_DEVICE;
	f->opts.root = "/dev/vda2";
	f->opts.rootfstype = "ext3";
	f->opts.rootflags = "noatime,rw,,noatime,discard";
	r = fx_plan(f);
	check_ok(f, r, 2);
	check_step(f, 0, OP_MOUNT, "/dev/vda2", "/sysroot", "ext3", "ro,noatime,discard");
	fx_free(f);
	(void)state;
}

/* Values past the plan's fields, set directly: they are too long for a row's command line. */
static void test_long_values(void **state)
{
	struct fixture *f = fx_new();
	static char flags[3000];
	static char init[400];
	int r;

	add_disk(f, &(const struct disk_row)GPT("/d.img", ESP_ROOT));
	for (size_t i = 0; i + 2 < sizeof(flags); i += 2)
		memcpy(flags + i, "a,", 2);
	f->opts.rootflags = flags;
	r = fx_plan(f);
	check_ok(f, r, 2);
	memset(flags, 'x', sizeof(flags) - 1);
	r = fx_plan(f);
	check_error(f, r, -EINVAL, "mount options for /sysroot are longer than");
	f->opts.rootflags = NULL;
	memset(init, 'i', sizeof(init) - 1);
	init[0] = '/';
	f->opts.init = init;
	r = fx_plan(f);
	check_error(f, r, -EINVAL, "init=");
	f->opts.init = "/usr/lib/systemd/systemd";
	r = fx_plan(f);
	check_ok(f, r, 2);
	assert_string_equal(f->plan.init, "/usr/lib/systemd/systemd");
	fx_free(f);
	(void)state;
}

static void test_bad_input(void **state)
{
	struct fixture *f = fx_new();
	struct plan_input in = { .opts = &f->opts, .disks = NULL, .machine = &f->machine };
	int r;

	assert_int_equal(plan_build(&in, NULL), -EINVAL);
	r = plan_build(&in, &f->plan);
	check_error(f, r, -EINVAL, "plan input incomplete");
	assert_int_equal(plan_build(NULL, &f->plan), -EINVAL);
	f->machine.arch = ARCH_INVALID;
	r = fx_plan(f);
	check_error(f, r, -EINVAL, "machine architecture unknown");
	fx_free(f);
	(void)state;
}

static void test_names(void **state)
{
	assert_string_equal(plan_op_name(OP_MOUNT), "mount");
	assert_string_equal(plan_op_name(OP_SWAPON), "swapon");
	assert_string_equal(plan_op_name(OP_UMOUNT), "umount");
	assert_string_equal(plan_op_name(OP_MAX), "unknown");
	assert_string_equal(plan_op_name((enum plan_op)-1), "unknown");
	assert_string_equal(plan_default_inits[0], "/sbin/init");
	assert_string_equal(plan_default_inits[3], "/bin/sh");
	assert_null(plan_default_inits[4]);
	(void)state;
}

/* A device without a partition table (its one part numbered 0, which no row can give) is said
 * by what it holds, and never has "partitions of type none". */
static void test_whole_devices_described(void **state)
{
	struct fixture *f = fx_new();
	size_t lv = fx_disk(f, "/lv.img", "", "", false);
	size_t pv = fx_disk(f, "/pv.img", "", "", false);

	fx_part(f, lv, PART_WHOLE_DEVICE, "", "", "", 0, "ext4");
	fx_part(f, pv, PART_WHOLE_DEVICE, "", "", "", 0, "LVM2_member");
	assert_int_equal(cmdline_parse("root=LABEL=nothere", &f->opts, NULL, 0), 0);
	assert_int_equal(fx_plan(f), -ENOENT);
	assert_non_null(strstr(f->plan.error, "; found: /lv.img: a whole-device ext4 filesystem, no "
			       "partition table; /pv.img: a whole device that is an LVM physical "
			       "volume (LVM2_member), no partition table"));
	fx_free(f);
	(void)state;
}

int main(void)
{
	static const struct CMUnitTest others[] = {
		cmocka_unit_test(test_whole_devices_described),
		cmocka_unit_test(test_root_explicit_with_rootfstype_and_flags),
		cmocka_unit_test(test_many_partitions),
		cmocka_unit_test(test_long_values),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_names),
	};
	struct CMUnitTest tests[ARRAY_SIZE(plan_cases) + ARRAY_SIZE(others)];
	size_t n = 0;

	/* One test per row, under the row's name, so that a failure says which. */
	for (size_t i = 0; i < ARRAY_SIZE(plan_cases); i++)
		tests[n++] = (struct CMUnitTest){ .name = plan_cases[i].name, .test_func = test_case,
						  .initial_state = (void *)&plan_cases[i] };
	for (size_t i = 0; i < ARRAY_SIZE(others); i++)
		tests[n++] = others[i];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
