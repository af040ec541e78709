/* Every refusal of the planner that is about a partition or a disk, each made by a row of
 * fixtures and a command line, once as the host sees image files (vda.img, no device nodes)
 * and once as the boot sees devices (/dev/vda, /dev/vda2): each must name what it is about,
 * its device node or "partition N of DISK" ("the whole of DISK" for a device without a
 * partition table, never "partition 0"), and say what the row says it says. A row's site is
 * "FILE:FUNCTION" of the refusal in core/plan/; tests/unit/refusal-sites wants a row for each
 * function there that refuses about a partition. The rule itself (plan_refusal.h), which
 * every plan of the unit tests and the fuzzer keeps, is tested last, on the words the
 * refusals had before they named their disks. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "plan_fixtures.h"
#include "plan_checks.h"
#include "util.h"

#define T_ROOT_VERITY_SIG_X86_64 "41092b05-9fc8-4523-994f-2def0408b176"
/* fx_partuuid(0, 1) and fx_partuuid(0, 2) without dashes: data on partition 1, hashes on 2 */
#define HASH_1_2 "00000001000040008000000000000001" "00000001000040008000000000000002"
#define NO_PART UINT32_MAX

/* The variant a row runs in: the boot's device nodes, or the host's image files. */
static bool at_boot;

static size_t disk(struct fixture *f, const char *pttype)
{
	char path[32];

	snprintf(path, sizeof(path), at_boot ? "/dev/vd%c" : "vd%c.img", (char)('a' + f->set.n));
	return fx_disk(f, path, pttype, "", false);
}

static struct part *part(struct fixture *f, size_t d, unsigned number, const char *type,
			 const char *fstype)
{
	struct part *p = fx_part(f, d, number, type, NULL, "", 0, fstype);

	if (at_boot)
		snprintf(p->devpath, sizeof(p->devpath), "%.16s%u", f->set.disks[d].path, number);
	snprintf(p->fsuuid, sizeof(p->fsuuid), "f5000000-0000-4000-8000-%06zx%06x", d, number);
	return p;
}

/* A device without a partition table that holds fstype, with this filesystem UUID. */
static struct part *whole(struct fixture *f, const char *fstype, const char *fsuuid)
{
	size_t d = disk(f, "");
	struct part *p = fx_part(f, d, PART_WHOLE_DEVICE, "", "", "", 0, fstype);

	if (at_boot)
		snprintf(p->devpath, sizeof(p->devpath), "%.16s", f->set.disks[d].path);
	snprintf(p->fsuuid, sizeof(p->fsuuid), "%s", fsuuid);
	return p;
}

/* vda: a GPT disk whose root, partition 2, holds fstype. */
static struct part *root_disk(struct fixture *f, const char *fstype)
{
	return part(f, disk(f, "gpt"), 2, T_ROOT_X86_64, fstype);
}

static void root_without_fs(struct fixture *f)
{
	root_disk(f, "");
}

static void root_ambiguous(struct fixture *f)
{
	root_disk(f, "")->fs_ambiguous = true;
}

static void root_swap(struct fixture *f)
{
	root_disk(f, "swap");
}

static void root_ntfs(struct fixture *f)
{
	root_disk(f, "ntfs");
}

static void whole_pv(struct fixture *f)
{
	whole(f, "LVM2_member", "0a0a0a0a-0000-4000-8000-000000000001");
}

static void whole_md_member(struct fixture *f)
{
	whole(f, "linux_raid_member", "0a0a0a0a-0000-4000-8000-000000000001");
}

static void whole_bcache(struct fixture *f)
{
	whole(f, "bcache", "0a0a0a0a-0000-4000-8000-000000000001");
}

/* vda: an ext4 root; vdb: a whole device holding fstype. */
static void root_and_whole(struct fixture *f, const char *fstype)
{
	root_disk(f, "ext4");
	whole(f, fstype, "0a0a0a0a-0000-4000-8000-000000000001");
}

static void root_and_whole_bitlocker(struct fixture *f)
{
	root_and_whole(f, "BitLocker");
}

static void root_and_whole_swap(struct fixture *f)
{
	root_and_whole(f, "swap");
}

static void root_and_whole_ext4(struct fixture *f)
{
	root_and_whole(f, "ext4");
}

static void root_empty(struct fixture *f)
{
	root_disk(f, "ext4")->size = 0;
}

static void whole_empty(struct fixture *f)
{
	whole(f, "ext4", "0a0a0a0a-0000-4000-8000-000000000001")->size = 0;
}

static void root_past_255(struct fixture *f)
{
	part(f, disk(f, "gpt"), 300, T_ROOT_X86_64, "ext4");
}

static void root_unreadable(struct fixture *f)
{
	snprintf(root_disk(f, "ext4")->read_error, sizeof(((struct part *)0)->read_error),
		 "sector 4100");
}

static void root_overlapping(struct fixture *f)
{
	struct part *root = root_disk(f, "ext4");

	part(f, 0, 3, T_LINUX, "ext4")->start = root->start;
}

static void root_luks(struct fixture *f)
{
	root_disk(f, "crypto_LUKS");
}

static void whole_luks(struct fixture *f)
{
	whole(f, "crypto_LUKS", "0a0a0a0a-0000-4000-8000-000000000001");
}

static void root_luks_damaged(struct fixture *f)
{
	snprintf(root_disk(f, "crypto_LUKS")->luks_error, sizeof(((struct part *)0)->luks_error),
		 "the first copy: no LUKS header (magic); the second: none found");
}

/* vda: data (partition 1) and hashes (partition 2) of HASH_1_2; the data's type is given. */
static void verity_pair(struct fixture *f, const char *data_type, const char *data_fstype)
{
	size_t d = disk(f, "gpt");

	part(f, d, 1, data_type, data_fstype);
	part(f, d, 2, T_ROOT_VERITY_X86_64, "");
}

static void verity_over_luks(struct fixture *f)
{
	verity_pair(f, T_ROOT_X86_64, "crypto_LUKS");
}

/* the data partition is a usr one; a root beside it has the disk chosen */
static void verity_wrong_type(struct fixture *f)
{
	verity_pair(f, T_USR_X86_64, "ext4");
	part(f, 0, 3, T_ROOT_X86_64, "ext4");
}

static void verity_no_superblock(struct fixture *f)
{
	verity_pair(f, T_ROOT_X86_64, "ext4");
	snprintf(fx_get(f, 0, 2)->verity_sb_error, sizeof(((struct part *)0)->verity_sb_error),
		 "no verity superblock (magic)");
}

static void verity_data_twice(struct fixture *f)
{
	verity_pair(f, T_ROOT_X86_64, "ext4");
	part(f, disk(f, "gpt"), 1, T_LINUX, "ext4");
	snprintf(fx_get(f, 1, 1)->partuuid, UUID_STR_LEN, "%s", fx_get(f, 0, 1)->partuuid);
}

static void signature_unusable(struct fixture *f)
{
	struct part *sig;

	root_disk(f, "ext4");
	sig = part(f, 0, 3, T_ROOT_VERITY_SIG_X86_64, "");
	snprintf(sig->verity_sig_error, sizeof(sig->verity_sig_error), "no signature (at byte 80)");
}

static void partuuid_twice(struct fixture *f)
{
	root_disk(f, "ext4");
	part(f, disk(f, "gpt"), 5, T_LINUX, "ext4");
	snprintf(fx_get(f, 1, 5)->partuuid, UUID_STR_LEN, "%s", fx_get(f, 0, 2)->partuuid);
}

static void label_twice(struct fixture *f)
{
	snprintf(root_disk(f, "ext4")->fslabel, sizeof(((struct part *)0)->fslabel), "data");
	snprintf(part(f, disk(f, "gpt"), 4, T_LINUX, "ext4")->fslabel,
		 sizeof(((struct part *)0)->fslabel), "data");
}

static void luks_uuid_twice(struct fixture *f)
{
	root_disk(f, "ext4");
	snprintf(part(f, 0, 3, T_LINUX, "crypto_LUKS")->fsuuid, sizeof(((struct part *)0)->fsuuid),
		 "1c5e0000-0000-4000-8000-000000000001");
	snprintf(part(f, disk(f, "gpt"), 3, T_LINUX, "crypto_LUKS")->fsuuid,
		 sizeof(((struct part *)0)->fsuuid), "1c5e0000-0000-4000-8000-000000000001");
}

/* On the host: root= names a logical volume the disks hold no physical volume of, only a LUKS
 * volume nothing lists (stack_predict() added the LV as it does for LVM on LUKS). */
static void lv_in_unlisted_luks(struct fixture *f)
{
	struct part *lv;

	part(f, disk(f, "gpt"), 3, T_LINUX, "crypto_LUKS");
	lv = whole(f, "", "");
	lv->predicted = true;
	snprintf(lv->dm_name, sizeof(lv->dm_name), "vg0-root");
	snprintf(lv->dm_uuid, sizeof(lv->dm_uuid), "LVM-");
}

static void root_and_swap(struct fixture *f)
{
	root_disk(f, "ext4");
	part(f, 0, 3, T_SWAP, "swap");
}

static void btrfs_incomplete(struct fixture *f)
{
	struct part *a = root_disk(f, "btrfs");
	struct part *b = part(f, disk(f, "gpt"), 1, T_LINUX, "btrfs");

	snprintf(b->fsuuid, sizeof(b->fsuuid), "%s", a->fsuuid);
	snprintf(a->fsuuid_sub, sizeof(a->fsuuid_sub), "00000000-0000-4000-8000-00000000000a");
	snprintf(b->fsuuid_sub, sizeof(b->fsuuid_sub), "00000000-0000-4000-8000-00000000000b");
	a->fs_incomplete = true;
}

static void removable_root(struct fixture *f)
{
	root_disk(f, "ext4");
	f->set.disks[0].removable = true;
}

static void two_roots(struct fixture *f)
{
	root_disk(f, "ext4");
	part(f, disk(f, "gpt"), 2, T_ROOT_X86_64, "ext4");
}

static void no_root(struct fixture *f)
{
	part(f, disk(f, "gpt"), 1, T_LINUX, "ext4");
}

static void loader_elsewhere(struct fixture *f)
{
	root_disk(f, "ext4");
	snprintf(f->machine.loader_partuuid, sizeof(f->machine.loader_partuuid),
		 "0badc0de-0000-4000-8000-000000000001");
}

static void atari_disk(struct fixture *f)
{
	part(f, disk(f, "atari"), 1, "0x00", "ext4");
}

struct row {
	const char *site;   /* FILE:FUNCTION of the refusal in core/plan/ */
	void (*disks)(struct fixture *f);
	const char *cmdline;
	int result;
	/* what it is about: disk (its index) and partition number, PART_WHOLE_DEVICE for a
	 * device without a table, NO_PART for the disk itself */
	size_t disk;
	unsigned number;
	const char *words; /* what it says besides */
};

#define WHOLE_UUID "UUID=0a0a0a0a-0000-4000-8000-000000000001"
#define ROOT_UUID "UUID=f5000000-0000-4000-8000-000000000002"

static const struct row rows[] = {
	{ "plan_part.c:plan_check_fstype no filesystem", root_without_fs, "", -EPERM, 0, 2,
	  "root: no filesystem recognised on " },
	{ "plan_part.c:plan_check_fstype several signatures", root_ambiguous, "", -EPERM, 0, 2,
	  "carries several filesystem signatures, so none is trusted: it holds data, so do not "
	  "format it; wipe the stale ones (wipefs lists them), or give rootfstype=" },
	{ "plan_part.c:plan_check_fstype swap discovered", root_swap, "", -EPERM, 0, 2,
	  "is a swap area (swap), and swap is no filesystem to mount" },
	{ "plan_part.c:plan_check_fstype a type the spec does not mount", root_ntfs, "", -EPERM, 0,
	  2, "holds ntfs; earlymount mounts btrfs, erofs, ext4, f2fs, squashfs, vfat, xfs" },
	{ "plan_part.c:refuse_not_mountable LVM physical volume", whole_pv, "root=" WHOLE_UUID,
	  -EPERM, 0, PART_WHOLE_DEVICE, "is an LVM physical volume (LVM2_member), which is no "
	  "filesystem to mount: name the logical volume on it instead (root=/dev/mapper/VG-LV or "
	  "root=/dev/VG/LV)" },
	{ "plan_part.c:refuse_not_mountable md member", whole_md_member, "root=" WHOLE_UUID, -EPERM,
	  0, PART_WHOLE_DEVICE, "is a member of an md RAID array (linux_raid_member), which is no "
	  "filesystem to mount: name the array instead (root=/dev/md/NAME)" },
	{ "plan_part.c:refuse_not_mountable bcache", whole_bcache, "root=" WHOLE_UUID, -EPERM, 0,
	  PART_WHOLE_DEVICE, "is a bcache device (bcache), which earlymount does not set up" },
	{ "plan_part.c:refuse_not_mountable BitLocker by mount.usr=", root_and_whole_bitlocker,
	  "mount.usr=" WHOLE_UUID, -EPERM, 1, PART_WHOLE_DEVICE,
	  "is a BitLocker volume (BitLocker), which earlymount does not unlock" },
	{ "plan_part.c:refuse_not_mountable swap by systemd.mount-extra=", root_and_whole_swap,
	  "systemd.mount-extra=" WHOLE_UUID ":/data", -EPERM, 1, PART_WHOLE_DEVICE,
	  "systemd.mount-extra=" WHOLE_UUID ":/data: " },
	{ "plan_part.c:plan_part_damage empty", root_empty, "", -EPERM, 0, 2,
	  "is empty (0 bytes)" },
	{ "plan_part.c:plan_part_damage empty whole device", whole_empty, "root=" WHOLE_UUID,
	  -EPERM, 0, PART_WHOLE_DEVICE, "is empty (0 bytes)" },
	{ "plan_part.c:plan_part_damage numbered past 255", root_past_255, "", -EPERM, 0, 300,
	  "is numbered outside 1-255" },
	{ "plan_part.c:plan_part_damage read error", root_unreadable, "", -EPERM, 0, 2,
	  "cannot be read: a read error at sector 4100" },
	{ "plan_part.c:plan_part_damage overlap", root_overlapping, "", -EPERM, 0, NO_PART,
	  "partitions 2 and 3 of" },
	{ "plan_part.c:plan_check_members", btrfs_incomplete, "", -ENOENT, 0, 2,
	  "spans several devices, and only" },
	{ "plan_part.c:plan_resolve_spec several match", label_twice, "root=LABEL=data",
	  -ENOTUNIQ, 1, 4, "matches several partitions (" },
	{ "plan_luks.c:refuse_locked", root_luks, "rd.luks=no", -EPERM, 0, 2,
	  "is encrypted (LUKS) and rd.luks=no leaves it locked" },
	{ "plan_luks.c:refuse_locked whole device", whole_luks, "root=" WHOLE_UUID " rd.luks=no",
	  -EPERM, 0, PART_WHOLE_DEVICE, "is encrypted (LUKS) and rd.luks=no leaves it locked" },
	{ "plan_luks.c:add_unlock header unusable", root_luks_damaged, "", -EINVAL, 0, 2,
	  "is LUKS, but its header cannot be opened with a passphrase or key file" },
	{ "plan_luks.c:add_listed several", luks_uuid_twice,
	  "rd.luks.uuid=1c5e0000-0000-4000-8000-000000000001", -ENOTUNIQ, 1, 3,
	  "several partitions match UUID=1c5e0000-0000-4000-8000-000000000001 (" },
	{ "plan_stacks.c:refuse_unlisted", lv_in_unlisted_luks, "root=/dev/mapper/vg0-root", -EPERM, 0,
	  3, "can only lie inside the encrypted volume on " },
	{ "plan_mounts.c:unlock_source verity over LUKS", verity_over_luks,
	  "roothash=" HASH_1_2, -EINVAL, 0, 1, "dm-verity over LUKS is not supported" },
	{ "plan_pick.c:plan_resolve_explicit root and usr the same", root_and_whole_ext4,
	  "root=" WHOLE_UUID " mount.usr=" WHOLE_UUID, -EINVAL, 1, PART_WHOLE_DEVICE,
	  "name the same device (" },
	{ "plan_steps.c:plan_discovered_source a PARTUUID twice", partuuid_twice, "", -ENOTUNIQ,
	  1, 5, "is on several partitions (" },
	{ "plan_verity.c:find_by_partuuid several", verity_data_twice, "roothash=" HASH_1_2,
	  -ENOTUNIQ, 1, 1, "which several partitions carry (" },
	{ "plan_verity.c:check_role", verity_wrong_type, "roothash=" HASH_1_2, -EPERM, 0, 1,
	  ", but it is of type " T_USR_X86_64 ", not a root partition" },
	{ "plan_verity.c:plan_verity_choose data and hashes on one device", root_and_whole_ext4,
	  "root=/dev/mapper/root roothash=" HASH_1_2 " systemd.verity_root_data=" WHOLE_UUID
	  " systemd.verity_root_hash=" WHOLE_UUID, -EINVAL, 1, PART_WHOLE_DEVICE,
	  "cannot hold both the data and its hashes" },
	{ "plan_verity.c:plan_verity_choose hash superblock", verity_no_superblock,
	  "roothash=" HASH_1_2, -EINVAL, 0, 2, ", the hash partition, is unusable: no verity "
	  "superblock (magic)" },
	{ "plan_verity.c:plan_verity_from_signature", signature_unusable, "", -EPERM, 0, 3,
	  "(root-verity-sig) is unusable: no signature (at byte 80)" },
	{ "plan_policy.c:plan_policy_check_disk", root_and_swap,
	  "systemd.image_policy=swap=absent:=open", -EPERM, 0, 3,
	  "is a swap partition, and the rule 'swap=absent' wants none there" },
	{ "plan_policy.c:check_role refused by the rule", root_without_fs,
	  "systemd.image_policy=root=verity:=open rootfstype=ext4", -EPERM, 0, 2,
	  "is refused by the rule 'root=verity'" },
	{ "plan_disk.c:choose_named_disk several", label_twice, "earlymount.disk=LABEL=data",
	  -ENOTUNIQ, 0, 2, "matches several partitions (" },
	{ "plan_disk.c:fail_no_candidate removable", removable_root, "", -EPERM, 0, NO_PART,
	  "holds an x86-64 root partition but is removable" },
	{ "plan_disk.c:fail_no_candidate not GPT", atari_disk, "", -EPERM, 0, NO_PART,
	  "has an atari partition table, not GPT" },
	{ "plan_disk.c:fail_ambiguous", two_roots, "", -ENOTUNIQ, 1, NO_PART,
	  "2 fixed disks hold an x86-64 root partition" },
	{ "plan_disk.c:choose_loader_disk", loader_elsewhere, "", -ENOENT, 0, NO_PART,
	  "no ESP or XBOOTLDR partition has PARTUUID 0badc0de-0000-4000-8000-000000000001" },
	{ "plan_pick.c:plan_choose_root", no_root, "", -ENOENT, 0, NO_PART,
	  "no root partition (type " T_ROOT_X86_64 " for x86-64) on " },
	{ "plan_disk.c:check_disk_is_gpt", atari_disk,
	  "earlymount.disk=PARTUUID=00000001-0000-4000-8000-000000000001", -EPERM, 0, NO_PART,
	  "(named by earlymount.disk=) has an atari partition table, not GPT" },
};

/* What a refusal about row's partition must name, into a and b (either will do). */
static void names_of(const struct fixture *f, const struct row *row, char *a, char *b, size_t size)
{
	const struct disk *d = &f->set.disks[row->disk];

	/* the rows' paths are short: vda.img, /dev/vda */
	snprintf(a, size, "%.16s", d->path);
	snprintf(b, size, "%.16s", d->path);
	if (row->number == PART_WHOLE_DEVICE) {
		snprintf(a, size, "the whole of %.16s", d->path);
		if (at_boot)
			snprintf(b, size, "%.16s", d->path);
	} else if (row->number != NO_PART) {
		snprintf(a, size, "partition %u of %.16s", row->number, d->path);
		if (at_boot)
			snprintf(b, size, "%.16s%u", d->path, row->number);
	}
}

static void run_row(const struct row *row)
{
	struct fixture *f = fx_new();
	char a[128], b[128];
	int r;

	row->disks(f);
	assert_int_equal(cmdline_parse(row->cmdline, &f->opts, NULL, 0), 0);
	f->opts.fsck_mode = FSCK_SKIP;
	r = fx_plan(f);
	names_of(f, row, a, b, sizeof(a));
	if (r != row->result || !strstr(f->plan.error, row->words) ||
	    (!strstr(f->plan.error, a) && !strstr(f->plan.error, b))) {
		fx_dump(f);
		fail_msg("%s (%s): want %d, '%s' and '%s' or '%s'; got %d", row->site,
			 at_boot ? "boot" : "host", row->result, row->words, a, b, r);
	}
	fx_free(f);
}

static void test_row(void **state)
{
	const struct row *row = *state;

	at_boot = false;
	run_row(row);
	at_boot = true;
	run_row(row);
}

/* The rule itself: the words of refusals before they named their disks break it, the words
 * they have now keep it. */
static void test_the_rule(void **state)
{
	static const struct {
		const char *error;
		bool kept;
	} cases[] = {
		{ "root partition 1 holds swap; earlymount mounts btrfs, erofs, ext4", false },
		{ "root partition 0 holds swap, which is no filesystem to mount", false },
		{ "root partition 2: no filesystem recognised on it; format it", false },
		{ "partition 0 of vdb.img is empty (0 bytes)", false },
		{ "root: partition 2 of vda.img is a swap area (swap)", true },
		{ "root: the whole of vdb.img is a swap area (swap)", true },
		{ "root: /dev/vda2 holds ntfs", true },
		{ "partitions 2 and 3 of vda.img overlap", true },
		{ "partitions 2 and 7 of vda.img overlap", false },
		{ "the whole of vda.img is empty", false },
		{ "vda.img has a dos partition table, not GPT; found: vda.img: gpt, 2 partitions of "
		  "types root-x86-64, linux-generic", true },
		{ "root: partition 2 of vda.im...", true },
	};
	struct fixture *f;
	char why[160];

	at_boot = false;
	f = fx_new();
	part(f, disk(f, "gpt"), 2, T_ROOT_X86_64, "ext4");
	part(f, 0, 3, T_LINUX, "ext4");
	whole(f, "swap", "0a0a0a0a-0000-4000-8000-000000000001");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		if (!plan_refusal_fault(cases[i].error, &f->set, why, sizeof(why)) != cases[i].kept)
			fail_msg("'%s': want %s", cases[i].error, cases[i].kept ? "kept" : "broken");
	fx_free(f);
	(void)state;
}

int main(void)
{
	struct CMUnitTest tests[ARRAY_SIZE(rows) + 1];

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		tests[i] = (struct CMUnitTest){ rows[i].site, test_row, NULL, NULL, (void *)&rows[i] };
	tests[ARRAY_SIZE(rows)] = (struct CMUnitTest)cmocka_unit_test(test_the_rule);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
