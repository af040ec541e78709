/* The A/B fallback: which partition a failure is blamed on, the planner passing it over, and
 * the record the real init reads. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fallback.h"
#include "plan_fixtures.h"

/* root-1.9 and root-1.10 (the newer), a usr-2 and a usr-3 (the newer). */
static struct fixture *ab_fixture(void)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);

	fx_part(f, d, 1, T_ROOT_X86_64, NULL, "root-1.9", 0, "ext4");
	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "root-1.10", 0, "ext4");
	fx_part(f, d, 3, T_USR_X86_64, NULL, "usr-2", 0, "erofs");
	fx_part(f, d, 4, T_USR_X86_64, NULL, "usr-3", 0, "erofs");
	return f;
}

static int plan_failed(struct fixture *f, const struct fallback *fb)
{
	struct plan_input in = { &f->opts, &f->set, &f->machine, fb->failed, fb->n };

	return fx_refusal_checked(plan_build(&in, &f->plan), &f->plan, &f->set);
}

static void test_failed_root_gives_way_to_the_next_newest(void **state)
{
	struct fixture *f = ab_fixture();
	struct fallback fb = { 0 };
	const char *role = NULL;
	const struct part *culprit;

	assert_int_equal(fx_plan(f), 0);
	assert_int_equal(f->plan.root->number, 2);
	assert_true(f->plan.root_discovered);
	/* the root's mount failed */
	culprit = fallback_culprit(&f->plan, &f->plan.steps[0], &role);
	assert_ptr_equal(culprit, f->plan.root);
	assert_string_equal(role, "root");
	assert_int_equal(fallback_add(&fb, culprit, role, "unable to mount"), 0);
	assert_int_equal(plan_failed(f, &fb), 0);
	assert_int_equal(f->plan.root->number, 1);
	assert_true(fx_has_note(f, "partition 2 (root, label 'root-1.10') passed over: it failed "
				   "at this boot"));
	/* and when that one fails too, there is none left */
	assert_int_equal(fallback_add(&fb, f->plan.root, "root", "no init"), 0);
	assert_int_equal(plan_failed(f, &fb), -ENOENT);
	fx_free(f);
	(void)state;
}

static void test_no_init_blames_the_mounted_root_else_usr(void **state)
{
	struct fixture *f = ab_fixture();
	const char *role = NULL;

	assert_int_equal(fx_plan(f), 0);
	assert_ptr_equal(fallback_culprit(&f->plan, NULL, &role), f->plan.root);
	assert_string_equal(role, "root");
	fx_free(f);
	f = ab_fixture();
	assert_int_equal(cmdline_parse("root=tmpfs", &f->opts, NULL, 0), 0);
	assert_int_equal(fx_plan(f), 0);
	assert_int_equal(f->plan.usr->number, 4);
	assert_ptr_equal(fallback_culprit(&f->plan, NULL, &role), f->plan.usr);
	assert_string_equal(role, "usr");
	fx_free(f);
	(void)state;
}

/* root= names the partition: what the command line says is never second-guessed. */
static void test_named_root_is_not_second_guessed(void **state)
{
	struct fixture *f = ab_fixture();
	const char *role = NULL;

	assert_int_equal(cmdline_parse("root=PARTLABEL=root-1.10", &f->opts, NULL, 0), 0);
	assert_int_equal(fx_plan(f), 0);
	assert_false(f->plan.root_discovered);
	assert_null(fallback_culprit(&f->plan, &f->plan.steps[0], &role));
	assert_null(fallback_culprit(&f->plan, NULL, &role));
	fx_free(f);
	(void)state;
}

/* A step of another partition (a swap, the ESP) failing is no reason to change versions. */
static void test_other_steps_blame_nothing(void **state)
{
	struct fixture *f = ab_fixture();
	struct plan_step other = { .op = OP_MOUNT };
	const char *role = NULL;

	assert_int_equal(fx_plan(f), 0);
	assert_null(fallback_culprit(&f->plan, &other, &role));
	fx_free(f);
	(void)state;
}

/* A signed root: its mount names /dev/mapper/root, the data partition is behind it. */
static void test_verity_root_is_blamed_through_its_device(void **state)
{
	struct fixture *f = ab_fixture();
	size_t d = 0;
	struct part *sig;
	const char *role = NULL;

	fx_part(f, d, 5, T_ROOT_VERITY_X86_64, "abcdef00-1234-4000-8000-0000000000c7", "v", 0, "");
	sig = fx_part(f, d, 6, "41092b05-9fc8-4523-994f-2def0408b176", NULL, "sig", 0, "");
	strcpy(sig->verity_sig_hash, "00000001000040008000000000000002abcdef001234400080000000000000c7");
	assert_int_equal(fx_plan(f), 0);
	assert_int_equal(f->plan.steps[0].op, OP_VERITY);
	assert_int_equal(f->plan.steps[1].op, OP_MOUNT);
	assert_null(f->plan.steps[1].part);
	/* the mount of /dev/mapper/root failed: the root's partition 2 is to blame */
	assert_ptr_equal(fallback_culprit(&f->plan, &f->plan.steps[1], &role), f->plan.root);
	assert_int_equal(f->plan.root->number, 2);
	assert_string_equal(role, "root");
	/* and for a missing init too, not the discovered /usr */
	assert_ptr_equal(fallback_culprit(&f->plan, NULL, &role), f->plan.root);
	assert_string_equal(role, "root");
	fx_free(f);
	(void)state;
}

/* An encrypted root: a mount that fails after the unlock blames the partition behind
 * /dev/mapper/root; a failed unlock (a wrong passphrase) blames no version. */
static void test_luks_root(void **state)
{
	struct fixture *f = ab_fixture();
	const char *role = NULL;

	snprintf(fx_get(f, 0, 2)->fstype, 32, "crypto_LUKS");
	assert_int_equal(fx_plan(f), 0);
	assert_int_equal(f->plan.steps[0].op, OP_UNLOCK);
	assert_int_equal(f->plan.steps[1].op, OP_MOUNT);
	assert_null(f->plan.steps[1].part);
	assert_ptr_equal(fallback_culprit(&f->plan, &f->plan.steps[1], &role), fx_get(f, 0, 2));
	assert_string_equal(role, "root");
	assert_null(fallback_culprit(&f->plan, &f->plan.steps[0], &role));
	fx_free(f);
	(void)state;
}

static void test_record(void **state)
{
	struct fixture *f = ab_fixture();
	struct fallback fb = { 0 };
	struct part failed = { .number = 2 };
	char text[1024];

	strcpy(failed.partuuid, "00000001-0000-4000-8000-000000000002");
	strcpy(failed.label, "root\t1.10");
	assert_int_equal(fallback_add(&fb, &failed, "root", "unable to mount:\nEUCLEAN"), 0);
	assert_int_equal(plan_failed(f, &fb), 0);
	fallback_format(&fb, &f->plan, text, sizeof(text));
	assert_string_equal(text, "# role\tpassed over\tlabel\tbooted instead\tlabel\twhy\n"
				  "root\t00000001-0000-4000-8000-000000000002\troot 1.10\t"
				  "00000001-0000-4000-8000-000000000001\troot-1.9\tunable to mount: EUCLEAN\n");
	/* cut short, still terminated */
	fallback_format(&fb, &f->plan, text, 60);
	assert_int_equal(strlen(text), 59);
	for (size_t i = fb.n; i < PLAN_MAX_FAILURES; i++)
		assert_int_equal(fallback_add(&fb, &failed, "root", "x"), 0);
	assert_int_equal(fallback_add(&fb, &failed, "root", "x"), -ENOSPC);
	fx_free(f);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_failed_root_gives_way_to_the_next_newest),
		cmocka_unit_test(test_no_init_blames_the_mounted_root_else_usr),
		cmocka_unit_test(test_named_root_is_not_second_guessed),
		cmocka_unit_test(test_other_steps_blame_nothing),
		cmocka_unit_test(test_verity_root_is_blamed_through_its_device),
		cmocka_unit_test(test_luks_root),
		cmocka_unit_test(test_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
