/* The planner for a root or /usr on a host share: no disk, no discovery; the
 * volatile modes over it; what a share refuses. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "plan_fixtures.h"

#define TMPFS_OPTS "mode=0755,size=25%,nr_inodes=1m"

/* Parses line into the fixture's options and plans; the plan's result. */
static int plan_line(struct fixture *f, const char *line)
{
	char err[256];

	assert_int_equal(cmdline_parse(line, &f->opts, err, sizeof(err)), 0);
	return fx_plan(f);
}

static void want_step(const struct fixture *f, size_t i, enum plan_op op, const char *source,
		      const char *target, const char *fstype, const char *options)
{
	const struct plan_step *s = &f->plan.steps[i];

	if (i >= f->plan.n_steps || s->op != op || strcmp(s->source, source) != 0 ||
	    strcmp(s->target, target) != 0 || strcmp(s->fstype, fstype) != 0 ||
	    strcmp(s->options, options) != 0 || !s->reason[0]) {
		fx_dump(f);
		fail_msg("step %zu: want %s %s %s %s [%s]", i, plan_op_name(op), source, target,
			 fstype, options);
	}
}

static void test_virtiofs_root(void **state)
{
	struct fixture *f = fx_new();
	/* a disk with a root beside the share: never looked at */
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);

	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	assert_int_equal(plan_line(f, "root=virtiofs:host"), 0);
	want_step(f, 0, OP_SHARE, "host", "/sysroot", "virtiofs", "ro");
	assert_null(f->plan.root);
	assert_null(f->plan.disk);
	assert_true(fx_has_note(f, "root on a host share: no partitions discovered"));
	/* read-only: no skeleton written into the host's tree */
	assert_int_equal(f->plan.n_steps, 1);
	fx_free(f);
	(void)state;
}

static void test_9p_root_rw_defaults(void **state)
{
	struct fixture *f = fx_new();

	assert_int_equal(plan_line(f, "root=virtfs:r rw"), 0);
	want_step(f, 0, OP_SHARE, "r", "/sysroot", "9p", "rw,trans=virtio,version=9p2000.L");
	assert_true(f->plan.n_steps > 1); /* a writable root gets the skeleton */
	fx_free(f);
	f = fx_new();
	/* virtme-ng's words: its own trans= and version= are kept, not doubled */
	assert_int_equal(plan_line(f, "root=/dev/root rootfstype=9p "
				      "rootflags=version=9p2000.u,trans=virtio,access=any"),
			 0);
	want_step(f, 0, OP_SHARE, "/dev/root", "/sysroot", "9p",
		  "ro,version=9p2000.u,trans=virtio,access=any");
	fx_free(f);
	(void)state;
}

static void test_overlay_over_share(void **state)
{
	struct fixture *f = fx_new();

	assert_int_equal(plan_line(f, "rootfstype=virtiofs root=ROOTFS rw systemd.volatile=overlay"),
			 0);
	want_step(f, 0, OP_SHARE, "ROOTFS", "/sysroot", "virtiofs", "ro");
	want_step(f, 1, OP_TMPFS, "tmpfs", "/run/earlymount/overlay", "tmpfs", TMPFS_OPTS);
	assert_int_equal(f->plan.steps[4].op, OP_OVERLAY);
	assert_true(fx_has_note(f, "read-only although rw was given"));
	fx_free(f);
	(void)state;
}

static void test_volatile_modes_over_share(void **state)
{
	struct fixture *f = fx_new();

	assert_int_equal(plan_line(f, "root=virtiofs:r systemd.volatile=state"), 0);
	want_step(f, 0, OP_SHARE, "r", "/sysroot", "virtiofs", "ro");
	want_step(f, 1, OP_TMPFS, "tmpfs", "/sysroot/var", "tmpfs", TMPFS_OPTS);
	fx_free(f);
	f = fx_new();
	/* volatile=yes lends the share's /usr to a tmpfs root */
	assert_int_equal(plan_line(f, "root=virtiofs:r systemd.volatile=yes"), 0);
	want_step(f, 0, OP_SHARE, "r", "/run/earlymount/root", "virtiofs", "ro");
	want_step(f, 1, OP_TMPFS, "tmpfs", "/sysroot", "tmpfs", TMPFS_OPTS);
	want_step(f, 2, OP_BIND, "/run/earlymount/root/usr", "/sysroot/usr", "", "ro");
	fx_free(f);
	(void)state;
}

static void test_usr_share(void **state)
{
	struct fixture *f = fx_new();

	assert_int_equal(plan_line(f, "root=tmpfs mount.usr=virtiofs:usr"), 0);
	want_step(f, 0, OP_TMPFS, "tmpfs", "/sysroot", "tmpfs", "rw," TMPFS_OPTS);
	want_step(f, 1, OP_SHARE, "usr", "/sysroot/usr", "virtiofs", "ro");
	fx_free(f);
	f = fx_new();
	assert_int_equal(plan_line(f, "root=virtiofs:r mount.usr=virtiofs:u systemd.volatile=yes "
				      "mount.usrflags=rw"),
			 0);
	want_step(f, 0, OP_TMPFS, "tmpfs", "/sysroot", "tmpfs", TMPFS_OPTS);
	want_step(f, 1, OP_SHARE, "u", "/sysroot/usr", "virtiofs", "ro");
	fx_free(f);
	(void)state;
}

static void test_share_refuses_verity(void **state)
{
	struct fixture *f = fx_new();
	int r = plan_line(f, "root=virtiofs:r roothash="
			     "0000000000000000000000000000000000000000000000000000000000000001");

	assert_int_equal(r, -EINVAL);
	assert_non_null(strstr(f->plan.error, "a share has no verity device"));
	fx_free(f);
	f = fx_new();
	r = plan_line(f, "root=virtiofs:r mount.usr=virtfs:u usrhash="
			 "0000000000000000000000000000000000000000000000000000000000000001");
	assert_int_equal(r, -EINVAL);
	assert_non_null(strstr(f->plan.error, "usrhash= with a /usr on the 9p share 'u'"));
	fx_free(f);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_virtiofs_root),
		cmocka_unit_test(test_9p_root_rw_defaults),
		cmocka_unit_test(test_overlay_over_share),
		cmocka_unit_test(test_volatile_modes_over_share),
		cmocka_unit_test(test_usr_share),
		cmocka_unit_test(test_share_refuses_verity),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
