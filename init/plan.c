/* The planner: which disk, which partitions, in which order and with which options.
 * Pure: it reads the option, disk and machine data it is given and writes the plan;
 * it never logs and never calls the system. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plan.h"
#include "util.h"

#define ROOT_MOUNT_POINT SYSROOT
#define VOLATILE_ROOT_DIR EARLYMOUNT_RUN "/root"
#define OVERLAY_DIR EARLYMOUNT_RUN "/overlay"
#define OVERLAY_UPPER OVERLAY_DIR "/upper"
#define OVERLAY_WORK OVERLAY_DIR "/work"
#define MACHINE_ID_FILE "/etc/machine-id"

/* Kept in step with dps_fstype_allowed(), for messages. */
#define ALLOWED_FSTYPES "btrfs, erofs, ext4, f2fs, squashfs, vfat, xfs"

/* The tmpfs options follow systemd: its TMPFS_LIMITS_ROOTFS, TMPFS_LIMITS_VAR and
 * TMPFS_LIMITS_VOLATILE_STATE are all "size=25%,nr_inodes=1m". root=tmpfs takes rootflags=
 * on top, word by word (rootflags=size=1g replaces size=25%), as systemd's fstab-generator. */
#define TMPFS_LIMITS "size=25%,nr_inodes=1m"
#define TMPFS_ROOT_OPTIONS "rw,mode=0755," TMPFS_LIMITS  /* root=tmpfs */
#define TMPFS_VOLATILE_OPTIONS "mode=0755," TMPFS_LIMITS /* volatile=yes root, state /var, overlay */
#define FACTORY_DIR "/usr/share/factory"

#define LABEL_SHOWN 64
/* The kernel makes devices for partitions 1 to DISK_MAX_PARTS - 1 only (the entry loops of
 * block/partitions/efi.c and msdos.c stop there): one numbered higher cannot be mounted. */
#define KERNEL_MAX_PART_NUMBER 255
#define PRINTF_LIKE(fmt, args) __attribute__((format(printf, fmt, args)))

const char *const plan_default_inits[] = {
	"/sbin/init", "/etc/init", "/bin/init", "/bin/sh", NULL,
};

static const char *const plan_op_names[OP_MAX] = {
	[OP_MOUNT] = "mount",     [OP_BIND] = "bind",       [OP_MOVE] = "move",
	[OP_TMPFS] = "tmpfs",     [OP_OVERLAY] = "overlay", [OP_MKDIR] = "mkdir",
	[OP_SYMLINK] = "symlink", [OP_SWAPON] = "swapon",   [OP_UMOUNT] = "umount",
	[OP_POPULATE] = "populate", [OP_SKEL_DIR] = "skel-dir", [OP_SKEL_LINK] = "skel-link",
};

/* Where a skeleton entry lies: a volatile=state root is read-only but its /var is a tmpfs. */
enum skel_area {
	SKEL_ROOT = 1 << 0,
	SKEL_VAR = 1 << 1,
};

/* The file-hierarchy spec's skeleton, so that any init (busybox, OpenRC, one program) starts
 * on a fresh root. In order: factory trees before the directories they would fill, /sbin to
 * usr/sbin where /usr has one, else to usr/bin (the first link made wins), /lib64 only where
 * /usr has a lib64 (the x86-64 ABI puts its loader there; arm64's is in /lib). /run is where
 * switch_root moves the initramfs's /run. */
static const struct skel_entry {
	enum plan_op op;
	const char *source;
	const char *target;
	unsigned mode;
	enum skel_area area;
} skeleton[] = {
	{ OP_POPULATE, FACTORY_DIR "/etc", "/etc", 0, SKEL_ROOT },
	{ OP_SKEL_DIR, "", "/etc", 0755, SKEL_ROOT },
	{ OP_POPULATE, FACTORY_DIR "/var", "/var", 0, SKEL_VAR },
	{ OP_SKEL_DIR, "", "/var", 0755, SKEL_ROOT },
	{ OP_SKEL_DIR, "", "/run", 0755, SKEL_ROOT },
	{ OP_SKEL_DIR, "", "/tmp", 01777, SKEL_ROOT },
	{ OP_SKEL_DIR, "", "/var/tmp", 01777, SKEL_VAR },
	{ OP_SKEL_DIR, "", "/root", 0700, SKEL_ROOT },
	{ OP_SKEL_DIR, "", "/home", 0755, SKEL_ROOT },
	{ OP_SKEL_DIR, "", "/srv", 0755, SKEL_ROOT },
	{ OP_SKEL_LINK, "usr/bin", "/bin", 0, SKEL_ROOT },
	{ OP_SKEL_LINK, "usr/sbin", "/sbin", 0, SKEL_ROOT },
	{ OP_SKEL_LINK, "usr/bin", "/sbin", 0, SKEL_ROOT },
	{ OP_SKEL_LINK, "usr/lib", "/lib", 0, SKEL_ROOT },
	{ OP_SKEL_LINK, "usr/lib64", "/lib64", 0, SKEL_ROOT },
	{ OP_SKEL_LINK, "../run", "/var/run", 0, SKEL_VAR },
};

/* Probed types that hold no filesystem mount(2) could take, even when named by root=. */
static const char *const not_mountable_fstypes[] = {
	"crypto_LUKS", "swap", "LVM2_member", "linux_raid_member", "bcache", "BitLocker",
};

/* Journalled filesystems that take "norecovery" to skip replaying their log. */
static const char *const journal_fstypes[] = { "ext4", "xfs", "btrfs" };

/* The partitions mounted after root and /usr, in the order they are mounted. */
struct role_mount {
	enum dps_role role;
	const char *target;     /* under SYSROOT; NULL for swap; the ESP's depends on XBOOTLDR */
	bool rw;
	bool nosuid;
	bool noexec;
	bool umask_if_vfat;     /* boot partitions hold secrets (random seed, credentials) */
	/* Writable only when the command line says rw: a FAT mounted read-write is marked dirty
	 * on the disk, and a read-only boot must leave every disk as it found it. */
	bool rw_needs_rw;
	/* The system runs without it (a read-only root may even lack the mount point). */
	bool optional;
};

static const struct role_mount role_mounts[] = {
	{ DPS_VAR, "/var", true, false, false, false, false, false },
	{ DPS_TMP, "/var/tmp", true, true, false, false, false, false },
	{ DPS_HOME, "/home", true, false, false, false, false, false },
	{ DPS_SRV, "/srv", true, false, false, false, false, false },
	{ DPS_XBOOTLDR, "/boot", true, true, true, true, true, true },
	{ DPS_ESP, NULL, true, true, true, true, true, true },
	{ DPS_SWAP, NULL, false, false, false, false, false, true },
};

struct text {
	char *buf;
	size_t size;
	size_t len;
	bool full;
};

struct planner {
	const struct options *opts;
	const struct disk_set *disks;
	const struct machine *machine;
	struct plan *plan;
	size_t notes_dropped;
	const struct disk *disk;       /* discovery happens here; NULL when it does not */
	const struct part *root;       /* NULL for root=tmpfs */
	const struct disk *root_disk;
	bool root_explicit;
	enum arch root_arch;
	const struct part *usr;        /* NULL when /usr is part of the root */
	const struct disk *usr_disk;
	bool usr_explicit;
	bool xbootldr_mounted;
	bool root_rw;                  /* the disk root is mounted read-write */
};

/* The options a mount step gets, before they are written out in their fixed order. */
struct mount_flags {
	bool rw;
	bool nodev;
	bool nosuid;
	bool noexec;
	bool umask;
	bool norecovery;
	const char *user; /* rootflags= / mount.usrflags=, their ro/rw left out */
};

const char *plan_op_name(enum plan_op op)
{
	if ((unsigned)op >= OP_MAX)
		return "unknown";
	return plan_op_names[op];
}

static void text_init(struct text *t, char *buf, size_t size)
{
	t->buf = buf;
	t->size = size;
	t->len = 0;
	t->full = false;
	buf[0] = '\0';
}

static void text_vadd(struct text *t, const char *fmt, va_list ap)
{
	size_t room = t->size - t->len;
	int n;

	if (t->full)
		return;
	n = vsnprintf(t->buf + t->len, room, fmt, ap);
	if (n < 0 || (size_t)n >= room) {
		t->full = true;
		t->len = t->size - 1;
		return;
	}
	t->len += (size_t)n;
}

static void PRINTF_LIKE(2, 3) text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	text_vadd(t, fmt, ap);
	va_end(ap);
}

/* A cut line ends in "..." and never in half a UTF-8 sequence. */
static void text_mark_cut(struct text *t)
{
	size_t at;

	if (!t->full || t->size < 4)
		return;
	at = t->size - 4;
	while (at > 0 && ((unsigned char)t->buf[at] & 0xc0) == 0x80)
		at--;
	memcpy(t->buf + at, "...", 4);
}

/* Labels come from the disk: keep them on one line, short, and text (cut between
 * characters, any byte that is not UTF-8 shown as '?'). */
static const char *label_shown(const char *label, char out[LABEL_SHOWN])
{
	size_t i;

	for (i = 0; label[i] && i < LABEL_SHOWN - 1; i++)
		out[i] = ((unsigned char)label[i] < 0x20 || label[i] == 0x7f) ? '?' : label[i];
	/* Cut before a character the limit splits: at most 3 continuation bytes to give back. */
	for (size_t back = 0; label[i] && back < 3 && i > 0 && ((unsigned char)label[i] & 0xc0) == 0x80;
	     back++)
		i--;
	out[i] = '\0';
	utf8_sanitize(out);
	return out;
}

static void PRINTF_LIKE(2, 3) note(struct planner *p, const char *fmt, ...)
{
	struct plan *plan = p->plan;
	struct text t;
	va_list ap;

	if (plan->n_notes >= PLAN_MAX_NOTES) {
		p->notes_dropped++;
		return;
	}
	text_init(&t, plan->notes[plan->n_notes], PLAN_TEXT);
	va_start(ap, fmt);
	text_vadd(&t, fmt, ap);
	va_end(ap);
	text_mark_cut(&t);
	plan->n_notes++;
}

/* Notes explain, they never fail a boot: the last one says how many did not fit. */
static void notes_finish(struct planner *p)
{
	if (p->notes_dropped == 0)
		return;
	snprintf(p->plan->notes[PLAN_MAX_NOTES - 1], PLAN_TEXT, "... and %zu more notes left out",
		 p->notes_dropped + 1);
}

static const char *part_type_name(const struct part *part, char *buf, size_t size)
{
	const struct dps_type *type = dps_type_from_uuid(part->type);

	if (!type)
		snprintf(buf, size, "%s", part->type[0] ? part->type : "none");
	else if (type->arch == ARCH_INVALID)
		snprintf(buf, size, "%s", dps_role_name(type->role));
	else
		snprintf(buf, size, "%s-%s", dps_role_name(type->role), arch_name(type->arch));
	return buf;
}

static void describe_disk(struct text *t, const struct disk *disk)
{
	char name[48];

	text_add(t, "%s: ", disk->path);
	if (!disk->pttype[0])
		text_add(t, "no partition table");
	else
		text_add(t, "%s, %zu partition%s", disk->pttype, disk->n_parts,
			 disk->n_parts == 1 ? "" : "s");
	for (size_t i = 0; i < disk->n_parts; i++)
		text_add(t, "%s%s", i == 0 ? (disk->n_parts == 1 ? " of type " : " of types ") : ", ",
			 part_type_name(&disk->parts[i], name, sizeof(name)));
	if (disk->removable)
		text_add(t, " (removable)");
}

static void describe_disks(struct text *t, const struct disk_set *set)
{
	if (set->n == 0)
		text_add(t, "no disks");
	for (size_t i = 0; i < set->n; i++) {
		if (i > 0)
			text_add(t, "; ");
		describe_disk(t, &set->disks[i]);
	}
}

static int fail_v(struct planner *p, int err, bool found, const char *fmt, va_list ap)
{
	struct text t;

	text_init(&t, p->plan->error, PLAN_TEXT);
	text_vadd(&t, fmt, ap);
	if (found) {
		text_add(&t, "; found: ");
		describe_disks(&t, p->disks);
	}
	text_mark_cut(&t);
	return err;
}

static int PRINTF_LIKE(3, 4) fail(struct planner *p, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err = fail_v(p, err, false, fmt, ap);
	va_end(ap);
	return err;
}

/* Ends the message with what the disk set holds, so the user sees what was probed. */
static int PRINTF_LIKE(3, 4) fail_found(struct planner *p, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err = fail_v(p, err, true, fmt, ap);
	va_end(ap);
	return err;
}

static bool in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (streq(s, list[i]))
			return true;
	return false;
}

static enum dps_role part_role(const struct part *part)
{
	const struct dps_type *type = dps_type_from_uuid(part->type);

	return type ? type->role : DPS_UNKNOWN;
}

static bool part_is(const struct part *part, enum dps_role role, enum arch arch)
{
	const struct dps_type *type = dps_type_from_uuid(part->type);

	return type && type->role == role && (arch == ARCH_INVALID || type->arch == arch);
}

static bool disk_is_gpt(const struct disk *disk)
{
	return streq(disk->pttype, "gpt");
}

/* Bit 60 means something only for the roles the spec gives it to, and only in a GPT. */
static bool part_read_only(const struct part *part, const struct disk *disk)
{
	enum dps_role role = part_role(part);

	return disk_is_gpt(disk) && role != DPS_UNKNOWN && (part->flags & GPT_FLAG_READ_ONLY) &&
	       dps_role_honours_read_only(role);
}

/* Why the spec says not to pick part by itself, or NULL when it may be picked. */
static const char *auto_skip_reason(const struct part *part, enum dps_role role)
{
	if ((part->flags & GPT_FLAG_NO_AUTO) && dps_role_honours_no_auto(role))
		return "bit 63 (no-auto) set";
	if ((role == DPS_ROOT || role == DPS_USR) && streq(part->label, "_empty"))
		return "label '_empty' marks it unused";
	if (role == DPS_ESP && (part->flags & GPT_FLAG_NO_BLOCK_IO))
		return "bit 1 (NoBlockIO) set: the firmware must not read it";
	if (!part->partuuid[0])
		return "it has no PARTUUID";
	return NULL;
}

static void note_passed_over(struct planner *p, const struct part *part, enum dps_role role,
			     const char *why)
{
	char label[LABEL_SHOWN];

	if (part->label[0])
		note(p, "partition %u (%s, label '%s') passed over: %s", part->number,
		     dps_role_name(role), label_shown(part->label, label), why);
	else
		note(p, "partition %u (%s) passed over: %s", part->number, dps_role_name(role), why);
}

/* The newer label wins (strverscmp: "root-1.10" > "root-1.9"), then the lower number. */
static bool part_newer(const struct part *a, const struct part *b)
{
	int c = strverscmp(a->label, b->label);

	return c > 0 || (c == 0 && a->number < b->number);
}

/* A partition mount.usr= names is the /usr, never also the discovered root. */
static const char *pick_skip_reason(const struct planner *p, const struct part *part,
				    enum dps_role role)
{
	const char *why = auto_skip_reason(part, role);

	if (!why && p->usr_explicit && part == p->usr)
		why = "it is named by mount.usr=";
	return why;
}

/* The root or usr partition of arch on disk, or NULL. With noting, every partition passed
 * over gets a note saying why. */
static const struct part *pick_versioned(struct planner *p, const struct disk *disk,
					 enum dps_role role, enum arch arch, bool noting)
{
	const struct part *best = NULL;
	char label[LABEL_SHOWN];

	for (size_t i = 0; i < disk->n_parts; i++) {
		const struct part *part = &disk->parts[i];
		const char *why;

		if (!part_is(part, role, arch))
			continue;
		why = pick_skip_reason(p, part, role);
		if (why) {
			if (noting)
				note_passed_over(p, part, role, why);
			continue;
		}
		if (!best || part_newer(part, best))
			best = part;
	}
	for (size_t i = 0; best && noting && i < disk->n_parts; i++) {
		const struct part *part = &disk->parts[i];
		char why[PLAN_TEXT];

		if (part == best || !part_is(part, role, arch) || pick_skip_reason(p, part, role))
			continue;
		if (strverscmp(part->label, best->label) == 0)
			snprintf(why, sizeof(why), "partition %u has the same version and a lower number",
				 best->number);
		else
			snprintf(why, sizeof(why), "partition %u (label '%s') has a newer version",
				 best->number, label_shown(best->label, label));
		note_passed_over(p, part, role, why);
	}
	return best;
}

/* The arches to look for root (or usr) in, best first; ARCH_INVALID ends the list. */
static void arch_order(enum arch first, enum arch native, enum arch order[3])
{
	size_t n = 0;
	enum arch wanted[3] = { first, native, arch_secondary(native) };

	for (size_t i = 0; i < ARRAY_SIZE(wanted); i++) {
		bool seen = false;

		for (size_t j = 0; j < n; j++)
			seen = seen || order[j] == wanted[i];
		if (wanted[i] != ARCH_INVALID && !seen)
			order[n++] = wanted[i];
	}
	for (; n < 3; n++)
		order[n] = ARCH_INVALID;
}

static const struct part *pick_in_order(struct planner *p, const struct disk *disk,
					enum dps_role role, const enum arch order[3], bool noting,
					enum arch *found_arch)
{
	const struct part *part = NULL;

	for (size_t i = 0; i < 3 && !part && order[i] != ARCH_INVALID; i++) {
		part = pick_versioned(p, disk, role, order[i], noting);
		if (part && found_arch)
			*found_arch = order[i];
	}
	return part;
}

static bool disk_has_candidate(struct planner *p, const struct disk *disk, enum dps_role role,
			       enum arch arch)
{
	return disk_is_gpt(disk) && pick_versioned(p, disk, role, arch, false) != NULL;
}

/* "an x86-64", "a riscv64": names are read letter by letter where they start with a vowel sound. */
static const char *arch_article(enum arch arch)
{
	return strchr("aeiosx", arch_name(arch)[0]) ? "an" : "a";
}

static int resolve_spec(struct planner *p, const char *key, const char *spec,
			const struct part **part, const struct disk **disk)
{
	int r = disk_set_find(p->disks, spec, part, disk);

	if (r == -ENOTUNIQ)
		r = fail(p, -ENOTUNIQ, "%s%s matches several partitions: refusing to pick one; "
			 "name it by PARTUUID=", key, spec);
	else if (r < 0)
		r = fail_found(p, -ENOENT, "%s%s matches no partition (at boot the device may not "
			       "have appeared yet)", key, spec);
	return r;
}

static int resolve_explicit(struct planner *p)
{
	const struct options *opts = p->opts;
	int r = 0;

	if (opts->root_kind == ROOT_DEVICE) {
		if (!opts->root || !opts->root[0]) {
			r = fail(p, -EINVAL, "root= is empty: give a device, 'gpt-auto' or 'tmpfs'");
			goto out;
		}
		r = resolve_spec(p, "root=", opts->root, &p->root, &p->root_disk);
		if (r < 0)
			goto out;
		p->root_explicit = true;
	}
	if (opts->usr && opts->usr[0]) {
		r = resolve_spec(p, "mount.usr=", opts->usr, &p->usr, &p->usr_disk);
		if (r < 0)
			goto out;
		p->usr_explicit = true;
	}
	if (p->root && p->root == p->usr)
		r = fail(p, -EINVAL, "root=%s and mount.usr=%s name the same partition %u of %s",
			 opts->root, opts->usr, p->root->number, p->root_disk->path);
out:
	return r;
}

/* Whether root (or, for root=tmpfs, /usr) can only come from discovery. */
static bool discovery_needed(const struct planner *p)
{
	if (p->opts->root_kind == ROOT_TMPFS)
		return !p->usr_explicit;
	return p->opts->root_kind == ROOT_DISCOVER;
}

static enum dps_role wanted_role(const struct planner *p)
{
	return p->opts->root_kind == ROOT_TMPFS ? DPS_USR : DPS_ROOT;
}

static int choose_named_disk(struct planner *p)
{
	const char *spec = p->opts->disk;
	const struct disk *found = NULL;
	int r = 0;

	for (size_t i = 0; i < p->disks->n && !found; i++) {
		const struct disk *disk = &p->disks->disks[i];

		if (streq(disk->path, spec) || (disk->ptuuid[0] && uuid_str_equal(disk->ptuuid, spec)))
			found = disk;
	}
	if (!found) {
		r = disk_set_find(p->disks, spec, NULL, &found);
		if (r == -ENOTUNIQ) {
			r = fail(p, -ENOTUNIQ, "earlymount.disk=%s matches several partitions: name the "
				 "disk by its path or GPT UUID", spec);
			goto out;
		}
	}
	if (!found) {
		r = fail_found(p, -ENOENT, "earlymount.disk=%s names no disk (give a disk path, its GPT "
			       "UUID, or PARTUUID=/UUID= of a partition on it)", spec);
		goto out;
	}
	r = 0;
	p->disk = found;
	note(p, "disk chosen: %s, named by earlymount.disk=%s", found->path, spec);
out:
	return r;
}

/* The firmware's word on which disk it booted from beats any guess. */
static int choose_loader_disk(struct planner *p)
{
	const char *uuid = p->machine->loader_partuuid;
	int r = 0;

	for (size_t i = 0; i < p->disks->n && !p->disk; i++) {
		const struct disk *disk = &p->disks->disks[i];

		for (size_t j = 0; j < disk->n_parts && !p->disk; j++) {
			const struct part *part = &disk->parts[j];
			enum dps_role role = part_role(part);

			if ((role == DPS_ESP || role == DPS_XBOOTLDR) &&
			    uuid_str_equal(part->partuuid, uuid)) {
				p->disk = disk;
				note(p, "disk chosen: %s, whose %s partition %u the firmware booted from "
				     "(LoaderDevicePartUUID %s)", disk->path, dps_role_name(role),
				     part->number, uuid);
			}
		}
	}
	if (!p->disk)
		r = fail_found(p, -ENOENT, "no ESP or XBOOTLDR partition has PARTUUID %s, the "
			       "LoaderDevicePartUUID the firmware booted from (at boot its disk may not "
			       "have appeared yet)", uuid);
	return r;
}

static size_t count_fixed_candidates(struct planner *p, enum dps_role role, enum arch arch,
				     const struct disk **first)
{
	size_t n = 0;

	for (size_t i = 0; i < p->disks->n; i++) {
		const struct disk *disk = &p->disks->disks[i];

		if (disk->removable || !disk_has_candidate(p, disk, role, arch))
			continue;
		if (n++ == 0)
			*first = disk;
	}
	return n;
}

static int fail_ambiguous(struct planner *p, enum dps_role role, enum arch arch, size_t n)
{
	struct text t;

	text_init(&t, p->plan->error, PLAN_TEXT);
	text_add(&t, "%zu fixed disks hold %s %s %s partition:", n, arch_article(arch),
		 arch_name(arch), dps_role_name(role));
	for (size_t i = 0; i < p->disks->n; i++) {
		const struct disk *disk = &p->disks->disks[i];

		if (!disk->removable && disk_has_candidate(p, disk, role, arch))
			text_add(&t, " %s", disk->path);
	}
	text_add(&t, "; earlymount does not guess: choose one with earlymount.disk=");
	text_mark_cut(&t);
	return -ENOTUNIQ;
}

/* No fixed disk qualifies: say what stands in the way, most specific first. */
static int fail_no_candidate(struct planner *p, enum dps_role role, const enum arch order[3])
{
	const char *key = role == DPS_USR ? "mount.usr=" : "root=";
	size_t n_gpt = 0;
	int r = -ENOENT;

	for (size_t i = 0; i < p->disks->n; i++) {
		const struct disk *disk = &p->disks->disks[i];

		n_gpt += disk_is_gpt(disk);
		for (size_t a = 0; a < 3 && order[a] != ARCH_INVALID; a++) {
			if (disk->removable && disk_has_candidate(p, disk, role, order[a])) {
				r = fail(p, -EPERM, "%s holds %s %s %s partition but is removable; "
					 "earlymount never picks a removable disk by itself: name it with "
					 "earlymount.disk=%s", disk->path, arch_article(order[a]),
					 arch_name(order[a]), dps_role_name(role), disk->path);
				goto out;
			}
		}
	}
	if (p->disks->n == 0)
		r = fail(p, -ENOENT, "no disks found to look for %s %s %s partition on (at boot the "
			 "disk may not have appeared yet: check the storage drivers)",
			 arch_article(order[0]), arch_name(order[0]), dps_role_name(role));
	else if (n_gpt == 0 && p->disks->n == 1)
		r = fail(p, -EPERM, "%s has %s%s partition table, not GPT: discovery needs GPT; use "
			 "%sPARTUUID=... or %s/dev/...", p->disks->disks[0].path,
			 p->disks->disks[0].pttype[0] ? "a " : "no", p->disks->disks[0].pttype, key, key);
	else if (n_gpt == 0)
		r = fail_found(p, -EPERM, "no disk has a GPT partition table: discovery needs GPT; use "
			       "%sPARTUUID=... or %s/dev/...", key, key);
	else if (role == DPS_USR)
		r = fail_found(p, -ENOENT, "root=tmpfs needs a /usr: give mount.usr= or add a usr "
			       "partition (type %s for %s)", dps_type_uuid(DPS_USR, order[0]),
			       arch_name(order[0]));
	else
		r = fail_found(p, -ENOENT, "no root partition (type %s for %s) on any disk",
			       dps_type_uuid(DPS_ROOT, order[0]), arch_name(order[0]));
out:
	return r;
}

/* Native arch first, then the secondary; removable disks never take part. */
static int choose_disk_from_candidates(struct planner *p)
{
	enum dps_role role = wanted_role(p);
	enum arch order[3];
	int r = 0;

	arch_order(p->machine->arch, p->machine->arch, order);
	for (size_t a = 0; a < 3 && order[a] != ARCH_INVALID; a++) {
		const struct disk *first = NULL;
		size_t n = count_fixed_candidates(p, role, order[a], &first);

		if (n > 1) {
			r = fail_ambiguous(p, role, order[a], n);
			goto out;
		}
		if (n == 1) {
			p->disk = first;
			note(p, "disk chosen: %s, the only fixed disk with %s %s %s partition",
			     first->path, arch_article(order[a]), arch_name(order[a]),
			     dps_role_name(role));
			goto out;
		}
	}
	r = fail_no_candidate(p, role, order);
out:
	return r;
}

/* A disk that is not GPT can still hold an explicit root; nothing is discovered on it. */
static int check_disk_is_gpt(struct planner *p, const char *why_chosen)
{
	const struct disk *disk = p->disk;
	const char *key = wanted_role(p) == DPS_USR ? "mount.usr=" : "root=";
	int r = 0;

	if (!disk || disk_is_gpt(disk))
		goto out;
	if (discovery_needed(p)) {
		r = fail(p, -EPERM, "%s (%s) has %s%s partition table, not GPT: discovery needs GPT; "
			 "use %sPARTUUID=... or %s/dev/...", disk->path, why_chosen,
			 disk->pttype[0] ? "a " : "no", disk->pttype, key, key);
		goto out;
	}
	note(p, "nothing discovered: %s has %s%s partition table, not GPT", disk->path,
	     disk->pttype[0] ? "a " : "no", disk->pttype);
	p->disk = NULL;
out:
	return r;
}

static int choose_disk(struct planner *p)
{
	const struct options *opts = p->opts;
	const char *why = "";
	int r = 0;

	if (!opts->gpt_auto) {
		if (opts->root_kind == ROOT_DISCOVER)
			r = fail(p, -ENOENT, "root= not given and systemd.gpt_auto=0: give root= or drop "
				 "systemd.gpt_auto=0");
		else if (discovery_needed(p))
			r = fail(p, -ENOENT, "root=tmpfs needs a /usr: give mount.usr= (systemd.gpt_auto=0 "
				 "turns discovery off)");
		else
			note(p, "systemd.gpt_auto=0: no partitions discovered");
		goto out;
	}
	if (opts->disk && opts->disk[0]) {
		why = "named by earlymount.disk=";
		r = choose_named_disk(p);
	} else if (p->machine->loader_partuuid[0]) {
		why = "the disk the firmware booted from";
		r = choose_loader_disk(p);
	} else if (p->root_disk || (opts->root_kind == ROOT_TMPFS && p->usr_disk)) {
		const char *key = p->root_disk ? "root=" : "mount.usr=";

		p->disk = p->root_disk ? p->root_disk : p->usr_disk;
		why = "the disk of the partition named on the command line";
		if (disk_is_gpt(p->disk))
			note(p, "disk chosen: %s, which holds %s%s", p->disk->path, key,
			     p->root_disk ? opts->root : opts->usr);
	} else {
		r = choose_disk_from_candidates(p);
	}
	if (r < 0)
		goto out;
	r = check_disk_is_gpt(p, why);
out:
	return r;
}

/* The filesystem to mount part with: forced (rootfstype=) wins; else what was probed, if
 * the spec (discovered) or the kernel (explicit) can mount it. */
static int check_fstype(struct planner *p, const struct part *part, const char *what,
			const char *forced, const char *forced_key, bool discovered,
			const char **fstype)
{
	int r = 0;

	if (forced && forced[0]) {
		*fstype = forced;
		goto out;
	}
	*fstype = part->fstype;
	if (!part->fstype[0])
		r = fail(p, -EPERM, "%s partition %u: no filesystem recognised on it; format it, or "
			 "give %s if the probe missed it", what, part->number, forced_key);
	else if (discovered && !dps_fstype_allowed(part->fstype))
		r = fail(p, -EPERM, "%s partition %u holds %s; earlymount mounts " ALLOWED_FSTYPES
			 " (%s forces a type)", what, part->number, part->fstype, forced_key);
	else if (in_list(part->fstype, not_mountable_fstypes, ARRAY_SIZE(not_mountable_fstypes)))
		r = fail(p, -EPERM, "%s partition %u holds %s, which is no filesystem to mount; "
			 "earlymount does not unlock or assemble devices", what, part->number,
			 part->fstype);
out:
	return r;
}

/* Why part cannot be mounted whatever the rules say, as a sentence that names it and says what
 * to do; false when it can. A hostile table may claim anything, so every range is checked
 * without overflow. Overlaps count on GPT disks only: there the spec forbids them, while an
 * MBR's extended partition holds its logical ones, and libblkid lists BSD or Solaris labels
 * nested inside a partition beside it. */
static bool part_damage(const struct disk *disk, const struct part *part, char why[PLAN_TEXT])
{
	const struct part *other = NULL;
	struct text t;

	text_init(&t, why, PLAN_TEXT);
	if (part->size == 0)
		text_add(&t, "partition %u of %s is empty (0 bytes): there is nothing to mount; repair "
			 "the partition table", part->number, disk->path);
	else if (part->size > UINT64_MAX - part->start)
		text_add(&t, "partition %u of %s claims %" PRIu64 " bytes from byte %" PRIu64 ", past "
			 "the end of any disk; repair the partition table", part->number, disk->path,
			 part->size, part->start);
	else if (part->number == 0 || part->number > KERNEL_MAX_PART_NUMBER)
		text_add(&t, "partition %u of %s is numbered outside 1-%d, so the kernel makes no "
			 "device for it; move it to a lower entry of the table", part->number,
			 disk->path, KERNEL_MAX_PART_NUMBER);
	else if (disk_is_gpt(disk) && (other = disk_find_overlap(disk, part)))
		text_add(&t, "partitions %u and %u of %s overlap (bytes %" PRIu64 "-%" PRIu64 " and %"
			 PRIu64 "-%" PRIu64 "); refusing to mount either; repair the partition table",
			 part->number, other->number, disk->path, part->start, part_end(part) - 1,
			 other->start, part_end(other) - 1);
	text_mark_cut(&t);
	return t.len > 0;
}

/* A damaged partition is never mounted, and no other is picked in its place: the plan fails
 * for root, /usr and the required mounts (optional ones are left out, see
 * add_discovered_stage()). */
static int refuse_damaged(struct planner *p, const struct disk *disk, const struct part *part,
			  const char *what)
{
	char why[PLAN_TEXT];

	return part_damage(disk, part, why) ? fail(p, -EPERM, "%s: %s", what, why) : 0;
}

static int choose_root(struct planner *p)
{
	enum arch order[3];
	char label[LABEL_SHOWN];
	int r = 0;

	p->root_arch = p->machine->arch;
	if (p->opts->root_kind == ROOT_TMPFS)
		goto out;
	if (p->root_explicit) {
		const struct dps_type *type = dps_type_from_uuid(p->root->type);

		if (type && type->role == DPS_ROOT && type->arch != ARCH_INVALID)
			p->root_arch = type->arch;
		goto out;
	}
	if (!p->disk) {
		r = fail_found(p, -ENOENT, "no disk to look for a root partition on: give root=");
		goto out;
	}
	arch_order(p->machine->arch, p->machine->arch, order);
	p->root = pick_in_order(p, p->disk, DPS_ROOT, order, true, &p->root_arch);
	if (!p->root) {
		struct text t;

		text_init(&t, p->plan->error, PLAN_TEXT);
		text_add(&t, "no root partition (type %s for %s) on %s; found: ",
			 dps_type_uuid(DPS_ROOT, order[0]), arch_name(order[0]), p->disk->path);
		describe_disk(&t, p->disk);
		text_mark_cut(&t);
		r = -ENOENT;
		goto out;
	}
	p->root_disk = p->disk;
	if (p->root_arch != p->machine->arch)
		note(p, "no %s root partition on %s: using the %s one", arch_name(p->machine->arch),
		     p->disk->path, arch_name(p->root_arch));
	note(p, "root: partition %u%s%s%s on %s", p->root->number, p->root->label[0] ? " (label '" : "",
	     label_shown(p->root->label, label), p->root->label[0] ? "')" : "", p->disk->path);
out:
	return r;
}

static void note_verity(struct planner *p)
{
	for (size_t i = 0; p->disk && i < p->disk->n_parts; i++) {
		const struct part *part = &p->disk->parts[i];
		enum dps_role role = part_role(part);

		if (role == DPS_ROOT_VERITY || role == DPS_USR_VERITY || role == DPS_ROOT_VERITY_SIG ||
		    role == DPS_USR_VERITY_SIG)
			note(p, "partition %u (%s) ignored: earlymount does not set up dm-verity",
			     part->number, dps_role_name(role));
	}
}

static void choose_usr(struct planner *p)
{
	enum arch order[3];
	enum arch arch = ARCH_INVALID;
	char label[LABEL_SHOWN];

	if (p->usr_explicit || !p->disk)
		return;
	arch_order(p->root_arch, p->machine->arch, order);
	p->usr = pick_in_order(p, p->disk, DPS_USR, order, true, &arch);
	if (p->usr && p->usr == p->root) {
		note(p, "partition %u not mounted on /usr: it is the root (root=%s)", p->usr->number,
		     p->opts->root);
		p->usr = NULL;
	}
	if (!p->usr)
		return;
	p->usr_disk = p->disk;
	if (arch != p->root_arch)
		note(p, "no %s usr partition on %s: using the %s one", arch_name(p->root_arch),
		     p->disk->path, arch_name(arch));
	note(p, "usr: partition %u%s%s%s on %s", p->usr->number, p->usr->label[0] ? " (label '" : "",
	     label_shown(p->usr->label, label), p->usr->label[0] ? "')" : "", p->disk->path);
}

static bool has_option(const char *options, const char *word, size_t len)
{
	const char *s = options;

	while (*s) {
		size_t n = strcspn(s, ",");

		if (n == len && strncmp(s, word, len) == 0)
			return true;
		s += n;
		if (*s == ',')
			s++;
	}
	return false;
}

static void add_option(struct text *t, const char *word, size_t len)
{
	if (len == 0 || has_option(t->buf, word, len))
		return;
	text_add(t, "%s%.*s", t->len ? "," : "", (int)len, word);
}

/* Whether the last ro/rw word in flags is rw. */
static bool flags_want_rw(const char *flags)
{
	bool rw = false;

	while (flags && *flags) {
		size_t n = strcspn(flags, ",");

		if (n == 2 && strncmp(flags, "rw", 2) == 0)
			rw = true;
		else if (n == 2 && strncmp(flags, "ro", 2) == 0)
			rw = false;
		flags += n;
		if (*flags == ',')
			flags++;
	}
	return rw;
}

/* ro|rw, nodev, nosuid, noexec, then filesystem options, then the user's, no word twice. */
static int format_options(struct planner *p, char *out, size_t size, const struct mount_flags *f,
			  const char *target)
{
	const char *s = f->user;
	struct text t;
	int r = 0;

	text_init(&t, out, size);
	add_option(&t, f->rw ? "rw" : "ro", 2);
	if (f->nodev)
		add_option(&t, "nodev", 5);
	if (f->nosuid)
		add_option(&t, "nosuid", 6);
	if (f->noexec)
		add_option(&t, "noexec", 6);
	if (f->umask)
		add_option(&t, "umask=0077", 10);
	if (f->norecovery)
		add_option(&t, "norecovery", 10);
	while (s && *s) {
		size_t n = strcspn(s, ",");

		if (!(n == 2 && (strncmp(s, "ro", 2) == 0 || strncmp(s, "rw", 2) == 0)))
			add_option(&t, s, n);
		s += n;
		if (*s == ',')
			s++;
	}
	if (t.full)
		r = fail(p, -EINVAL, "mount options for %s are longer than %d bytes: shorten "
			 "rootflags= or mount.usrflags=", target, PLAN_OPTIONS - 1);
	return r;
}

static bool word_is_ro_rw(const char *word, size_t len)
{
	return len == 2 && (strncmp(word, "ro", 2) == 0 || strncmp(word, "rw", 2) == 0);
}

/* The last word of options with the same key (the part before '=') as word, or NULL: the
 * last one is what the filesystem would take. */
static const char *option_with_key(const char *options, const char *word, size_t len,
				   size_t *found_len)
{
	const char *eq = memchr(word, '=', len);
	size_t key = eq ? (size_t)(eq - word) : len;
	const char *found = NULL;

	for (const char *s = options; s && *s;) {
		size_t n = strcspn(s, ",");

		if (n >= key && strncmp(s, word, key) == 0 && (n == key || s[key] == '=')) {
			found = s;
			*found_len = n;
		}
		s += n + (s[n] == ',');
	}
	return found;
}

/* defaults with each word the user gave for the same key in its place, then the user's
 * other words; the user's ro/rw are left out (the caller decides those). */
static int merge_tmpfs_options(struct planner *p, const char *defaults, const char *user,
			       char *out, size_t size, const char *target)
{
	struct text t;
	int r = 0;

	text_init(&t, out, size);
	for (const char *s = defaults; *s;) {
		size_t n = strcspn(s, ","), given_len = 0;
		const char *given = word_is_ro_rw(s, n) ? NULL : option_with_key(user, s, n, &given_len);

		if (given)
			add_option(&t, given, given_len);
		else
			add_option(&t, s, n);
		s += n + (s[n] == ',');
	}
	for (const char *s = user; s && *s;) {
		size_t n = strcspn(s, ","), found_len;

		if (!word_is_ro_rw(s, n) && !option_with_key(defaults, s, n, &found_len))
			add_option(&t, s, n);
		s += n + (s[n] == ',');
	}
	if (t.full)
		r = fail(p, -EINVAL, "mount options for %s are longer than %d bytes: shorten rootflags= or earlymount.tmpfs=",
			 target, PLAN_OPTIONS - 1);
	return r;
}

static int copy_field(struct planner *p, char *dst, size_t size, const char *src, const char *what)
{
	int r = copy_str(dst, size, src ? src : "");

	if (r < 0)
		r = fail(p, -EINVAL, "%s '%.40s...' is longer than %zu bytes", what, src, size - 1);
	return r;
}

static int add_step(struct planner *p, enum plan_op op, const char *source, const char *target,
		    const char *fstype, const struct part *part, struct plan_step **out)
{
	struct plan *plan = p->plan;
	struct plan_step *step;
	int r;

	if (plan->n_steps >= PLAN_MAX_STEPS) {
		r = fail(p, -E2BIG, "the plan needs more than %d steps (at %s %s)", PLAN_MAX_STEPS,
			 plan_op_name(op), target);
		goto out;
	}
	step = &plan->steps[plan->n_steps];
	memset(step, 0, sizeof(*step));
	step->op = op;
	step->part = part;
	r = copy_field(p, step->source, sizeof(step->source), source, "source");
	if (r == 0)
		r = copy_field(p, step->target, sizeof(step->target), target, "target");
	if (r == 0)
		r = copy_field(p, step->fstype, sizeof(step->fstype), fstype, "filesystem type");
	if (r < 0)
		goto out;
	plan->n_steps++;
	*out = step;
out:
	return r;
}

static void PRINTF_LIKE(2, 3) step_reason(struct plan_step *step, const char *fmt, ...)
{
	struct text t;
	va_list ap;

	text_init(&t, step->reason, sizeof(step->reason));
	va_start(ap, fmt);
	text_vadd(&t, fmt, ap);
	va_end(ap);
	text_mark_cut(&t);
}

static int add_simple(struct planner *p, enum plan_op op, const char *source, const char *target,
		      const char *fstype, const char *options, const char *reason)
{
	struct plan_step *step = NULL;
	int r = add_step(p, op, source, target, fstype, NULL, &step);

	if (r == 0)
		r = copy_field(p, step->options, sizeof(step->options), options, "options");
	if (r == 0)
		step_reason(step, "%s", reason);
	return r;
}

static int add_mkdir(struct planner *p, const char *target, unsigned mode, const char *reason)
{
	struct plan_step *step = NULL;
	int r = add_step(p, OP_MKDIR, "", target, "", NULL, &step);

	if (r == 0) {
		step->mode = mode;
		step_reason(step, "%s", reason);
	}
	return r;
}

static bool is_journalled(const char *fstype)
{
	return in_list(fstype, journal_fstypes, ARRAY_SIZE(journal_fstypes));
}

/* The partition spec a discovered partition is mounted by; a PARTUUID seen twice is
 * ambiguous at boot. */
static int discovered_source(struct planner *p, const struct part *part, char *out, size_t size)
{
	int r;

	snprintf(out, size, "PARTUUID=%s", part->partuuid);
	r = disk_set_find(p->disks, out, NULL, NULL);
	if (r == -ENOTUNIQ)
		r = fail(p, -ENOTUNIQ, "PARTUUID %s of partition %u is on several partitions (a cloned "
			 "disk?): give each a new one, or name the root with root=/dev/...",
			 part->partuuid, part->number);
	else
		r = 0;
	return r;
}

/* Root or /usr: the part, how it is named, and the flags it is mounted with. */
static int add_part_mount(struct planner *p, const struct part *part, const char *spec,
			  const char *target, const char *fstype, struct mount_flags *flags,
			  struct plan_step **out)
{
	char source[PLAN_PATH];
	struct plan_step *step = NULL;
	int r = 0;

	if (spec)
		r = copy_field(p, source, sizeof(source), spec, "device");
	else
		r = discovered_source(p, part, source, sizeof(source));
	if (r < 0)
		goto out;
	r = add_step(p, OP_MOUNT, source, target, fstype, part, &step);
	if (r < 0)
		goto out;
	r = format_options(p, step->options, sizeof(step->options), flags, target);
	if (r == 0)
		*out = step;
out:
	return r;
}

static int add_root_mount(struct planner *p, const char *target, bool force_ro, const char *why_ro)
{
	const struct options *opts = p->opts;
	struct mount_flags flags = { 0 };
	const char *fstype = NULL;
	struct plan_step *step = NULL;
	bool read_only = part_read_only(p->root, p->root_disk);
	int r;

	r = refuse_damaged(p, p->root_disk, p->root, "root");
	if (r == 0)
		r = check_fstype(p, p->root, "root", opts->rootfstype, "rootfstype=", !p->root_explicit,
				 &fstype);
	if (r < 0)
		goto out;
	flags.rw = opts->rw == 1 && !force_ro && !read_only;
	if (opts->rw == 1 && force_ro)
		note(p, "root mounted read-only although rw was given: %s", why_ro);
	else if (opts->rw == 1 && read_only)
		note(p, "root partition %u mounted read-only although rw was given: GPT bit 60 "
		     "(read-only) set", p->root->number);
	flags.nodev = !p->root_explicit;
	/* Only bit 60 earns norecovery: a root merely mounted ro is remounted rw by the real
	 * init, and ext4/xfs refuse that remount after a mount with norecovery. */
	flags.norecovery = read_only && is_journalled(fstype);
	flags.user = opts->rootflags;
	p->root_rw = flags.rw;
	r = add_part_mount(p, p->root, p->root_explicit ? opts->root : NULL, target, fstype, &flags,
			   &step);
	if (r < 0)
		goto out;
	if (p->root_explicit)
		step_reason(step, "root=%s (partition %u of %s)", opts->root, p->root->number,
			    p->root_disk->path);
	else
		step_reason(step, "root: discovered partition %u of %s", p->root->number,
			    p->root_disk->path);
out:
	return r;
}

static void set_machine_id_path(struct planner *p, const char *root_dir)
{
	if (root_dir)
		snprintf(p->plan->machine_id_path, PLAN_PATH, "%s" MACHINE_ID_FILE, root_dir);
	else
		p->plan->machine_id_path[0] = '\0';
	p->plan->root_steps = p->plan->n_steps;
}

/* A tmpfs of the volatile modes: systemd's limits, each replaced by earlymount.tmpfs= where
 * the user gave the same key. */
static int add_volatile_tmpfs(struct planner *p, const char *target, const char *reason)
{
	char options[PLAN_OPTIONS];
	int r = merge_tmpfs_options(p, TMPFS_VOLATILE_OPTIONS, p->opts->tmpfs_flags, options,
				    sizeof(options), target);

	if (r == 0)
		r = add_simple(p, OP_TMPFS, "tmpfs", target, "tmpfs", options, reason);
	return r;
}

/* systemd.volatile=yes: a tmpfs root with /usr from the disk. Without a usr partition the
 * disk root lends its /usr: a read-only bind that outlives the root's own mount. */
static int add_volatile_yes_root(struct planner *p)
{
	int r;

	if (p->usr) {
		note(p, "systemd.volatile=yes: root partition %u not mounted: /usr comes from "
		     "partition %u", p->root->number, p->usr->number);
		r = add_volatile_tmpfs(p, ROOT_MOUNT_POINT, "systemd.volatile=yes: the root is a tmpfs");
		set_machine_id_path(p, NULL);
		goto out;
	}
	r = add_root_mount(p, VOLATILE_ROOT_DIR, true, "systemd.volatile=yes only lends its /usr");
	if (r < 0)
		goto out;
	set_machine_id_path(p, VOLATILE_ROOT_DIR);
	r = add_volatile_tmpfs(p, ROOT_MOUNT_POINT, "systemd.volatile=yes: the root is a tmpfs");
	if (r == 0)
		r = add_simple(p, OP_BIND, VOLATILE_ROOT_DIR "/usr", ROOT_MOUNT_POINT "/usr", "", "ro",
			       "systemd.volatile=yes: /usr of the disk root, read-only");
	if (r == 0)
		r = add_simple(p, OP_UMOUNT, "", VOLATILE_ROOT_DIR, "", "",
			       "the /usr bind keeps what is needed of the disk root");
out:
	return r;
}

static int add_overlay(struct planner *p)
{
	int r;

	r = add_volatile_tmpfs(p, OVERLAY_DIR, "systemd.volatile=overlay: the writable layer");
	if (r == 0)
		r = add_mkdir(p, OVERLAY_UPPER, 0755, "the overlay's upper directory");
	if (r == 0)
		r = add_mkdir(p, OVERLAY_WORK, 0755, "the overlay's work directory");
	if (r == 0)
		r = add_simple(p, OP_OVERLAY, "overlay", ROOT_MOUNT_POINT, "overlay",
			       "lowerdir=" ROOT_MOUNT_POINT ",upperdir=" OVERLAY_UPPER
			       ",workdir=" OVERLAY_WORK,
			       "systemd.volatile=overlay: a writable tmpfs layer over the read-only root");
	return r;
}

static int add_root_stage(struct planner *p)
{
	const struct options *opts = p->opts;
	int r = 0;

	if (opts->root_kind == ROOT_TMPFS) {
		char options[PLAN_OPTIONS];

		note(p, "root=tmpfs: the root is an empty tmpfs, read-write");
		r = merge_tmpfs_options(p, TMPFS_ROOT_OPTIONS, opts->rootflags, options,
					sizeof(options), ROOT_MOUNT_POINT);
		if (r == 0)
			r = add_simple(p, OP_TMPFS, "tmpfs", ROOT_MOUNT_POINT, "tmpfs", options,
				       opts->rootflags ? "root=tmpfs, with rootflags=" : "root=tmpfs");
		set_machine_id_path(p, NULL);
		goto out;
	}
	switch (opts->volatile_mode) {
	case VOLATILE_YES:
		r = add_volatile_yes_root(p);
		break;
	case VOLATILE_STATE:
		r = add_root_mount(p, ROOT_MOUNT_POINT, true, "systemd.volatile=state keeps the root "
				   "read-only");
		set_machine_id_path(p, ROOT_MOUNT_POINT);
		break;
	case VOLATILE_OVERLAY:
		r = add_root_mount(p, ROOT_MOUNT_POINT, true, "systemd.volatile=overlay lays a "
				   "tmpfs over it");
		set_machine_id_path(p, ROOT_MOUNT_POINT);
		if (r == 0)
			r = add_overlay(p);
		break;
	default:
		r = add_root_mount(p, ROOT_MOUNT_POINT, false, NULL);
		set_machine_id_path(p, ROOT_MOUNT_POINT);
		break;
	}
out:
	return r;
}

static int add_usr_stage(struct planner *p)
{
	const struct options *opts = p->opts;
	/* The root's flags are a tmpfs's under root=tmpfs: nothing for a /usr filesystem. */
	const char *flags_given = opts->usrflags ? opts->usrflags
				: opts->root_kind == ROOT_TMPFS ? NULL : opts->rootflags;
	struct mount_flags flags = { 0 };
	const char *fstype = NULL;
	struct plan_step *step = NULL;
	bool read_only;
	int r = 0;

	if (!p->usr) {
		if (opts->root_kind == ROOT_TMPFS)
			r = fail_found(p, -ENOENT, "root=tmpfs needs a /usr: give mount.usr= or add a usr "
				       "partition");
		goto out;
	}
	r = refuse_damaged(p, p->usr_disk, p->usr, "usr");
	if (r == 0)
		r = check_fstype(p, p->usr, "usr", opts->usrfstype, "mount.usrfstype=", !p->usr_explicit,
				 &fstype);
	if (r < 0)
		goto out;
	read_only = part_read_only(p->usr, p->usr_disk);
	/* Read-only /usr everywhere: only mount.usrflags=rw itself makes it writable. */
	flags.rw = flags_want_rw(opts->usrflags);
	if (flags.rw && read_only) {
		note(p, "usr partition %u mounted read-only although rw was given: GPT bit 60 "
		     "(read-only) set", p->usr->number);
		flags.rw = false;
	} else if (flags.rw && opts->root_kind != ROOT_TMPFS && opts->volatile_mode == VOLATILE_YES) {
		note(p, "/usr mounted read-only although rw was given: systemd.volatile=yes");
		flags.rw = false;
	}
	flags.nodev = !p->usr_explicit;
	flags.norecovery = read_only && is_journalled(fstype);
	flags.user = flags_given;
	r = add_part_mount(p, p->usr, p->usr_explicit ? opts->usr : NULL, ROOT_MOUNT_POINT "/usr",
			   fstype, &flags, &step);
	if (r < 0)
		goto out;
	if (p->usr_explicit)
		step_reason(step, "mount.usr=%s (partition %u of %s)", opts->usr, p->usr->number,
			    p->usr_disk->path);
	else
		step_reason(step, "usr: discovered partition %u of %s", p->usr->number,
			    p->usr_disk->path);
out:
	return r;
}

static bool part_is_explicit(const struct planner *p, const struct part *part)
{
	return (p->root_explicit && part == p->root) || (p->usr_explicit && part == p->usr);
}

/* The var PARTUUID this machine's ID asks for, as text; false without a machine ID. */
static bool expected_var_partuuid(const struct planner *p, char uuid[UUID_STR_LEN],
				  char id_text[33])
{
	const uint8_t *id = NULL;
	uint8_t bytes[16];

	if (p->opts->has_machine_id)
		id = p->opts->machine_id;
	else if (p->machine->has_machine_id && p->opts->root_kind != ROOT_TMPFS)
		id = p->machine->machine_id;
	if (!id)
		return false;
	dps_var_partuuid(id, bytes);
	uuid_format(bytes, uuid);
	for (size_t i = 0; i < 16; i++)
		snprintf(id_text + 2 * i, 3, "%02x", id[i]);
	return true;
}

/* Why the volatile mode or root=tmpfs leaves role out, or NULL. */
static const char *volatile_skip_reason(const struct planner *p, enum dps_role role)
{
	bool state_role = role == DPS_VAR || role == DPS_TMP;

	if (!state_role || p->opts->root_kind == ROOT_TMPFS)
		return NULL;
	if (p->opts->volatile_mode == VOLATILE_YES)
		return "systemd.volatile=yes throws state away";
	if (p->opts->volatile_mode == VOLATILE_STATE)
		return "systemd.volatile=state puts a tmpfs on /var";
	return NULL;
}

/* What the /var rule compares against: the PARTUUID this machine's ID asks for. */
struct var_rule {
	bool have_id;
	char expected[UUID_STR_LEN];
	char id_text[33];
};

static bool var_part_usable(struct planner *p, const struct part *part, const struct var_rule *var,
			    bool noting)
{
	bool usable = false;

	if (!var->have_id && p->opts->root_kind == ROOT_TMPFS) {
		if (noting)
			note(p, "partition %u (var) not mounted: root=tmpfs has no machine ID; give "
			     "systemd.machine_id= to use it", part->number);
	} else if (!var->have_id) {
		/* Planned again at boot, once the root's machine ID has been read. */
		p->plan->wants_machine_id = true;
		if (noting)
			note(p, "/var partition %u: the machine ID is read from %s at boot (pass "
			     "--machine-id to plan it here)", part->number, p->plan->machine_id_path);
	} else if (!uuid_str_equal(part->partuuid, var->expected)) {
		if (noting)
			note(p, "partition %u (var) not mounted: its PARTUUID %s is not this machine's "
			     "(expected %s from machine ID %s)", part->number, part->partuuid,
			     var->expected, var->id_text);
	} else {
		usable = true;
	}
	return usable;
}

/* Whether part may be mounted in role; with noting, a note says why not. */
static bool role_part_usable(struct planner *p, const struct part *part, enum dps_role role,
			     const struct var_rule *var, bool noting)
{
	const char *skip = volatile_skip_reason(p, role);
	bool usable = false;

	if (!skip)
		skip = auto_skip_reason(part, role);
	if (skip) {
		if (noting)
			note_passed_over(p, part, role, skip);
	} else if (part_is_explicit(p, part)) {
		if (noting)
			note(p, "partition %u (%s) not mounted again: it is named by %s", part->number,
			     dps_role_name(role), part == p->root ? "root=" : "mount.usr=");
	} else if (role == DPS_VAR) {
		usable = var_part_usable(p, part, var, noting);
	} else {
		usable = true;
	}
	return usable;
}

/* The partition of role to mount, or NULL; notes every one passed over. /var takes the one
 * whose PARTUUID matches the machine ID; the others take the first of their type. */
static const struct part *pick_role_part(struct planner *p, enum dps_role role)
{
	const struct part *chosen = NULL;
	struct var_rule var = { 0 };
	char why[PLAN_TEXT];

	if (role == DPS_VAR)
		var.have_id = expected_var_partuuid(p, var.expected, var.id_text);
	for (size_t i = 0; i < p->disk->n_parts; i++) {
		const struct part *part = &p->disk->parts[i];

		if (part_is(part, role, ARCH_INVALID) && role_part_usable(p, part, role, &var, true) &&
		    (!chosen || part->number < chosen->number))
			chosen = part;
	}
	for (size_t i = 0; chosen && i < p->disk->n_parts; i++) {
		const struct part *part = &p->disk->parts[i];

		if (part == chosen || !part_is(part, role, ARCH_INVALID) ||
		    !role_part_usable(p, part, role, &var, false))
			continue;
		snprintf(why, sizeof(why), "partition %u is the first %s partition", chosen->number,
			 dps_role_name(role));
		note_passed_over(p, part, role, why);
	}
	return chosen;
}

static bool role_fstype_ok(struct planner *p, const struct part *part, enum dps_role role)
{
	bool ok;

	if (role == DPS_SWAP)
		ok = streq(part->fstype, "swap");
	else
		ok = part->fstype[0] && dps_fstype_allowed(part->fstype);
	if (!ok && part->fstype[0])
		note(p, "partition %u (%s) not used: it holds %s; expected %s", part->number,
		     dps_role_name(role), part->fstype,
		     role == DPS_SWAP ? "a swap signature" : ALLOWED_FSTYPES);
	else if (!ok)
		note(p, "partition %u (%s) not used: no %s recognised on it", part->number,
		     dps_role_name(role), role == DPS_SWAP ? "swap signature" : "filesystem");
	return ok;
}

static int add_role_mount(struct planner *p, const struct role_mount *rm, const struct part *part)
{
	struct mount_flags flags = { 0 };
	char target[PLAN_PATH];
	char source[PLAN_PATH];
	struct plan_step *step = NULL;
	bool read_only = part_read_only(part, p->disk);
	const char *mount_point = rm->target;
	int r;

	if (rm->role == DPS_ESP)
		mount_point = p->xbootldr_mounted ? "/efi" : "/boot";
	r = discovered_source(p, part, source, sizeof(source));
	if (r < 0)
		goto out;
	if (rm->role == DPS_SWAP) {
		r = add_step(p, OP_SWAPON, source, "", "swap", part, &step);
		if (r == 0)
			step->optional = true;
		if (r == 0)
			step_reason(step, "swap: discovered partition %u of %s", part->number,
				    p->disk->path);
		goto out;
	}
	snprintf(target, sizeof(target), ROOT_MOUNT_POINT "%s", mount_point);
	flags.rw = rm->rw && !read_only && (!rm->rw_needs_rw || p->opts->rw == 1);
	if (rm->rw && !read_only && !flags.rw)
		note(p, "%s partition %u mounted read-only, as the boot is (ro is the default): boot "
		     "with rw to write to it", dps_role_name(rm->role), part->number);
	flags.nodev = true;
	flags.nosuid = rm->nosuid;
	flags.noexec = rm->noexec;
	flags.umask = rm->umask_if_vfat && streq(part->fstype, "vfat");
	flags.norecovery = read_only && is_journalled(part->fstype);
	r = add_step(p, OP_MOUNT, source, target, part->fstype, part, &step);
	if (r < 0)
		goto out;
	step->optional = rm->optional;
	r = format_options(p, step->options, sizeof(step->options), &flags, target);
	if (r < 0)
		goto out;
	step_reason(step, "%s: discovered partition %u of %s", dps_role_name(rm->role),
		    part->number, p->disk->path);
	p->xbootldr_mounted = p->xbootldr_mounted || rm->role == DPS_XBOOTLDR;
out:
	return r;
}

static int add_discovered_stage(struct planner *p)
{
	char why[PLAN_TEXT];
	int r = 0;

	if (!p->disk)
		goto out;
	for (size_t i = 0; i < ARRAY_SIZE(role_mounts); i++) {
		const struct role_mount *rm = &role_mounts[i];
		const struct part *part = pick_role_part(p, rm->role);

		if (!part)
			continue;
		/* An optional mount's failure would be a warning: so is its damage. */
		if (rm->optional && part_damage(p->disk, part, why)) {
			note(p, "%s partition %u not mounted: %s", dps_role_name(rm->role), part->number,
			     why);
			continue;
		}
		r = refuse_damaged(p, p->disk, part, dps_role_name(rm->role));
		if (r < 0)
			goto out;
		if (!role_fstype_ok(p, part, rm->role))
			continue;
		r = add_role_mount(p, rm, part);
		if (r < 0)
			goto out;
	}
out:
	return r;
}

/* Which parts of the skeleton the new root can take: all of it on a tmpfs, an overlay or a
 * read-write root (where the executor fills only what is missing), the tmpfs /var of a
 * volatile=state root, nothing on a read-only root. */
static unsigned skeleton_areas(const struct planner *p)
{
	const struct options *opts = p->opts;

	if (opts->root_kind == ROOT_TMPFS || opts->volatile_mode == VOLATILE_YES ||
	    opts->volatile_mode == VOLATILE_OVERLAY)
		return SKEL_ROOT | SKEL_VAR;
	if (opts->volatile_mode == VOLATILE_STATE)
		return SKEL_VAR;
	return p->root_rw ? SKEL_ROOT | SKEL_VAR : 0;
}

static int add_skeleton_stage(struct planner *p)
{
	unsigned areas = skeleton_areas(p);
	char source[PLAN_PATH];
	char target[PLAN_PATH];
	struct plan_step *step = NULL;
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(skeleton) && r == 0; i++) {
		const struct skel_entry *e = &skeleton[i];

		if (!(e->area & areas))
			continue;
		snprintf(target, sizeof(target), ROOT_MOUNT_POINT "%s", e->target);
		if (e->op == OP_POPULATE)
			snprintf(source, sizeof(source), ROOT_MOUNT_POINT "%s", e->source);
		else
			snprintf(source, sizeof(source), "%s", e->source);
		r = add_step(p, e->op, source, target, "", NULL, &step);
		if (r < 0)
			break;
		step->mode = e->mode;
		if (e->op == OP_POPULATE)
			step_reason(step, "the file-hierarchy skeleton: %s from the factory defaults in "
				    "/usr, when it is missing or empty", e->target);
		else if (e->op == OP_SKEL_LINK)
			step_reason(step, "the file-hierarchy skeleton: compatibility link, when %s is "
				    "missing and %s exists", e->target, e->source);
		else
			step_reason(step, "the file-hierarchy skeleton, when %s is missing", e->target);
	}
	return r;
}

static int add_steps(struct planner *p)
{
	const struct options *opts = p->opts;
	int r;

	if (opts->root_kind == ROOT_TMPFS && opts->volatile_mode != VOLATILE_NO)
		note(p, "systemd.volatile= ignored: root=tmpfs is volatile already");
	r = add_root_stage(p);
	if (r < 0)
		goto out;
	if (!(opts->root_kind != ROOT_TMPFS && opts->volatile_mode == VOLATILE_YES && !p->usr))
		r = add_usr_stage(p);
	if (r < 0)
		goto out;
	if (opts->root_kind != ROOT_TMPFS && opts->volatile_mode == VOLATILE_STATE)
		r = add_volatile_tmpfs(p, ROOT_MOUNT_POINT "/var", "systemd.volatile=state: /var is a tmpfs");
	if (r < 0)
		goto out;
	r = add_discovered_stage(p);
	if (r == 0)
		r = add_skeleton_stage(p);
out:
	return r;
}

static int check_input(const struct plan_input *in, struct planner *p)
{
	int r = 0;

	if (!in || !in->opts || !in->disks || !in->machine) {
		r = fail(p, -EINVAL, "plan input incomplete: options, disks and machine are all needed");
		goto out;
	}
	if (in->machine->arch <= ARCH_INVALID || in->machine->arch >= ARCH_MAX) {
		r = fail(p, -EINVAL, "machine architecture unknown: cannot tell which root partition "
			 "type to look for");
		goto out;
	}
	p->opts = in->opts;
	p->disks = in->disks;
	p->machine = in->machine;
out:
	return r;
}

int plan_build(const struct plan_input *in, struct plan *plan)
{
	struct planner p = { .plan = plan };
	int r;

	if (!plan)
		return -EINVAL;
	memset(plan, 0, sizeof(*plan));
	r = check_input(in, &p);
	if (r < 0)
		goto out;
	r = copy_field(&p, plan->init, sizeof(plan->init), p.opts->init, "init=");
	if (r == 0)
		r = resolve_explicit(&p);
	if (r == 0)
		r = choose_disk(&p);
	if (r == 0)
		r = choose_root(&p);
	if (r < 0)
		goto out;
	choose_usr(&p);
	note_verity(&p);
	r = add_steps(&p);
	if (r == 0)
		plan->disk = p.disk;
out:
	notes_finish(&p);
	return r;
}
