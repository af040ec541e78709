/* How the planner explains itself. Every choice, and every refusal, is a sentence the user
 * may read at a failed boot, written into the plan's fixed-size fields: a cut line must say
 * it was cut, text from a disk (labels) must stay printable, and too many notes must never
 * fail the boot. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plan_internal.h"
#include "utf8.h"
#include "util.h"

void plan_text_init(struct text *t, char *buf, size_t size)
{
	t->buf = buf;
	t->size = size;
	t->len = 0;
	t->full = false;
	buf[0] = '\0';
}

void plan_text_vadd(struct text *t, const char *fmt, va_list ap)
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

void PRINTF_LIKE(2, 3) plan_text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	plan_text_vadd(t, fmt, ap);
	va_end(ap);
}

/* A cut line ends in "..." and never in half a UTF-8 sequence. */
void plan_text_mark_cut(struct text *t)
{
	size_t at;

	if (!t->full || t->size < 4)
		return;
	at = t->size - 4;
	while (at > 0 && ((unsigned char)t->buf[at] & 0xc0) == 0x80)
		at--;
	memcpy(t->buf + at, "...", 4);
}

const char *plan_part_name(const struct disk *disk, const struct part *part, char *buf,
			   size_t size)
{
	if (part->devpath[0])
		snprintf(buf, size, "%s", part->devpath);
	else
		disk_part_name(disk, part, buf, size);
	return buf;
}

/* Labels come from the disk: keep them on one line, short, and text (cut between
 * characters, any byte that is not UTF-8 shown as '?'). */
const char *plan_label_shown(const char *label, char out[LABEL_SHOWN])
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

void PRINTF_LIKE(2, 3) plan_note(struct planner *p, const char *fmt, ...)
{
	struct plan *plan = p->plan;
	struct text t;
	va_list ap;

	if (plan->n_notes >= PLAN_MAX_NOTES) {
		p->notes_dropped++;
		return;
	}
	plan_text_init(&t, plan->notes[plan->n_notes], PLAN_TEXT);
	va_start(ap, fmt);
	plan_text_vadd(&t, fmt, ap);
	va_end(ap);
	plan_text_mark_cut(&t);
	plan->n_notes++;
}

/* Notes explain, they never fail a boot: the last one says how many did not fit. */
void plan_notes_finish(struct planner *p)
{
	if (p->notes_dropped == 0)
		return;
	snprintf(p->plan->notes[PLAN_MAX_NOTES - 1], PLAN_TEXT, "... and %zu more notes left out",
		 p->notes_dropped + 1);
}

#define MATCHES_NAMED 3

const char *plan_name_matches(const struct planner *p, const char *spec, char *out, size_t size)
{
	const struct part *parts[MATCHES_NAMED];
	const struct disk *disks[MATCHES_NAMED];
	size_t n = disk_set_find_all(p->disks, spec, parts, disks, MATCHES_NAMED);
	char name[PLAN_PATH];
	struct text t;

	plan_text_init(&t, out, size);
	for (size_t i = 0; i < n && i < MATCHES_NAMED; i++)
		plan_text_add(&t, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ",
			      plan_part_name(disks[i], parts[i], name, sizeof(name)));
	if (n > MATCHES_NAMED)
		plan_text_add(&t, " and %zu more", n - MATCHES_NAMED);
	plan_text_mark_cut(&t);
	return out;
}

const char *plan_article(const char *name)
{
	/* libblkid's partition tables, DPS roles and the like that are said with a vowel sound
	 * first; the other names of those lists take "a" (a dos, a gpt, a usr, a unixware) */
	static const char *const vowel_sound[] = { "aix", "atari", "esp", "sgi", "ultrix", "xbootldr" };
	bool an = false;

	for (size_t i = 0; i < ARRAY_SIZE(vowel_sound) && !an; i++)
		an = streq(name, vowel_sound[i]);
	return an ? "an" : "a";
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

/* A member of a storage stack holds what the boot assembles before it looks for the root:
 * said beside its type, since the root may be inside (and a host's plan cannot look). */
static const char *stack_member_name(const struct part *part)
{
	static const struct {
		const char *fstype, *what;
	} members[] = {
		{ "LVM2_member", "LVM physical volume" },
		{ "linux_raid_member", "md RAID member" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(members); i++)
		if (streq(part->fstype, members[i].fstype))
			return members[i].what;
	return "";
}

/* What each is, for the refusal of one named as a root or a mount, and for "found:". */
static const struct not_mountable not_mountable[] = {
	{ "crypto_LUKS", "a LUKS volume", "which is unlocked, not mounted", INSTEAD_UNLOCKED },
	{ "swap", "a swap area", "and swap is no filesystem to mount", INSTEAD_NOTHING },
	{ "swsuspend", "a swap area holding a hibernation image", "and swap is no filesystem to mount",
	  INSTEAD_NOTHING },
	{ "LVM2_member", "an LVM physical volume", "which is no filesystem to mount", INSTEAD_LV },
	{ "linux_raid_member", "a member of an md RAID array", "which is no filesystem to mount",
	  INSTEAD_ARRAY },
	{ "bcache", "a bcache device", "which earlymount does not set up", INSTEAD_NOTHING },
	{ "BitLocker", "a BitLocker volume", "which earlymount does not unlock", INSTEAD_NOTHING },
	{ "zfs_member", "a member of a ZFS pool", "which earlymount does not import", INSTEAD_NOTHING },
	{ "*_raid_member", "a member of a firmware RAID set", "which earlymount does not assemble",
	  INSTEAD_NOTHING },
};

const struct not_mountable *plan_not_mountable(const char *fstype)
{
	const struct not_mountable *kind = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(not_mountable) && !kind; i++) {
		const char *f = not_mountable[i].fstype;
		size_t n = strlen(fstype), m = strlen(f + 1);

		if (f[0] == '*' ? n > m && streq(fstype + n - m, f + 1) : streq(fstype, f))
			kind = &not_mountable[i];
	}
	return kind;
}

/* A device without a partition table, by what it holds: "a whole-device ext4 filesystem". */
static void describe_whole(struct text *t, const struct part *whole)
{
	const struct not_mountable *kind = plan_not_mountable(whole->fstype);

	if (whole->fs_ambiguous)
		plan_text_add(t, "a whole device with several filesystem signatures");
	else if (kind)
		plan_text_add(t, "a whole device that is %s (%s)", kind->what, whole->fstype);
	else if (whole->predicted)
		plan_text_add(t, "a device made at boot");
	else if (!whole->fstype[0])
		plan_text_add(t, "a whole device with no filesystem recognised");
	else
		plan_text_add(t, "a whole-device %s filesystem", whole->fstype);
	plan_text_add(t, ", no partition table");
}

void plan_describe_disk(struct text *t, const struct disk *disk)
{
	char name[48];

	plan_text_add(t, "%s: ", disk->path);
	if (!disk->pttype[0] && disk->n_parts == 1 && part_is_whole_device(disk, &disk->parts[0])) {
		describe_whole(t, &disk->parts[0]);
		goto out;
	}
	if (!disk->pttype[0])
		plan_text_add(t, "no partition table");
	else
		plan_text_add(t, "%s, %zu partition%s", disk->pttype, disk->n_parts,
			      disk->n_parts == 1 ? "" : "s");
	for (size_t i = 0; i < disk->n_parts; i++) {
		const char *member = stack_member_name(&disk->parts[i]);

		/* both members' names are said with a vowel sound first: "an LVM", "an md" */
		plan_text_add(t, "%s%s%s%s%s", i == 0 ? (disk->n_parts == 1 ? " of type " : " of types ") : ", ",
			      part_type_name(&disk->parts[i], name, sizeof(name)),
			      member[0] ? " (an " : "", member, member[0] ? ")" : "");
	}
out:
	if (disk->removable)
		plan_text_add(t, " (removable)");
}

static void describe_disks(struct text *t, const struct disk_set *set)
{
	if (set->n == 0)
		plan_text_add(t, "no disks");
	for (size_t i = 0; i < set->n; i++) {
		if (i > 0)
			plan_text_add(t, "; ");
		plan_describe_disk(t, &set->disks[i]);
	}
}

static int fail_v(struct planner *p, int err, bool found, const char *fmt, va_list ap)
{
	struct text t;

	plan_text_init(&t, p->plan->error, sizeof(p->plan->error));
	plan_text_vadd(&t, fmt, ap);
	if (found) {
		plan_text_add(&t, "; found: ");
		describe_disks(&t, p->disks);
	}
	plan_text_mark_cut(&t);
	return err;
}

int PRINTF_LIKE(3, 4) plan_fail(struct planner *p, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err = fail_v(p, err, false, fmt, ap);
	va_end(ap);
	return err;
}

/* Ends the message with what the disk set holds, so the user sees what was probed. */
int PRINTF_LIKE(3, 4) plan_fail_found(struct planner *p, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err = fail_v(p, err, true, fmt, ap);
	va_end(ap);
	return err;
}
