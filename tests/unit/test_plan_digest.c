/* The plan's digest: the steps' op, source, target, fstype and options, a line each, as
 * `earlymount plan --json` shows them, and nothing of why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "plan.h"
#include "sha256.h"

static struct plan plan;

static void add_step(enum plan_op op, const char *source, const char *target, const char *fstype,
		     const char *options, const char *reason)
{
	struct plan_step *s = &plan.steps[plan.n_steps++];

	memset(s, 0, sizeof(*s));
	s->op = op;
	strcpy(s->source, source);
	strcpy(s->target, target);
	strcpy(s->fstype, fstype);
	strcpy(s->options, options);
	strcpy(s->reason, reason);
}

static int two_steps(void **state)
{
	memset(&plan, 0, sizeof(plan));
	add_step(OP_MOUNT, "PARTUUID=1", "/sysroot", "ext4", "ro", "root: discovered");
	add_step(OP_MKDIR, "", "/sysroot/run", "", "", "");
	return 0;
}

static void test_the_text_it_digests(void **state)
{
	static const char text[] = "mount\tPARTUUID=1\t/sysroot\text4\tro\n"
				   "mkdir\t\t/sysroot/run\t\t\n";
	uint8_t want[SHA256_DIGEST_SIZE], got[SHA256_DIGEST_SIZE];

	sha256(text, strlen(text), want);
	plan_digest(&plan, got);
	assert_memory_equal(got, want, sizeof(want));
}

static void test_why_does_not_count(void **state)
{
	uint8_t before[SHA256_DIGEST_SIZE], after[SHA256_DIGEST_SIZE];

	plan_digest(&plan, before);
	strcpy(plan.steps[0].reason, "root: discovered among 3 disks");
	strcpy(plan.notes[0], "a note");
	plan.n_notes = 1;
	plan_digest(&plan, after);
	assert_memory_equal(before, after, sizeof(before));
	strcpy(plan.steps[0].options, "rw");
	plan_digest(&plan, after);
	assert_memory_not_equal(before, after, sizeof(before));
}

static void test_no_steps(void **state)
{
	uint8_t want[SHA256_DIGEST_SIZE], got[SHA256_DIGEST_SIZE];

	plan.n_steps = 0;
	sha256("", 0, want);
	plan_digest(&plan, got);
	assert_memory_equal(got, want, sizeof(want));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_the_text_it_digests, two_steps),
		cmocka_unit_test_setup(test_why_does_not_count, two_steps),
		cmocka_unit_test_setup(test_no_steps, two_steps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
