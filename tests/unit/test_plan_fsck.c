/* fsck before a read-write mount: the planner's OP_FSCK steps (core/plan/plan_fsck.c). The
 * rules they follow, which checker and which exit codes stop the boot, are test_fsck_rules.c's. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "plan_fixtures.h"

#define LUKS_VAR_UUID "0b5f3c1e-7a2d-4e6f-8a9b-1c2d3e4f5a6b"

static int plan_with(struct fixture *f, const char *line)
{
	assert_int_equal(cmdline_parse(line, &f->opts, NULL, 0), 0);
	return fx_plan(f);
}

/* The ops of the plan up to the skeleton, one letter each: F fsck, M mount, the others '.'. */
static const char *ops(const struct fixture *f)
{
	static char out[PLAN_MAX_STEPS + 1];
	size_t n = 0;

	for (size_t i = 0; i < f->plan.n_steps; i++) {
		enum plan_op op = f->plan.steps[i].op;

		if (op == OP_POPULATE || op == OP_SKEL_DIR || op == OP_SKEL_LINK)
			break;
		out[n++] = op == OP_FSCK ? 'F' : op == OP_MOUNT ? 'M' : '.';
	}
	out[n] = '\0';
	return out;
}

static void want_ops(const struct fixture *f, int r, const char *want)
{
	if (r != 0 || strcmp(ops(f), want) != 0) {
		fx_dump(f);
		fail_msg("want 0 and steps %s; got %d and %s", want, r, ops(f));
	}
}

static void want_fsck(const struct fixture *f, size_t i, const char *target, const char *fstype,
		      const char *options)
{
	const struct plan_step *s = &f->plan.steps[i];

	if (s->op != OP_FSCK || strcmp(s->target, target) != 0 || strcmp(s->fstype, fstype) != 0 ||
	    strcmp(s->options, options) != 0 || strcmp(s->source, s[1].source) != 0 ||
	    s[1].op != OP_MOUNT || strcmp(s[1].target, target) != 0) {
		fx_dump(f);
		fail_msg("step %zu: want fsck %s (%s) %s before its mount", i, target, fstype, options);
	}
}

/* root, /var of this machine, /home, all ext4; an ESP (vfat) and swap. */
static struct fixture *full_disk(const char *home_fstype)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "d15c0001-0000-4000-8000-000000000000", false);

	fx_part(f, d, 1, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	fx_part(f, d, 2, T_VAR, MACHINE_VAR_PARTUUID, "var", 0, "ext4");
	fx_part(f, d, 3, T_HOME, NULL, "home", 0, home_fstype);
	fx_part(f, d, 4, T_ESP, NULL, "esp", 0, "vfat");
	fx_part(f, d, 5, T_SWAP, NULL, "swap", 0, "swap");
	f->machine.has_machine_id = true;
	fx_machine_id(f->machine.machine_id);
	return f;
}

static void test_rw_mounts_are_checked_first(void **state)
{
	struct fixture *f = full_disk("ext4");
	int r = plan_with(f, "rw");

	/* root, /var, /home, the ESP (vfat, rw with rw), swap */
	want_ops(f, r, "FMFMFMFM.");
	want_fsck(f, 0, "/sysroot", "ext4", "-a");
	want_fsck(f, 2, "/sysroot/var", "ext4", "-a");
	want_fsck(f, 4, "/sysroot/home", "ext4", "-a");
	want_fsck(f, 6, "/sysroot/boot", "vfat", "-a");
	assert_non_null(strstr(f->plan.steps[2].reason, "fsck.mode=auto"));
	assert_ptr_equal(f->plan.steps[2].part, f->plan.steps[3].part);
	fx_free(f);
}

static void test_read_only_root_is_left_to_the_real_init(void **state)
{
	struct fixture *f = full_disk("ext4");
	int r = plan_with(f, "");

	/* ro root and ESP: no check; /var and /home are rw in any boot */
	want_ops(f, r, "MFMFMM.");
	want_fsck(f, 1, "/sysroot/var", "ext4", "-a");
	fx_free(f);
}

static void test_modes_and_repairs(void **state)
{
	struct fixture *f = full_disk("ext4");

	want_ops(f, plan_with(f, "rw fsck.mode=force fsck.repair=yes"), "FMFMFMFM.");
	want_fsck(f, 0, "/sysroot", "ext4", "-y -f");
	want_fsck(f, 6, "/sysroot/boot", "vfat", "-y -f");
	assert_non_null(strstr(f->plan.steps[0].reason, "fsck.mode=force"));
	want_ops(f, plan_with(f, "rw rd.fsck.repair=no"), "FMFMFMFM.");
	want_fsck(f, 2, "/sysroot/var", "ext4", "-n");
	want_ops(f, plan_with(f, "rw fsck.mode=skip"), "MMMM.");
	want_ops(f, plan_with(f, "rw rd.fsck.mode=skip"), "MMMM.");
	fx_free(f);
}

/* xfs and btrfs check themselves on mount: no step, whatever the mode. */
static void test_no_checker_no_step(void **state)
{
	struct fixture *f = full_disk("xfs");

	want_ops(f, plan_with(f, "fsck.mode=force"), "MFMMM.");
	fx_free(f);
	f = full_disk("btrfs");
	want_ops(f, plan_with(f, ""), "MFMMM.");
	fx_free(f);
}

static void test_verity_root_is_never_checked(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "d15c0001-0000-4000-8000-000000000000", false);
	char line[256];

	fx_part(f, d, 1, T_ROOT_X86_64, "01234567-89ab-cdef-0123-456789abcdef", "root", 0, "ext4");
	fx_part(f, d, 2, T_ROOT_VERITY_X86_64, "fedcba98-7654-3210-fedc-ba9876543210", "root-verity",
		0, "DM_verity_hash");
	snprintf(line, sizeof(line), "rw fsck.mode=force roothash=0123456789abcdef0123456789abcdef"
		 "fedcba9876543210fedcba9876543210");
	want_ops(f, plan_with(f, line), ".M");
	fx_free(f);
}

/* An unlocked /var: its filesystem is probed at boot, the step says so. */
static void test_luks_fstype_probed_at_boot(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "d15c0001-0000-4000-8000-000000000000", false);
	struct part *var;

	fx_part(f, d, 1, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	var = fx_part(f, d, 2, T_VAR, MACHINE_VAR_PARTUUID, "var", 0, "crypto_LUKS");
	snprintf(var->fsuuid, sizeof(var->fsuuid), "%s", LUKS_VAR_UUID);
	f->machine.has_machine_id = true;
	fx_machine_id(f->machine.machine_id);
	want_ops(f, plan_with(f, ""), "M.FM");
	want_fsck(f, 2, "/sysroot/var", "", "-a");
	assert_string_equal(f->plan.steps[2].source, "/dev/mapper/var");
	assert_null(f->plan.steps[2].part);
	assert_non_null(strstr(f->plan.steps[2].reason, "probed at boot"));
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rw_mounts_are_checked_first),
		cmocka_unit_test(test_read_only_root_is_left_to_the_real_init),
		cmocka_unit_test(test_modes_and_repairs),
		cmocka_unit_test(test_no_checker_no_step),
		cmocka_unit_test(test_verity_root_is_never_checked),
		cmocka_unit_test(test_luks_fstype_probed_at_boot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
