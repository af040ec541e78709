/* The planner: every selection rule, every option rule and every refusal. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "plan_fixtures.h"

#define RO GPT_FLAG_READ_ONLY
#define NO_AUTO GPT_FLAG_NO_AUTO

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

/* The volatile tmpfs options (systemd's limits) and the skeleton's length: whole, and the
 * part of it in /var (a volatile=state root). */
#define TMPFS_OPTS "mode=0755,size=25%,nr_inodes=1m"
#define SKEL_FULL 16
#define SKEL_VAR 3

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

/* "PARTUUID=" + the UUID fx_part() gave partition n of disk d. */
static const char *pu(size_t d, unsigned n)
{
	static char buf[8][64];
	static unsigned next;
	char *out = buf[next++ % 8];
	char uuid[UUID_STR_LEN];

	snprintf(out, 64, "PARTUUID=%s", fx_partuuid(d, n, uuid));
	return out;
}

/* A GPT disk with an ESP (1, vfat) and an x86-64 root (2, ext4). */
static size_t simple_disk(struct fixture *f, const char *path, bool removable)
{
	size_t d = fx_disk(f, path, "gpt", "", removable);

	fx_part(f, d, 1, T_ESP, NULL, "esp", 0, "vfat");
	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	return d;
}

static void test_plain_root(void **state)
{
	struct fixture *f = fx_new();
	size_t d = simple_disk(f, "/disk.img", false);
	int r = fx_plan(f);

	check_ok(f, r, 2);
	check_step(f, 0, OP_MOUNT, pu(d, 2), "/sysroot", "ext4", "ro,nodev");
	check_step(f, 1, OP_MOUNT, pu(d, 1), "/sysroot/boot", "vfat", "ro,nodev,nosuid,noexec,umask=0077");
	assert_ptr_equal(f->plan.steps[0].part, fx_get(f, d, 2));
	assert_ptr_equal(f->plan.disk, &f->set.disks[d]);
	assert_int_equal(f->plan.root_steps, 1);
	assert_string_equal(f->plan.machine_id_path, "/sysroot/etc/machine-id");
	assert_false(f->plan.wants_machine_id);
	assert_string_equal(f->plan.init, "");
	check_note(f, "disk chosen: /disk.img, the only fixed disk with an x86-64 root partition");
	fx_free(f);
	(void)state;
}

/* A FAT mounted read-write is marked dirty: the ESP is writable only when the boot is rw. */
static void test_esp_writable_only_with_rw(void **state)
{
	struct fixture *f = fx_new();
	size_t d = simple_disk(f, "/disk.img", false);
	int r = fx_plan(f);

	check_ok(f, r, 2);
	check_note(f, "esp partition 1 mounted read-only, as the boot is");
	/* The system runs without its ESP; never without its root. */
	assert_false(f->plan.steps[0].optional);
	assert_true(f->plan.steps[1].optional);
	f->opts.rw = 1;
	r = fx_plan(f);
	check_ok(f, r, 2 + SKEL_FULL);
	check_step(f, 0, OP_MOUNT, pu(d, 2), "/sysroot", "ext4", "rw,nodev");
	check_step(f, 1, OP_MOUNT, pu(d, 1), "/sysroot/boot", "vfat", "rw,nodev,nosuid,noexec,umask=0077");
	fx_free(f);
	(void)state;
}

static void full_disk(struct fixture *f, size_t d)
{
	fx_part(f, d, 1, T_ESP, NULL, "esp", 0, "vfat");
	fx_part(f, d, 2, T_XBOOTLDR, NULL, "xbootldr", 0, "vfat");
	fx_part(f, d, 3, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	fx_part(f, d, 4, T_USR_X86_64, NULL, "usr", 0, "erofs");
	fx_part(f, d, 5, T_VAR, MACHINE_VAR_PARTUUID, "var", 0, "ext4");
	fx_part(f, d, 6, T_HOME, NULL, "home", 0, "btrfs");
	fx_part(f, d, 7, T_SRV, NULL, "srv", 0, "xfs");
	fx_part(f, d, 8, T_TMP, NULL, "tmp", 0, "ext4");
	fx_part(f, d, 9, T_SWAP, NULL, "swap", 0, "swap");
}

static void test_full_set(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/full.img", "gpt", "", false);
	int r;

	full_disk(f, d);
	f->machine.has_machine_id = true;
	fx_machine_id(f->machine.machine_id);
	r = fx_plan(f);
	check_ok(f, r, 9);
	check_step(f, 0, OP_MOUNT, pu(d, 3), "/sysroot", "ext4", "ro,nodev");
	check_step(f, 1, OP_MOUNT, pu(d, 4), "/sysroot/usr", "erofs", "ro,nodev");
	check_step(f, 2, OP_MOUNT, "PARTUUID=" MACHINE_VAR_PARTUUID, "/sysroot/var", "ext4", "rw,nodev");
	check_step(f, 3, OP_MOUNT, pu(d, 8), "/sysroot/var/tmp", "ext4", "rw,nodev,nosuid");
	check_step(f, 4, OP_MOUNT, pu(d, 6), "/sysroot/home", "btrfs", "rw,nodev");
	check_step(f, 5, OP_MOUNT, pu(d, 7), "/sysroot/srv", "xfs", "rw,nodev");
	check_step(f, 6, OP_MOUNT, pu(d, 2), "/sysroot/boot", "vfat", "ro,nodev,nosuid,noexec,umask=0077");
	check_step(f, 7, OP_MOUNT, pu(d, 1), "/sysroot/efi", "vfat", "ro,nodev,nosuid,noexec,umask=0077");
	check_step(f, 8, OP_SWAPON, pu(d, 9), "", "swap", "");
	assert_int_equal(f->plan.root_steps, 1);
	assert_false(f->plan.wants_machine_id);
	fx_free(f);
	(void)state;
}

static void test_versioned_labels(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/ab.img", "gpt", "", false);
	int r;

	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "root-1.9", 0, "ext4");
	fx_part(f, d, 3, T_ROOT_X86_64, NULL, "root-1.10", 0, "ext4");
	r = fx_plan(f);
	check_ok(f, r, 1);
	check_step(f, 0, OP_MOUNT, pu(d, 3), "/sysroot", "ext4", "ro,nodev");
	check_note(f, "partition 2 (root, label 'root-1.9') passed over: partition 3");
	fx_free(f);
	(void)state;
}

static void test_same_label_lowest_number(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/ab.img", "gpt", "", false);
	int r;

	fx_part(f, d, 5, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	fx_part(f, d, 3, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	r = fx_plan(f);
	check_ok(f, r, 1);
	check_step(f, 0, OP_MOUNT, pu(d, 3), "/sysroot", "ext4", "ro,nodev");
	check_note(f, "partition 5 (root, label 'root') passed over");
	fx_free(f);
	(void)state;
}

static void test_no_auto_skipped(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/d.img", "gpt", "", false);
	int r;

	fx_part(f, d, 3, T_ROOT_X86_64, NULL, "root-1.2", NO_AUTO, "ext4");
	fx_part(f, d, 4, T_ROOT_X86_64, NULL, "root-1.1", 0, "ext4");
	fx_part(f, d, 5, T_HOME, NULL, "home", NO_AUTO, "ext4");
	r = fx_plan(f);
	check_ok(f, r, 1);
	check_step(f, 0, OP_MOUNT, pu(d, 4), "/sysroot", "ext4", "ro,nodev");
	check_note(f, "partition 3 (root, label 'root-1.2') passed over: bit 63 (no-auto) set");
	check_note(f, "partition 5 (home, label 'home') passed over: bit 63 (no-auto) set");
	fx_free(f);
	(void)state;
}

/* A root named and not found: the members of storage stacks are said as such, since the root
 * may lie inside what they hold. */
static void test_not_found_names_stack_members(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/d.img", "gpt", "", false);
	int r;

	fx_part(f, d, 1, "e6d6d379-f507-44c2-a23c-238f2a3df928", NULL, "lvm", 0, "LVM2_member");
	fx_part(f, d, 2, "a19d880f-05fc-4d3b-a006-743f0f84911e", NULL, "raid", 0, "linux_raid_member");
	assert_int_equal(cmdline_parse("root=LABEL=r", &f->opts, NULL, 0), 0);
	r = fx_plan(f);
	check_error(f, r, -ENOENT,
		    "found: /d.img: gpt, 2 partitions of types e6d6d379-f507-44c2-a23c-238f2a3df928 (an "
		    "LVM physical volume), a19d880f-05fc-4d3b-a006-743f0f84911e (an md RAID member)");
	fx_free(f);
	(void)state;
}

static void test_no_auto_only_root(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/d.img", "gpt", "", false);
	int r;

	fx_part(f, d, 3, T_ROOT_X86_64, NULL, "root", NO_AUTO, "ext4");
	r = fx_plan(f);
	check_error(f, r, -ENOENT, "no root partition (type " T_ROOT_X86_64 " for x86-64) on any disk");
	check_error(f, r, -ENOENT, "found: /d.img: gpt, 1 partition of type root-x86-64");
	fx_free(f);
	(void)state;
}

static void test_empty_label_skipped(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/d.img", "gpt", "", false);
	int r;

	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "_empty", 0, "ext4");
	fx_part(f, d, 3, T_ROOT_X86_64, NULL, "root-0.1", 0, "ext4");
	r = fx_plan(f);
	check_ok(f, r, 1);
	check_step(f, 0, OP_MOUNT, pu(d, 3), "/sysroot", "ext4", "ro,nodev");
	check_note(f, "partition 2 (root, label '_empty') passed over: label '_empty' marks it unused");
	fx_free(f);
	(void)state;
}

static void test_secondary_arch(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/d.img", "gpt", "", false);
	int r;

	fx_part(f, d, 2, T_ROOT_X86, NULL, "root", 0, "ext4");
	fx_part(f, d, 3, T_USR_X86_64, NULL, "usr", 0, "erofs");
	fx_part(f, d, 4, T_USR_X86, NULL, "usr", 0, "erofs");
	r = fx_plan(f);
	check_ok(f, r, 2);
	check_step(f, 0, OP_MOUNT, pu(d, 2), "/sysroot", "ext4", "ro,nodev");
	/* /usr follows the root's arch before the native one. */
	check_step(f, 1, OP_MOUNT, pu(d, 4), "/sysroot/usr", "erofs", "ro,nodev");
	check_note(f, "the only fixed disk with an x86 root partition");
	check_note(f, "no x86-64 root partition on /d.img: using the x86 one");
	fx_free(f);
	(void)state;
}

static void test_native_beats_secondary(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/d.img", "gpt", "", false);
	int r;

	fx_part(f, d, 2, T_ROOT_X86, NULL, "root-9", 0, "ext4");
	fx_part(f, d, 3, T_ROOT_X86_64, NULL, "root-1", 0, "ext4");
	r = fx_plan(f);
	check_ok(f, r, 1);
	check_step(f, 0, OP_MOUNT, pu(d, 3), "/sysroot", "ext4", "ro,nodev");
	fx_free(f);
	(void)state;
}

static void test_arm64_machine(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/arm.img", "gpt", "", false);
	int r;

	f->machine.arch = ARCH_AARCH64;
	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	fx_part(f, d, 3, T_ROOT_ARM64, NULL, "root", 0, "ext4");
	fx_part(f, d, 4, T_USR_X86_64, NULL, "usr", 0, "erofs");
	fx_part(f, d, 5, T_USR_ARM64, NULL, "usr", 0, "erofs");
	r = fx_plan(f);
	check_ok(f, r, 2);
	check_step(f, 0, OP_MOUNT, pu(d, 3), "/sysroot", "ext4", "ro,nodev");
	check_step(f, 1, OP_MOUNT, pu(d, 5), "/sysroot/usr", "erofs", "ro,nodev");
	check_note(f, "an arm64 root partition");
	fx_free(f);
	(void)state;
}

static void test_arm64_machine_x86_disk(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/x.img", "gpt", "", false);
	int r;

	f->machine.arch = ARCH_AARCH64;
	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	r = fx_plan(f);
	check_error(f, r, -ENOENT, "no root partition (type " T_ROOT_ARM64 " for arm64) on any disk");
	fx_free(f);
	(void)state;
}

static void test_read_only_bit_beats_rw(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/d.img", "gpt", "", false);
	int r;

	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "root", RO, "ext4");
	f->opts.rw = 1;
	r = fx_plan(f);
	check_ok(f, r, 1);
	check_step(f, 0, OP_MOUNT, pu(d, 2), "/sysroot", "ext4", "ro,nodev,norecovery");
	check_note(f, "root partition 2 mounted read-only although rw was given: GPT bit 60");
	fx_free(f);
	(void)state;
}

static void test_rw(void **state)
{
	struct fixture *f = fx_new();
	size_t d = simple_disk(f, "/d.img", false);
	int r;

	f->opts.rw = 1;
	r = fx_plan(f);
	check_ok(f, r, 2 + SKEL_FULL);
	check_step(f, 0, OP_MOUNT, pu(d, 2), "/sysroot", "ext4", "rw,nodev");
	/* A read-write root gets the skeleton too; the executor fills only what is missing. */
	check_skeleton(f, 2, true);
	fx_free(f);
	(void)state;
}

static void test_norecovery_rules(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/d.img", "gpt", "", false);
	int r;

	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "root", RO, "erofs");
	fx_part(f, d, 3, T_USR_X86_64, NULL, "usr", RO, "btrfs");
	fx_part(f, d, 4, T_HOME, NULL, "home", RO, "xfs");
	fx_part(f, d, 5, T_SRV, NULL, "srv", 0, "ext4");
	fx_part(f, d, 6, T_ESP, NULL, "esp", RO, "vfat");
	r = fx_plan(f);
	check_ok(f, r, 5);
	check_step(f, 0, OP_MOUNT, pu(d, 2), "/sysroot", "erofs", "ro,nodev");
	check_step(f, 1, OP_MOUNT, pu(d, 3), "/sysroot/usr", "btrfs", "ro,nodev,norecovery");
	check_step(f, 2, OP_MOUNT, pu(d, 4), "/sysroot/home", "xfs", "ro,nodev,norecovery");
	check_step(f, 3, OP_MOUNT, pu(d, 5), "/sysroot/srv", "ext4", "rw,nodev");
	/* The ESP ignores bit 60. */
	check_step(f, 4, OP_MOUNT, pu(d, 6), "/sysroot/boot", "vfat", "ro,nodev,nosuid,noexec,umask=0077");
	fx_free(f);
	(void)state;
}

static void test_plain_ro_ext4_no_norecovery(void **state)
{
	struct fixture *f = fx_new();
	size_t d = simple_disk(f, "/d.img", false);
	int r;

	f->opts.rw = 0;
	r = fx_plan(f);
	check_ok(f, r, 2);
	check_step(f, 0, OP_MOUNT, pu(d, 2), "/sysroot", "ext4", "ro,nodev");
	fx_free(f);
	(void)state;
}

static void test_foreign_var(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/d.img", "gpt", "", false);
	int r;

	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	fx_part(f, d, 3, T_VAR, "11111111-2222-4333-8444-555555555555", "var", 0, "ext4");
	f->machine.has_machine_id = true;
	fx_machine_id(f->machine.machine_id);
	r = fx_plan(f);
	check_ok(f, r, 1);
	check_note(f, "partition 3 (var) not mounted: its PARTUUID 11111111-2222-4333-8444-555555555555 "
		      "is not this machine's (expected " MACHINE_VAR_PARTUUID " from machine ID "
		      MACHINE_ID_HEX ")");
	assert_false(f->plan.wants_machine_id);
	fx_free(f);
	(void)state;
}

static void test_var_picks_matching_of_two(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/d.img", "gpt", "", false);
	int r;

	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	fx_part(f, d, 3, T_VAR, "11111111-2222-4333-8444-555555555555", "var", 0, "ext4");
	fx_part(f, d, 4, T_VAR, "6028E3A1-54EF-41BE-90B1-C54F2E22254C", "var", 0, "ext4");
	f->machine.has_machine_id = true;
	fx_machine_id(f->machine.machine_id);
	r = fx_plan(f);
	check_ok(f, r, 2);
	check_step(f, 1, OP_MOUNT, "PARTUUID=6028E3A1-54EF-41BE-90B1-C54F2E22254C", "/sysroot/var",
		   "ext4", "rw,nodev");
	fx_free(f);
	(void)state;
}

static void test_no_machine_id_wants_it(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/full.img", "gpt", "", false);
	int r;

	full_disk(f, d);
	r = fx_plan(f);
	check_ok(f, r, 8);
	assert_true(f->plan.wants_machine_id);
	assert_int_equal(f->plan.root_steps, 1);
	check_step(f, 2, OP_MOUNT, pu(d, 8), "/sysroot/var/tmp", "ext4", "rw,nodev,nosuid");
	check_note(f, "/var partition 5: the machine ID is read from /sysroot/etc/machine-id at boot "
		      "(pass --machine-id to plan it here)");
	fx_free(f);
	(void)state;
}

static void test_machine_id_from_cmdline_wins(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/d.img", "gpt", "", false);
	int r;

	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	fx_part(f, d, 3, T_VAR, MACHINE_VAR_PARTUUID, "var", RO, "ext4");
	f->machine.has_machine_id = true;
	memset(f->machine.machine_id, 0x42, 16);
	f->opts.has_machine_id = true;
	fx_machine_id(f->opts.machine_id);
	r = fx_plan(f);
	check_ok(f, r, 2);
	check_step(f, 1, OP_MOUNT, "PARTUUID=" MACHINE_VAR_PARTUUID, "/sysroot/var", "ext4",
		   "ro,nodev,norecovery");
	fx_free(f);
	(void)state;
}

static void test_esp_no_block_io_skipped(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/d.img", "gpt", "", false);
	int r;

	fx_part(f, d, 1, T_ESP, NULL, "esp", GPT_FLAG_NO_BLOCK_IO, "vfat");
	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	fx_part(f, d, 3, T_ESP, NULL, "esp2", NO_AUTO, "vfat");
	r = fx_plan(f);
	check_ok(f, r, 2);
	/* Bit 63 means nothing for an ESP; NoBlockIO does. */
	check_step(f, 1, OP_MOUNT, pu(d, 3), "/sysroot/boot", "vfat", "ro,nodev,nosuid,noexec,umask=0077");
	check_note(f, "partition 1 (esp, label 'esp') passed over: bit 1 (NoBlockIO)");
	fx_free(f);
	(void)state;
}

static void test_first_of_type_wins(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/d.img", "gpt", "", false);
	int r;

	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	fx_part(f, d, 7, T_HOME, NULL, "home-b", 0, "ext4");
	fx_part(f, d, 6, T_HOME, NULL, "home-a", 0, "ext4");
	fx_part(f, d, 8, T_USER_HOME, NULL, "user", 0, "ext4");
	fx_part(f, d, 9, T_LINUX, NULL, "data", 0, "ext4");
	r = fx_plan(f);
	check_ok(f, r, 2);
	check_step(f, 1, OP_MOUNT, pu(d, 6), "/sysroot/home", "ext4", "rw,nodev");
	check_note(f, "partition 7 (home, label 'home-b') passed over: partition 6 is the first home");
	fx_free(f);
	(void)state;
}

static void test_home_luks_skipped(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/d.img", "gpt", "", false);
	int r;

	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	fx_part(f, d, 3, T_HOME, NULL, "home", 0, "crypto_LUKS");
	fx_part(f, d, 4, T_SWAP, NULL, "swap", 0, "");
	f->opts.luks.enabled = false;
	r = fx_plan(f);
	check_ok(f, r, 1);
	check_note(f, "partition 3 (home) not used: it is encrypted (LUKS) and rd.luks=no leaves it "
		      "locked");
	check_note(f, "partition 4 (swap) not used: no swap signature");
	fx_free(f);
	(void)state;
}

/* A disk whose root partition can be named every way. */
static size_t named_disk(struct fixture *f)
{
	size_t d = simple_disk(f, "/dev/vda", false);
	struct part *root = fx_get(f, d, 2);

	snprintf(root->devpath, sizeof(root->devpath), "/dev/vda2");
	snprintf(root->fsuuid, sizeof(root->fsuuid), "0a1b2c3d-aaaa-4bbb-8ccc-123456789abc");
	snprintf(root->fslabel, sizeof(root->fslabel), "rootfs");
	snprintf(fx_get(f, d, 1)->devpath, sizeof(root->devpath), "/dev/vda1");
	return d;
}

static void check_explicit_root(const char *spec)
{
	struct fixture *f = fx_new();
	size_t d = named_disk(f);
	int r;

	f->opts.root_kind = ROOT_DEVICE;
	f->opts.root = spec;
	r = fx_plan(f);
	check_ok(f, r, 2);
	check_step(f, 0, OP_MOUNT, spec, "/sysroot", "ext4", "ro");
	assert_ptr_equal(f->plan.steps[0].part, fx_get(f, d, 2));
	/* The other partitions still come from the root's disk. */
	check_step(f, 1, OP_MOUNT, pu(d, 1), "/sysroot/boot", "vfat", "ro,nodev,nosuid,noexec,umask=0077");
	assert_ptr_equal(f->plan.disk, &f->set.disks[d]);
	fx_free(f);
}

static void test_root_forms(void **state)
{
	char spec[64];
	char uuid[UUID_STR_LEN];

	check_explicit_root("/dev/vda2");
	check_explicit_root("UUID=0a1b2c3d-aaaa-4bbb-8ccc-123456789abc");
	check_explicit_root("UUID=0A1B2C3D-AAAA-4BBB-8CCC-123456789ABC");
	check_explicit_root("LABEL=rootfs");
	check_explicit_root("PARTLABEL=root");
	snprintf(spec, sizeof(spec), "PARTUUID=%s", fx_partuuid(0, 2, uuid));
	check_explicit_root(spec);
	for (char *c = spec; *c; c++)
		*c = (char)(*c >= 'a' && *c <= 'f' ? *c - 'a' + 'A' : *c);
	memcpy(spec, "PARTUUID=", 9);
	check_explicit_root(spec);
	(void)state;
}

static void test_root_not_found(void **state)
{
	struct fixture *f = fx_new();
	int r;

	named_disk(f);
	f->opts.root_kind = ROOT_DEVICE;
	f->opts.root = "LABEL=nope";
	r = fx_plan(f);
	check_error(f, r, -ENOENT, "root=LABEL=nope matches no partition");
	check_error(f, r, -ENOENT, "found: /dev/vda: gpt, 2 partitions of types esp, root-x86-64");
	fx_free(f);
	(void)state;
}

static void test_root_duplicate(void **state)
{
	struct fixture *f = fx_new();
	size_t a = simple_disk(f, "/a.img", false);
	size_t b = simple_disk(f, "/b.img", false);
	int r;

	snprintf(fx_get(f, a, 2)->fslabel, 256, "root");
	snprintf(fx_get(f, b, 2)->fslabel, 256, "root");
	f->opts.root_kind = ROOT_DEVICE;
	f->opts.root = "LABEL=root";
	r = fx_plan(f);
	check_error(f, r, -ENOTUNIQ, "root=LABEL=root matches several partitions");
	fx_free(f);
	(void)state;
}

static void test_root_explicit_with_rootfstype_and_flags(void **state)
{
	struct fixture *f = fx_new();
	int r;

	named_disk(f);
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

static void test_root_explicit_on_mbr(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/mbr.img", "dos", "1234abcd", false);
	int r;

	fx_part(f, d, 1, "0x83", "1234abcd-01", "", 0, "ext4");
	snprintf(fx_get(f, d, 1)->devpath, 64, "/dev/sda1");
	f->opts.root_kind = ROOT_DEVICE;
	f->opts.root = "PARTUUID=1234abcd-01";
	r = fx_plan(f);
	check_ok(f, r, 1);
	check_step(f, 0, OP_MOUNT, "PARTUUID=1234abcd-01", "/sysroot", "ext4", "ro");
	assert_null(f->plan.disk);
	check_note(f, "nothing discovered: /mbr.img has a dos partition table, not GPT");
	fx_free(f);
	(void)state;
}

static void test_root_explicit_not_mounted_twice(void **state)
{
	struct fixture *f = fx_new();
	size_t d = simple_disk(f, "/d.img", false);
	char spec[64];
	int r;

	fx_part(f, d, 3, T_HOME, NULL, "home", 0, "ext4");
	snprintf(spec, sizeof(spec), "%s", pu(d, 3));
	f->opts.root_kind = ROOT_DEVICE;
	f->opts.root = spec;
	r = fx_plan(f);
	check_ok(f, r, 2);
	check_step(f, 0, OP_MOUNT, spec, "/sysroot", "ext4", "ro");
	check_step(f, 1, OP_MOUNT, pu(d, 1), "/sysroot/boot", "vfat", "ro,nodev,nosuid,noexec,umask=0077");
	check_note(f, "partition 3 (home) not mounted again: it is named by root=");
	fx_free(f);
	(void)state;
}

static void test_root_luks_refused(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/d.img", "gpt", "", false);
	int r;

	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "root", 0, "crypto_LUKS");
	f->opts.luks.enabled = false;
	r = fx_plan(f);
	check_error(f, r, -EPERM, "root partition 2 is encrypted (LUKS) and rd.luks=no leaves it "
				  "locked");
	f->opts.luks.enabled = true;
	f->opts.rootfstype = "ext4";
	r = fx_plan(f);
	check_ok(f, r, 2);
	check_step(f, 0, OP_UNLOCK, pu(d, 2), "/dev/mapper/root", "", "");
	check_step(f, 1, OP_MOUNT, "/dev/mapper/root", "/sysroot", "ext4", "ro,nodev");
	fx_free(f);
	(void)state;
}

static void test_root_no_filesystem(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/d.img", "gpt", "", false);
	int r;

	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "root", 0, "");
	r = fx_plan(f);
	check_error(f, r, -EPERM, "root partition 2: no filesystem recognised");
	fx_free(f);
	(void)state;
}

static void test_explicit_root_luks_refused(void **state)
{
	struct fixture *f = fx_new();
	int r;

	named_disk(f);
	snprintf(fx_get(f, 0, 2)->fstype, 32, "crypto_LUKS");
	f->opts.root_kind = ROOT_DEVICE;
	f->opts.root = "/dev/vda2";
	f->opts.luks.enabled = false;
	r = fx_plan(f);
	check_error(f, r, -EPERM, "root partition 2 is encrypted (LUKS) and rd.luks=no leaves it "
				  "locked");
	snprintf(fx_get(f, 0, 2)->fstype, 32, "swap");
	r = fx_plan(f);
	check_error(f, r, -EPERM, "holds swap, which is no filesystem to mount");
	fx_free(f);
	(void)state;
}

static void test_usr_luks_refused(void **state)
{
	struct fixture *f = fx_new();
	size_t d = simple_disk(f, "/d.img", false);
	int r;

	fx_part(f, d, 3, T_USR_X86_64, NULL, "usr", 0, "crypto_LUKS");
	f->opts.luks.enabled = false;
	r = fx_plan(f);
	check_error(f, r, -EPERM, "usr partition 3 is encrypted (LUKS) and rd.luks=no");
	fx_free(f);
	(void)state;
}

static void test_root_and_usr_same_partition(void **state)
{
	struct fixture *f = fx_new();
	int r;

	named_disk(f);
	f->opts.root_kind = ROOT_DEVICE;
	f->opts.root = "/dev/vda2";
	f->opts.usr = "LABEL=rootfs";
	r = fx_plan(f);
	check_error(f, r, -EINVAL, "root=/dev/vda2 and mount.usr=LABEL=rootfs name the same partition 2");
	fx_free(f);
	(void)state;
}

static void test_root_explicit_is_discovered_usr(void **state)
{
	struct fixture *f = fx_new();
	size_t d = simple_disk(f, "/d.img", false);
	char spec[64];
	int r;

	fx_part(f, d, 3, T_USR_X86_64, NULL, "usr", 0, "ext4");
	snprintf(spec, sizeof(spec), "%s", pu(d, 3));
	f->opts.root_kind = ROOT_DEVICE;
	f->opts.root = spec;
	r = fx_plan(f);
	check_ok(f, r, 2);
	check_step(f, 0, OP_MOUNT, spec, "/sysroot", "ext4", "ro");
	check_step(f, 1, OP_MOUNT, pu(d, 1), "/sysroot/boot", "vfat", "ro,nodev,nosuid,noexec,umask=0077");
	check_note(f, "partition 3 not mounted on /usr: it is the root");
	fx_free(f);
	(void)state;
}

/* Found by fuzz_plan: the discovered root was also mounted on /usr. */
static void test_usr_explicit_is_not_discovered_root(void **state)
{
	struct fixture *f = fx_new();
	size_t d = simple_disk(f, "/d.img", false);
	char spec[64];
	int r;

	fx_part(f, d, 3, T_ROOT_X86_64, NULL, "root-0.9", 0, "ext4");
	snprintf(spec, sizeof(spec), "%s", pu(d, 2));
	f->opts.usr = spec;
	r = fx_plan(f);
	check_ok(f, r, 3);
	check_step(f, 0, OP_MOUNT, pu(d, 3), "/sysroot", "ext4", "ro,nodev");
	check_step(f, 1, OP_MOUNT, spec, "/sysroot/usr", "ext4", "ro");
	check_note(f, "partition 2 (root, label 'root') passed over: it is named by mount.usr=");
	fx_free(f);
	(void)state;
}

static void test_usr_explicit_is_only_root(void **state)
{
	struct fixture *f = fx_new();
	size_t d = simple_disk(f, "/d.img", false);
	char spec[64];
	int r;

	snprintf(spec, sizeof(spec), "%s", pu(d, 2));
	f->opts.usr = spec;
	r = fx_plan(f);
	check_error(f, r, -ENOENT, "no root partition");
	fx_free(f);
	(void)state;
}

static void test_root_tmpfs_mbr_hint(void **state)
{
	struct fixture *f = fx_new();
	int r;

	fx_disk(f, "/m.img", "", "", false);
	f->opts.root_kind = ROOT_TMPFS;
	r = fx_plan(f);
	check_error(f, r, -EPERM, "/m.img has no partition table, not GPT: discovery needs GPT; use "
				  "mount.usr=PARTUUID=");
	fx_free(f);
	(void)state;
}

static void test_usr_forms(void **state)
{
	struct fixture *f = fx_new();
	size_t d = simple_disk(f, "/dev/vda", false);
	struct part *usr = fx_part(f, d, 3, T_LINUX, NULL, "usr-data", 0, "squashfs");
	int r;

	snprintf(usr->fslabel, sizeof(usr->fslabel), "usr");
	f->opts.usr = "LABEL=usr";
	r = fx_plan(f);
	check_ok(f, r, 3);
	check_step(f, 1, OP_MOUNT, "LABEL=usr", "/sysroot/usr", "squashfs", "ro");
	f->opts.usr = "PARTLABEL=usr-data";
	f->opts.usrfstype = "erofs";
	r = fx_plan(f);
	check_ok(f, r, 3);
	check_step(f, 1, OP_MOUNT, "PARTLABEL=usr-data", "/sysroot/usr", "erofs", "ro");
	f->opts.usr = "LABEL=nothing";
	r = fx_plan(f);
	check_error(f, r, -ENOENT, "mount.usr=LABEL=nothing matches no partition");
	fx_free(f);
	(void)state;
}

static void test_usr_explicit_beats_discovered(void **state)
{
	struct fixture *f = fx_new();
	size_t d = simple_disk(f, "/dev/vda", false);
	int r;

	fx_part(f, d, 3, T_USR_X86_64, NULL, "usr-1", 0, "erofs");
	fx_part(f, d, 4, T_USR_X86_64, NULL, "usr-2", 0, "erofs");
	f->opts.usr = "PARTLABEL=usr-1";
	r = fx_plan(f);
	check_ok(f, r, 3);
	check_step(f, 1, OP_MOUNT, "PARTLABEL=usr-1", "/sysroot/usr", "erofs", "ro");
	fx_free(f);
	(void)state;
}

static void test_rootflags_join(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/d.img", "gpt", "", false);
	int r;

	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	fx_part(f, d, 3, T_USR_X86_64, NULL, "usr", 0, "ext4");
	f->opts.rootflags = "noatime,nodev,ro,data=journal";
	r = fx_plan(f);
	check_ok(f, r, 2);
	check_step(f, 0, OP_MOUNT, pu(d, 2), "/sysroot", "ext4", "ro,nodev,noatime,data=journal");
	/* mount.usrflags= defaults to rootflags=. */
	check_step(f, 1, OP_MOUNT, pu(d, 3), "/sysroot/usr", "ext4", "ro,nodev,noatime,data=journal");
	fx_free(f);
	(void)state;
}

static void test_usrflags_rw(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/d.img", "gpt", "", false);
	int r;

	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	fx_part(f, d, 3, T_USR_X86_64, NULL, "usr", 0, "ext4");
	f->opts.rootflags = "noatime";
	f->opts.usrflags = "discard,rw";
	r = fx_plan(f);
	check_ok(f, r, 2);
	check_step(f, 0, OP_MOUNT, pu(d, 2), "/sysroot", "ext4", "ro,nodev,noatime");
	check_step(f, 1, OP_MOUNT, pu(d, 3), "/sysroot/usr", "ext4", "rw,nodev,discard");
	fx_get(f, d, 3)->flags = RO;
	r = fx_plan(f);
	check_ok(f, r, 2);
	check_step(f, 1, OP_MOUNT, pu(d, 3), "/sysroot/usr", "ext4", "ro,nodev,norecovery,discard");
	check_note(f, "usr partition 3 mounted read-only although rw was given");
	fx_free(f);
	(void)state;
}

static void test_gpt_auto_off(void **state)
{
	struct fixture *f = fx_new();
	int r;

	named_disk(f);
	f->opts.gpt_auto = false;
	r = fx_plan(f);
	check_error(f, r, -ENOENT, "root= not given and systemd.gpt_auto=0");
	f->opts.root_kind = ROOT_DEVICE;
	f->opts.root = "/dev/vda2";
	r = fx_plan(f);
	check_ok(f, r, 1);
	check_step(f, 0, OP_MOUNT, "/dev/vda2", "/sysroot", "ext4", "ro");
	assert_null(f->plan.disk);
	fx_free(f);
	(void)state;
}

static void test_loader_partuuid(void **state)
{
	struct fixture *f = fx_new();
	size_t a = simple_disk(f, "/a.img", false);
	size_t b = simple_disk(f, "/b.img", true);
	char uuid[UUID_STR_LEN];
	int r;

	(void)a;
	fx_partuuid(b, 1, uuid);
	for (char *c = uuid; *c; c++)
		*c = (char)(*c >= 'a' && *c <= 'f' ? *c - 'a' + 'A' : *c);
	snprintf(f->machine.loader_partuuid, sizeof(f->machine.loader_partuuid), "%s", uuid);
	r = fx_plan(f);
	check_ok(f, r, 2);
	check_step(f, 0, OP_MOUNT, pu(b, 2), "/sysroot", "ext4", "ro,nodev");
	assert_ptr_equal(f->plan.disk, &f->set.disks[b]);
	check_note(f, "disk chosen: /b.img, whose esp partition 1 the firmware booted from");
	fx_free(f);
	(void)state;
}

static void test_loader_partuuid_no_match(void **state)
{
	struct fixture *f = fx_new();
	int r;

	simple_disk(f, "/a.img", false);
	snprintf(f->machine.loader_partuuid, sizeof(f->machine.loader_partuuid),
		 "AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE");
	r = fx_plan(f);
	check_error(f, r, -ENOENT, "no ESP or XBOOTLDR partition has PARTUUID "
				   "AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE");
	fx_free(f);
	(void)state;
}

static void test_disk_by_path(void **state)
{
	struct fixture *f = fx_new();
	size_t b;
	int r;

	simple_disk(f, "/a.img", false);
	b = simple_disk(f, "/b.img", true);
	f->opts.disk = "/b.img";
	r = fx_plan(f);
	check_ok(f, r, 2);
	check_step(f, 0, OP_MOUNT, pu(b, 2), "/sysroot", "ext4", "ro,nodev");
	check_note(f, "disk chosen: /b.img, named by earlymount.disk=/b.img");
	fx_free(f);
	(void)state;
}

static void test_disk_by_partuuid(void **state)
{
	struct fixture *f = fx_new();
	size_t b;
	char spec[64];
	int r;

	simple_disk(f, "/a.img", false);
	b = simple_disk(f, "/b.img", false);
	snprintf(spec, sizeof(spec), "%s", pu(b, 1));
	f->opts.disk = spec;
	r = fx_plan(f);
	check_ok(f, r, 2);
	check_step(f, 0, OP_MOUNT, pu(b, 2), "/sysroot", "ext4", "ro,nodev");
	fx_free(f);
	(void)state;
}

static void test_disk_by_gpt_uuid(void **state)
{
	struct fixture *f = fx_new();
	size_t a, b;
	int r;

	a = simple_disk(f, "/a.img", false);
	b = simple_disk(f, "/b.img", false);
	snprintf(f->set.disks[a].ptuuid, UUID_STR_LEN, "0000aaaa-0000-4000-8000-000000000001");
	snprintf(f->set.disks[b].ptuuid, UUID_STR_LEN, "0000bbbb-0000-4000-8000-000000000002");
	f->opts.disk = "0000BBBB-0000-4000-8000-000000000002";
	r = fx_plan(f);
	check_ok(f, r, 2);
	check_step(f, 0, OP_MOUNT, pu(b, 2), "/sysroot", "ext4", "ro,nodev");
	fx_free(f);
	(void)state;
}

static void test_disk_not_found(void **state)
{
	struct fixture *f = fx_new();
	int r;

	simple_disk(f, "/a.img", false);
	f->opts.disk = "/c.img";
	r = fx_plan(f);
	check_error(f, r, -ENOENT, "earlymount.disk=/c.img names no disk");
	check_error(f, r, -ENOENT, "found: /a.img: gpt, 2 partitions");
	fx_free(f);
	(void)state;
}

static void test_disk_named_mbr(void **state)
{
	struct fixture *f = fx_new();
	int r;

	simple_disk(f, "/a.img", false);
	fx_disk(f, "/m.img", "dos", "1234abcd", false);
	f->opts.disk = "/m.img";
	r = fx_plan(f);
	check_error(f, r, -EPERM, "/m.img (named by earlymount.disk=) has a dos partition table, not "
				  "GPT: discovery needs GPT; use root=");
	fx_free(f);
	(void)state;
}

static void test_two_fixed_disks(void **state)
{
	struct fixture *f = fx_new();
	int r;

	simple_disk(f, "/a.img", false);
	simple_disk(f, "/b.img", false);
	r = fx_plan(f);
	check_error(f, r, -ENOTUNIQ, "2 fixed disks hold an x86-64 root partition: /a.img /b.img");
	check_error(f, r, -ENOTUNIQ, "earlymount.disk=");
	fx_free(f);
	(void)state;
}

static void test_removable_only(void **state)
{
	struct fixture *f = fx_new();
	int r;

	simple_disk(f, "/usb.img", true);
	r = fx_plan(f);
	check_error(f, r, -EPERM, "/usb.img holds an x86-64 root partition but is removable; earlymount "
				  "never picks a removable disk by itself: name it with "
				  "earlymount.disk=/usb.img");
	fx_free(f);
	(void)state;
}

static void test_removable_and_fixed(void **state)
{
	struct fixture *f = fx_new();
	size_t fixed;
	int r;

	simple_disk(f, "/usb.img", true);
	fixed = simple_disk(f, "/fixed.img", false);
	r = fx_plan(f);
	check_ok(f, r, 2);
	check_step(f, 0, OP_MOUNT, pu(fixed, 2), "/sysroot", "ext4", "ro,nodev");
	fx_free(f);
	(void)state;
}

static void test_mbr_only(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/x.img", "dos", "1234abcd", false);
	int r;

	fx_part(f, d, 1, "0x83", "1234abcd-01", "", 0, "ext4");
	r = fx_plan(f);
	check_error(f, r, -EPERM, "/x.img has a dos partition table, not GPT: discovery needs GPT; "
				  "use root=");
	fx_free(f);
	(void)state;
}

static void test_no_disks(void **state)
{
	struct fixture *f = fx_new();
	int r = fx_plan(f);

	check_error(f, r, -ENOENT, "no disks found");
	fx_free(f);
	(void)state;
}

static void test_gpt_without_root(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/x.img", "gpt", "", false);
	int r;

	fx_part(f, d, 1, T_ESP, NULL, "esp", 0, "vfat");
	fx_part(f, d, 2, T_LINUX, NULL, "data", 0, "ext4");
	fx_disk(f, "/y.img", "dos", "1234abcd", false);
	r = fx_plan(f);
	check_error(f, r, -ENOENT, "no root partition (type " T_ROOT_X86_64 " for x86-64) on any disk; "
				   "found: /x.img: gpt, 2 partitions of types esp, linux-generic; /y.img: "
				   "dos, 0 partitions");
	fx_free(f);
	(void)state;
}

static void test_cloned_partuuid(void **state)
{
	struct fixture *f = fx_new();
	size_t a = simple_disk(f, "/a.img", false);
	size_t b = fx_disk(f, "/b.img", "gpt", "", true);
	char uuid[UUID_STR_LEN];
	int r;

	fx_part(f, b, 2, T_ROOT_X86_64, fx_partuuid(a, 2, uuid), "root", 0, "ext4");
	r = fx_plan(f);
	check_error(f, r, -ENOTUNIQ, "is on several partitions");
	fx_free(f);
	(void)state;
}

static void test_verity_noted(void **state)
{
	struct fixture *f = fx_new();
	size_t d = simple_disk(f, "/d.img", false);
	int r;

	fx_part(f, d, 3, T_ROOT_VERITY_X86_64, NULL, "root-verity", 0, "");
	r = fx_plan(f);
	check_ok(f, r, 2);
	check_note(f, "partition 3 (root-verity) not used: no roothash=");
	fx_free(f);
	(void)state;
}

static size_t volatile_disk(struct fixture *f, bool with_usr)
{
	size_t d = fx_disk(f, "/v.img", "gpt", "", false);

	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	if (with_usr)
		fx_part(f, d, 3, T_USR_X86_64, NULL, "usr", 0, "erofs");
	fx_part(f, d, 4, T_VAR, MACHINE_VAR_PARTUUID, "var", 0, "ext4");
	fx_part(f, d, 5, T_TMP, NULL, "tmp", 0, "ext4");
	fx_part(f, d, 6, T_HOME, NULL, "home", 0, "ext4");
	f->machine.has_machine_id = true;
	fx_machine_id(f->machine.machine_id);
	return d;
}

static void test_volatile_yes_with_usr(void **state)
{
	struct fixture *f = fx_new();
	size_t d = volatile_disk(f, true);
	int r;

	f->opts.volatile_mode = VOLATILE_YES;
	f->opts.usrflags = "rw";
	r = fx_plan(f);
	check_ok(f, r, 3 + SKEL_FULL);
	check_step(f, 0, OP_TMPFS, "tmpfs", "/sysroot", "tmpfs", TMPFS_OPTS);
	check_step(f, 1, OP_MOUNT, pu(d, 3), "/sysroot/usr", "erofs", "ro,nodev");
	check_step(f, 2, OP_MOUNT, pu(d, 6), "/sysroot/home", "ext4", "rw,nodev");
	check_skeleton(f, 3, true);
	check_note(f, "partition 4 (var, label 'var') passed over: systemd.volatile=yes throws "
		      "state away");
	check_note(f, "partition 5 (tmp, label 'tmp') passed over: systemd.volatile=yes");
	check_note(f, "/usr mounted read-only although rw was given");
	assert_false(f->plan.wants_machine_id);
	fx_free(f);
	(void)state;
}

static void test_volatile_yes_without_usr(void **state)
{
	struct fixture *f = fx_new();
	size_t d = volatile_disk(f, false);
	int r;

	f->opts.volatile_mode = VOLATILE_YES;
	r = fx_plan(f);
	check_ok(f, r, 5 + SKEL_FULL);
	check_step(f, 0, OP_MOUNT, pu(d, 2), "/run/earlymount/root", "ext4", "ro,nodev");
	check_step(f, 1, OP_TMPFS, "tmpfs", "/sysroot", "tmpfs", TMPFS_OPTS);
	check_step(f, 2, OP_BIND, "/run/earlymount/root/usr", "/sysroot/usr", "", "ro");
	check_step(f, 3, OP_UMOUNT, "", "/run/earlymount/root", "", "");
	check_step(f, 4, OP_MOUNT, pu(d, 6), "/sysroot/home", "ext4", "rw,nodev");
	check_skeleton(f, 5, true);
	assert_int_equal(f->plan.root_steps, 1);
	assert_string_equal(f->plan.machine_id_path, "/run/earlymount/root/etc/machine-id");
	fx_free(f);
	(void)state;
}

static void test_volatile_state(void **state)
{
	struct fixture *f = fx_new();
	size_t d = volatile_disk(f, true);
	int r;

	f->opts.volatile_mode = VOLATILE_STATE;
	f->opts.rw = 1;
	r = fx_plan(f);
	check_ok(f, r, 4 + SKEL_VAR);
	check_step(f, 0, OP_MOUNT, pu(d, 2), "/sysroot", "ext4", "ro,nodev");
	check_step(f, 1, OP_MOUNT, pu(d, 3), "/sysroot/usr", "erofs", "ro,nodev");
	check_step(f, 2, OP_TMPFS, "tmpfs", "/sysroot/var", "tmpfs", TMPFS_OPTS);
	check_step(f, 3, OP_MOUNT, pu(d, 6), "/sysroot/home", "ext4", "rw,nodev");
	check_skeleton(f, 4, false);
	check_note(f, "root mounted read-only although rw was given: systemd.volatile=state");
	check_note(f, "partition 4 (var, label 'var') passed over: systemd.volatile=state");
	fx_free(f);
	(void)state;
}

static void test_volatile_tmpfs_flags_replace_the_limits(void **state)
{
	struct fixture *f = fx_new();
	size_t d = volatile_disk(f, true);
	int r;

	f->opts.volatile_mode = VOLATILE_STATE;
	f->opts.tmpfs_flags = "size=10%,noexec";
	r = fx_plan(f);
	check_ok(f, r, 4 + SKEL_VAR);
	check_step(f, 2, OP_TMPFS, "tmpfs", "/sysroot/var", "tmpfs",
		   "mode=0755,size=10%,nr_inodes=1m,noexec");
	(void)d;
	fx_free(f);
	(void)state;
}

static void test_volatile_state_without_usr(void **state)
{
	struct fixture *f = fx_new();
	size_t d = volatile_disk(f, false);
	int r;

	f->opts.volatile_mode = VOLATILE_STATE;
	r = fx_plan(f);
	check_ok(f, r, 3 + SKEL_VAR);
	check_step(f, 0, OP_MOUNT, pu(d, 2), "/sysroot", "ext4", "ro,nodev");
	check_step(f, 1, OP_TMPFS, "tmpfs", "/sysroot/var", "tmpfs", TMPFS_OPTS);
	check_step(f, 2, OP_MOUNT, pu(d, 6), "/sysroot/home", "ext4", "rw,nodev");
	fx_free(f);
	(void)state;
}

static void test_volatile_overlay_with_usr(void **state)
{
	struct fixture *f = fx_new();
	size_t d = volatile_disk(f, true);
	int r;

	f->opts.volatile_mode = VOLATILE_OVERLAY;
	r = fx_plan(f);
	check_ok(f, r, 9 + SKEL_FULL);
	check_step(f, 0, OP_MOUNT, pu(d, 2), "/sysroot", "ext4", "ro,nodev");
	check_step(f, 1, OP_TMPFS, "tmpfs", "/run/earlymount/overlay", "tmpfs", TMPFS_OPTS);
	check_step(f, 2, OP_MKDIR, "", "/run/earlymount/overlay/upper", "", "");
	check_step(f, 3, OP_MKDIR, "", "/run/earlymount/overlay/work", "", "");
	assert_int_equal(f->plan.steps[2].mode, 0755);
	assert_int_equal(f->plan.steps[3].mode, 0755);
	check_step(f, 4, OP_OVERLAY, "overlay", "/sysroot", "overlay",
		   "lowerdir=/sysroot,upperdir=/run/earlymount/overlay/upper,"
		   "workdir=/run/earlymount/overlay/work");
	/* systemd #35083: /usr goes on top of the overlay, so it stays visible and read-only. */
	check_step(f, 5, OP_MOUNT, pu(d, 3), "/sysroot/usr", "erofs", "ro,nodev");
	check_step(f, 6, OP_MOUNT, "PARTUUID=" MACHINE_VAR_PARTUUID, "/sysroot/var", "ext4", "rw,nodev");
	check_step(f, 7, OP_MOUNT, pu(d, 5), "/sysroot/var/tmp", "ext4", "rw,nodev,nosuid");
	check_step(f, 8, OP_MOUNT, pu(d, 6), "/sysroot/home", "ext4", "rw,nodev");
	check_skeleton(f, 9, true);
	assert_int_equal(f->plan.root_steps, 1);
	assert_string_equal(f->plan.machine_id_path, "/sysroot/etc/machine-id");
	fx_free(f);
	(void)state;
}

static void test_volatile_overlay_without_usr(void **state)
{
	struct fixture *f = fx_new();
	size_t d = volatile_disk(f, false);
	int r;

	f->opts.volatile_mode = VOLATILE_OVERLAY;
	r = fx_plan(f);
	check_ok(f, r, 8 + SKEL_FULL);
	check_step(f, 4, OP_OVERLAY, "overlay", "/sysroot", "overlay",
		   "lowerdir=/sysroot,upperdir=/run/earlymount/overlay/upper,"
		   "workdir=/run/earlymount/overlay/work");
	check_step(f, 5, OP_MOUNT, "PARTUUID=" MACHINE_VAR_PARTUUID, "/sysroot/var", "ext4", "rw,nodev");
	(void)d;
	fx_free(f);
	(void)state;
}

static void test_root_tmpfs_with_usr_partition(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/u.img", "gpt", "", false);
	int r;

	fx_part(f, d, 3, T_USR_X86_64, NULL, "usr", 0, "erofs");
	fx_part(f, d, 4, T_VAR, MACHINE_VAR_PARTUUID, "var", 0, "ext4");
	fx_part(f, d, 5, T_HOME, NULL, "home", 0, "ext4");
	f->opts.root_kind = ROOT_TMPFS;
	f->opts.volatile_mode = VOLATILE_OVERLAY;
	f->machine.has_machine_id = true;
	fx_machine_id(f->machine.machine_id);
	r = fx_plan(f);
	check_ok(f, r, 3 + SKEL_FULL);
	check_step(f, 0, OP_TMPFS, "tmpfs", "/sysroot", "tmpfs", "rw," TMPFS_OPTS);
	check_step(f, 1, OP_MOUNT, pu(d, 3), "/sysroot/usr", "erofs", "ro,nodev");
	/* The machine's own ID comes from a root that is not there: only the command line counts. */
	check_step(f, 2, OP_MOUNT, pu(d, 5), "/sysroot/home", "ext4", "rw,nodev");
	check_note(f, "systemd.volatile= ignored: root=tmpfs is volatile already");
	check_note(f, "the only fixed disk with an x86-64 usr partition");
	check_note(f, "partition 4 (var) not mounted: root=tmpfs has no machine ID");
	assert_false(f->plan.wants_machine_id);

	f->opts.has_machine_id = true;
	fx_machine_id(f->opts.machine_id);
	r = fx_plan(f);
	check_ok(f, r, 4 + SKEL_FULL);
	check_step(f, 2, OP_MOUNT, "PARTUUID=" MACHINE_VAR_PARTUUID, "/sysroot/var", "ext4", "rw,nodev");
	check_skeleton(f, 4, true);
	fx_free(f);
	(void)state;
}

static void test_root_tmpfs_with_mount_usr(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);
	struct part *p = fx_part(f, d, 1, T_LINUX, NULL, "usr", 0, "ext4");
	int r;

	snprintf(p->devpath, sizeof(p->devpath), "/dev/vda1");
	f->opts.root_kind = ROOT_TMPFS;
	f->opts.usr = "/dev/vda1";
	r = fx_plan(f);
	check_ok(f, r, 2 + SKEL_FULL);
	check_step(f, 0, OP_TMPFS, "tmpfs", "/sysroot", "tmpfs", "rw," TMPFS_OPTS);
	check_step(f, 1, OP_MOUNT, "/dev/vda1", "/sysroot/usr", "ext4", "ro");
	check_skeleton(f, 2, true);
	fx_free(f);
	(void)state;
}

/* rootflags= tunes the tmpfs root word by word and says nothing about /usr. */
static void test_root_tmpfs_rootflags(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);
	struct part *p = fx_part(f, d, 1, T_LINUX, NULL, "usr", 0, "ext4");
	int r;

	snprintf(p->devpath, sizeof(p->devpath), "/dev/vda1");
	f->opts.root_kind = ROOT_TMPFS;
	f->opts.usr = "/dev/vda1";
	f->opts.rootflags = "ro,size=20%,size=50%,noatime,mode=0700";
	r = fx_plan(f);
	check_ok(f, r, 2 + SKEL_FULL);
	check_step(f, 0, OP_TMPFS, "tmpfs", "/sysroot", "tmpfs",
		   "rw,mode=0700,size=50%,nr_inodes=1m,noatime");
	check_step(f, 1, OP_MOUNT, "/dev/vda1", "/sysroot/usr", "ext4", "ro");

	f->opts.usrflags = "rw,noatime";
	r = fx_plan(f);
	check_ok(f, r, 2 + SKEL_FULL);
	check_step(f, 1, OP_MOUNT, "/dev/vda1", "/sysroot/usr", "ext4", "rw,noatime");
	fx_free(f);
	(void)state;
}

/* Read-only /usr everywhere: rw for the root, even in rootflags=, leaves /usr alone. */
static void test_usr_ro_unless_usrflags_rw(void **state)
{
	struct fixture *f = fx_new();
	size_t d = volatile_disk(f, true);
	int r;

	f->opts.rw = 1;
	f->opts.rootflags = "rw";
	r = fx_plan(f);
	assert_int_equal(r, 0);
	check_step(f, 0, OP_MOUNT, pu(d, 2), "/sysroot", "ext4", "rw,nodev");
	check_step(f, 1, OP_MOUNT, pu(d, 3), "/sysroot/usr", "erofs", "ro,nodev");
	f->opts.usrflags = "rw";
	r = fx_plan(f);
	assert_int_equal(r, 0);
	check_step(f, 1, OP_MOUNT, pu(d, 3), "/sysroot/usr", "erofs", "rw,nodev");
	fx_free(f);
	(void)state;
}

static void test_root_tmpfs_without_usr(void **state)
{
	struct fixture *f = fx_new();
	int r;

	simple_disk(f, "/d.img", false);
	f->opts.root_kind = ROOT_TMPFS;
	r = fx_plan(f);
	check_error(f, r, -ENOENT, "root=tmpfs needs a /usr: give mount.usr= or add a usr partition");
	f->opts.gpt_auto = false;
	r = fx_plan(f);
	check_error(f, r, -ENOENT, "root=tmpfs needs a /usr: give mount.usr=");
	fx_free(f);
	(void)state;
}

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
	check_step(f, 1, OP_MOUNT, pu(d, 2), "/sysroot/home", "ext4", "rw,nodev");
	assert_int_equal(f->plan.n_notes, PLAN_MAX_NOTES);
	assert_non_null(strstr(f->plan.notes[PLAN_MAX_NOTES - 1], "more notes left out"));
	fx_free(f);
	(void)state;
}

static void test_long_values(void **state)
{
	struct fixture *f = fx_new();
	static char flags[3000];
	static char init[400];
	int r;

	simple_disk(f, "/d.img", false);
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

static void test_label_with_control_characters(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/d.img", "gpt", "", false);
	int r;

	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "root\nevil", NO_AUTO, "ext4");
	fx_part(f, d, 3, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	r = fx_plan(f);
	check_ok(f, r, 1);
	check_note(f, "label 'root?evil'");
	for (size_t i = 0; i < f->plan.n_notes; i++)
		assert_null(strchr(f->plan.notes[i], '\n'));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_root),
		cmocka_unit_test(test_esp_writable_only_with_rw),
		cmocka_unit_test(test_full_set),
		cmocka_unit_test(test_versioned_labels),
		cmocka_unit_test(test_same_label_lowest_number),
		cmocka_unit_test(test_no_auto_skipped),
		cmocka_unit_test(test_no_auto_only_root),
		cmocka_unit_test(test_not_found_names_stack_members),
		cmocka_unit_test(test_empty_label_skipped),
		cmocka_unit_test(test_secondary_arch),
		cmocka_unit_test(test_native_beats_secondary),
		cmocka_unit_test(test_arm64_machine),
		cmocka_unit_test(test_arm64_machine_x86_disk),
		cmocka_unit_test(test_read_only_bit_beats_rw),
		cmocka_unit_test(test_rw),
		cmocka_unit_test(test_norecovery_rules),
		cmocka_unit_test(test_plain_ro_ext4_no_norecovery),
		cmocka_unit_test(test_foreign_var),
		cmocka_unit_test(test_var_picks_matching_of_two),
		cmocka_unit_test(test_no_machine_id_wants_it),
		cmocka_unit_test(test_machine_id_from_cmdline_wins),
		cmocka_unit_test(test_esp_no_block_io_skipped),
		cmocka_unit_test(test_first_of_type_wins),
		cmocka_unit_test(test_home_luks_skipped),
		cmocka_unit_test(test_root_forms),
		cmocka_unit_test(test_root_not_found),
		cmocka_unit_test(test_root_duplicate),
		cmocka_unit_test(test_root_explicit_with_rootfstype_and_flags),
		cmocka_unit_test(test_root_explicit_on_mbr),
		cmocka_unit_test(test_root_explicit_not_mounted_twice),
		cmocka_unit_test(test_root_luks_refused),
		cmocka_unit_test(test_root_no_filesystem),
		cmocka_unit_test(test_explicit_root_luks_refused),
		cmocka_unit_test(test_usr_luks_refused),
		cmocka_unit_test(test_root_and_usr_same_partition),
		cmocka_unit_test(test_usr_explicit_is_not_discovered_root),
		cmocka_unit_test(test_usr_explicit_is_only_root),
		cmocka_unit_test(test_root_explicit_is_discovered_usr),
		cmocka_unit_test(test_root_tmpfs_mbr_hint),
		cmocka_unit_test(test_usr_forms),
		cmocka_unit_test(test_usr_explicit_beats_discovered),
		cmocka_unit_test(test_rootflags_join),
		cmocka_unit_test(test_volatile_tmpfs_flags_replace_the_limits),
		cmocka_unit_test(test_usrflags_rw),
		cmocka_unit_test(test_gpt_auto_off),
		cmocka_unit_test(test_loader_partuuid),
		cmocka_unit_test(test_loader_partuuid_no_match),
		cmocka_unit_test(test_disk_by_path),
		cmocka_unit_test(test_disk_by_partuuid),
		cmocka_unit_test(test_disk_by_gpt_uuid),
		cmocka_unit_test(test_disk_not_found),
		cmocka_unit_test(test_disk_named_mbr),
		cmocka_unit_test(test_two_fixed_disks),
		cmocka_unit_test(test_removable_only),
		cmocka_unit_test(test_removable_and_fixed),
		cmocka_unit_test(test_mbr_only),
		cmocka_unit_test(test_no_disks),
		cmocka_unit_test(test_gpt_without_root),
		cmocka_unit_test(test_cloned_partuuid),
		cmocka_unit_test(test_verity_noted),
		cmocka_unit_test(test_volatile_yes_with_usr),
		cmocka_unit_test(test_volatile_yes_without_usr),
		cmocka_unit_test(test_volatile_state),
		cmocka_unit_test(test_volatile_state_without_usr),
		cmocka_unit_test(test_volatile_overlay_with_usr),
		cmocka_unit_test(test_volatile_overlay_without_usr),
		cmocka_unit_test(test_root_tmpfs_with_usr_partition),
		cmocka_unit_test(test_root_tmpfs_with_mount_usr),
		cmocka_unit_test(test_root_tmpfs_rootflags),
		cmocka_unit_test(test_usr_ro_unless_usrflags_rw),
		cmocka_unit_test(test_root_tmpfs_without_usr),
		cmocka_unit_test(test_many_partitions),
		cmocka_unit_test(test_long_values),
		cmocka_unit_test(test_label_with_control_characters),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
