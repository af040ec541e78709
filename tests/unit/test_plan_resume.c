/* The planner's resume step (core/plan/plan_resume.c): which device, always first, and what
 * noresume and an encrypted swap leave out. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "plan_fixtures.h"
#include "plan_checks.h"

static void want_no_op(struct fixture *f, enum plan_op op)
{
	for (size_t i = 0; i < f->plan.n_steps; i++)
		if (f->plan.steps[i].op == op) {
			fx_dump(f);
			fail_msg("step %zu is %s, and the plan must have none", i, plan_op_name(op));
		}
}

/* A root (1), a swap with an image (2, 3: the first one counts) and a plain swap (4). */
static size_t hibernated_disk(struct fixture *f, const char *first_swap)
{
	size_t d = fx_disk(f, "/disk.img", "gpt", "", false);

	fx_part(f, d, 1, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	fx_part(f, d, 3, T_SWAP, NULL, "swap-b", 0, "swsuspend");
	fx_part(f, d, 2, T_SWAP, NULL, "swap-a", 0, first_swap);
	return d;
}

static void test_discovered_image_resumed_first(void **state)
{
	struct fixture *f = fx_new();
	const struct plan_step *s;
	char uuid[UUID_STR_LEN], want[64];
	int r;

	hibernated_disk(f, "swsuspend");
	r = fx_plan(f);
	want_ok(f, r, 2);
	s = &f->plan.steps[0];
	assert_int_equal(s->op, OP_RESUME);
	snprintf(want, sizeof(want), "PARTUUID=%s", fx_partuuid(0, 2, uuid));
	assert_string_equal(s->source, want);
	assert_int_equal(s->part->number, 2);
	assert_string_equal(s->options, "");
	assert_true(s->optional);
	assert_non_null(strstr(s->reason, "swap partition 2"));
	assert_int_equal(f->plan.steps[1].op, OP_MOUNT);
	/* The image is never swapped over. */
	want_no_op(f, OP_SWAPON);
	want_note(f, "partition 2 (swap) not enabled as swap: it holds a hibernation image");
	fx_free(f);
	(void)state;
}

/* Any swap partition of the disk may hold the image (the real init may swap on another than
 * discovery's first); one marked no-auto is left alone. */
static void test_any_swap_partition(void **state)
{
	struct fixture *f = fx_new();
	int r;

	hibernated_disk(f, "swap");
	r = fx_plan(f);
	want_ok(f, r, 3);
	assert_int_equal(f->plan.steps[0].op, OP_RESUME);
	assert_int_equal(f->plan.steps[0].part->number, 3);
	assert_int_equal(f->plan.steps[2].op, OP_SWAPON);
	assert_int_equal(f->plan.steps[2].part->number, 2);

	fx_get(f, 0, 3)->flags = GPT_FLAG_NO_AUTO;
	r = fx_plan(f);
	want_ok(f, r, 2);
	want_no_op(f, OP_RESUME);
	assert_int_equal(f->plan.steps[1].op, OP_SWAPON);
	fx_free(f);
	(void)state;
}

static void test_no_auto_image_left_alone(void **state)
{
	struct fixture *f = fx_new();
	int r;

	hibernated_disk(f, "swsuspend");
	fx_get(f, 0, 2)->flags = GPT_FLAG_NO_AUTO;
	r = fx_plan(f);
	want_ok(f, r, 2);
	/* Partition 3 is the first one discovery may use. */
	assert_int_equal(f->plan.steps[0].op, OP_RESUME);
	assert_int_equal(f->plan.steps[0].part->number, 3);
	want_no_op(f, OP_SWAPON);
	fx_free(f);
	(void)state;
}

static void test_noresume(void **state)
{
	struct fixture *f = fx_new();
	int r;

	hibernated_disk(f, "swsuspend");
	r = plan_with(f, "resume=/dev/vda2 noresume");
	want_ok(f, r, 1);
	want_no_op(f, OP_RESUME);
	want_no_op(f, OP_SWAPON);
	want_note(f, "resume=/dev/vda2 ignored: noresume");
	want_note(f, "noresume: the hibernation image on swap partition 2 is left as it is");
	fx_free(f);
	(void)state;
}

static void test_named(void **state)
{
	struct fixture *f = fx_new();
	const struct plan_step *s;
	int r;

	hibernated_disk(f, "swap");
	r = plan_with(f, "resume=PARTLABEL=swap-a resume_offset=34816");
	want_ok(f, r, 3);
	s = &f->plan.steps[0];
	assert_int_equal(s->op, OP_RESUME);
	assert_string_equal(s->source, "PARTLABEL=swap-a");
	assert_int_equal(s->part->number, 2);
	assert_string_equal(s->options, "resume_offset=34816");
	/* Named, it is resumed from, and enabled afterwards when it held nothing. */
	assert_int_equal(f->plan.steps[2].op, OP_SWAPON);

	r = plan_with(f, "resume=8:3");
	want_ok(f, r, 3);
	assert_string_equal(f->plan.steps[0].source, "8:3");
	assert_null(f->plan.steps[0].part);
	fx_free(f);
	(void)state;
}

/* Not there yet: waited for as the root is, never skipped to mount past an image. */
static void test_named_missing(void **state)
{
	struct fixture *f = fx_new();
	int r;

	hibernated_disk(f, "swap");
	r = plan_with(f, "resume=PARTLABEL=elsewhere");
	assert_int_equal(r, -ENOENT);
	assert_non_null(strstr(f->plan.error, "resume=PARTLABEL=elsewhere matches no partition"));
	fx_free(f);
	(void)state;
}

static void test_encrypted_not_resumed(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/disk.img", "gpt", "", false);
	int r;

	fx_part(f, d, 1, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	fx_part(f, d, 2, T_SWAP, NULL, "swap", 0, "crypto_LUKS");
	r = plan_with(f, "resume=PARTLABEL=swap");
	want_no_op(f, OP_RESUME);
	want_note(f, "resume=PARTLABEL=swap not attempted: earlymount does not resume from an "
		     "encrypted swap");
	r = plan_with(f, "resume=/dev/mapper/swap");
	assert_int_equal(r, 0);
	want_no_op(f, OP_RESUME);
	want_note(f, "resume=/dev/mapper/swap not attempted");
	fx_free(f);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_discovered_image_resumed_first),
		cmocka_unit_test(test_any_swap_partition),
		cmocka_unit_test(test_no_auto_image_left_alone),
		cmocka_unit_test(test_noresume),
		cmocka_unit_test(test_named),
		cmocka_unit_test(test_named_missing),
		cmocka_unit_test(test_encrypted_not_resumed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
