/* The planner with the root's fstab: its /usr where nothing else gives one, ro or
 * rw as the root, checked by its pass; its x-initrd.mount entries; what it refuses. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "plan_fixtures.h"
#include "plan_checks.h"

#define USR_UUID "0d6a5c3e-7f21-4b8e-9c4d-2e1f0a9b8c7e"

/* A DPS root and a generic partition 2 holding ext4 USR_UUID, labelled data, and the fstab. */
static struct fixture *with_fstab(const char *fstab)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);
	struct part *p;

	fx_part(f, d, 1, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	p = fx_part(f, d, 2, T_LINUX, NULL, "", 0, "ext4");
	snprintf(p->fsuuid, sizeof(p->fsuuid), "%s", USR_UUID);
	snprintf(p->fslabel, sizeof(p->fslabel), "data");
	fstab_parse_initrd(fstab, strlen(fstab), &f->machine.fstab);
	f->machine.has_fstab = true;
	return f;
}

/* plan_with() without fsck steps; this one keeps the command line's fsck.mode= */
static int plan_checked(struct fixture *f, const char *line)
{
	assert_int_equal(cmdline_parse(line, &f->opts, NULL, 0), 0);
	return fx_plan(f);
}

static const struct plan_step *find_step(const struct fixture *f, enum plan_op op, const char *target)
{
	for (size_t i = 0; i < f->plan.n_steps; i++)
		if (f->plan.steps[i].op == op && strcmp(f->plan.steps[i].target, target) == 0)
			return &f->plan.steps[i];
	return NULL;
}

static void want_mount(const struct fixture *f, const char *target, const char *source,
		       const char *options, const char *reason)
{
	const struct plan_step *s = find_step(f, OP_MOUNT, target);

	if (!s || strcmp(s->source, source) != 0 || strcmp(s->options, options) != 0 ||
	    !strstr(s->reason, reason)) {
		fx_dump(f);
		fail_msg("want mount %s on %s [%s] (%s)", source, target, options, reason);
	}
}

static void test_usr_from_fstab(void **state)
{
	struct fixture *f = with_fstab("UUID=" USR_UUID " /usr ext4 defaults,noatime 0 2\n");

	assert_int_equal(plan_with(f, ""), 0);
	want_mount(f, "/sysroot/usr", "UUID=" USR_UUID, "ro,noatime",
		   "the root's fstab: /usr on UUID=" USR_UUID " (partition 2 of /dev/vda)");
	assert_false(f->plan.wants_fstab);
	fx_free(f);
	(void)state;
}

/* rw like the root, and checked first for its pass; pass 0: not checked */
static void test_usr_rw_with_root(void **state)
{
	struct fixture *f = with_fstab("UUID=" USR_UUID " /usr ext4 defaults 0 2\n");

	assert_int_equal(plan_checked(f, "rw fsck.mode=auto"), 0);
	want_mount(f, "/sysroot/usr", "UUID=" USR_UUID, "rw", "the root's fstab");
	assert_non_null(find_step(f, OP_FSCK, "/sysroot/usr"));
	fx_free(f);

	f = with_fstab("UUID=" USR_UUID " /usr ext4 defaults 0 0\n");
	assert_int_equal(plan_checked(f, "rw fsck.mode=auto"), 0);
	want_mount(f, "/sysroot/usr", "UUID=" USR_UUID, "rw", "the root's fstab");
	assert_null(find_step(f, OP_FSCK, "/sysroot/usr"));
	fx_free(f);

	/* the fstab's ro wins over the root's rw */
	f = with_fstab("UUID=" USR_UUID " /usr ext4 ro 0 2\n");
	assert_int_equal(plan_with(f, "rw"), 0);
	want_mount(f, "/sysroot/usr", "UUID=" USR_UUID, "ro", "the root's fstab");
	fx_free(f);
	(void)state;
}

/* mount.usr= wins, and the fstab's /usr is said to be left */
static void test_command_line_wins(void **state)
{
	struct fixture *f = with_fstab("LABEL=other /usr ext4 defaults 0 2\n");

	assert_int_equal(plan_with(f, "mount.usr=LABEL=data"), 0);
	want_mount(f, "/sysroot/usr", "LABEL=data", "ro", "mount.usr=LABEL=data");
	want_note(f, "the root's fstab: /usr on LABEL=other not used: mount.usr= names /usr");
	fx_free(f);
	(void)state;
}

static void test_usr_missing_waits(void **state)
{
	struct fixture *f = with_fstab("LABEL=elsewhere /usr ext4 defaults 0 2\n");

	want_error(f, plan_with(f, ""), -ENOENT,
		   "the root's fstab: /usr on LABEL=elsewhere matches no partition");
	fx_free(f);
	f = with_fstab("server:/usr /usr nfs defaults 0 0\n");
	want_error(f, plan_with(f, ""), -EOPNOTSUPP,
		   "the root's fstab mounts /usr from server:/usr, a network filesystem");
	fx_free(f);
	(void)state;
}

static void test_initrd_entries(void **state)
{
	struct fixture *f = with_fstab("LABEL=data /srv/data ext4 noatime,x-initrd.mount 0 2\n"
				       "LABEL=gone /srv/gone ext4 x-initrd.mount,nofail\n"
				       "nas:/x /srv/nas nfs x-initrd.mount,nofail\n");

	assert_int_equal(plan_checked(f, "fsck.mode=auto"), 0);
	want_mount(f, "/sysroot/srv/data", "LABEL=data", "rw,noatime",
		   "the root's fstab: /srv/data (line 1): x-initrd.mount");
	assert_non_null(find_step(f, OP_FSCK, "/sysroot/srv/data"));
	assert_null(find_step(f, OP_GROWFS, "/sysroot/srv/data"));
	assert_null(find_step(f, OP_MOUNT, "/sysroot/srv/gone"));
	want_note(f, "the root's fstab: LABEL=gone on /srv/gone not mounted: the device is not there (nofail)");
	want_note(f, "nas:/x is a network filesystem, which earlymount does not mount (nofail)");
	fx_free(f);

	f = with_fstab("LABEL=gone /srv/gone ext4 x-initrd.mount\n");
	want_error(f, plan_with(f, ""), -ENOENT, "the root's fstab: LABEL=gone matches no partition");
	fx_free(f);

	/* x-systemd.growfs: grown once mounted read-write, after its mount */
	f = with_fstab("LABEL=data /srv/data ext4 x-initrd.mount,x-systemd.growfs 0 2\n");
	assert_int_equal(plan_checked(f, ""), 0);
	want_mount(f, "/sysroot/srv/data", "LABEL=data", "rw", "x-initrd.mount");
	assert_true(find_step(f, OP_GROWFS, "/sysroot/srv/data") >
		    find_step(f, OP_MOUNT, "/sysroot/srv/data"));
	fx_free(f);
	(void)state;
}

/* systemd.mount-extra= and systemd.swap-extra=: more entries from the command line, mounted
 * under /sysroot after the rest; a bind mount's source is in the new root too, a tmpfs needs
 * no device; a swap that is not there is left to the real system. */
static void test_mount_extra(void **state)
{
	struct fixture *f = with_fstab("");
	const struct plan_step *s;

	assert_int_equal(cmdline_parse("systemd.mount-extra=LABEL=data:/srv/data:ext4:noatime,ro "
				       "rd.systemd.mount-extra=/var/lib/x:/mnt/x:none:bind "
				       "systemd.mount-extra=tmpfs:/scratch:tmpfs:size=10m "
				       "systemd.swap-extra=UUID=" USR_UUID " systemd.swap-extra=LABEL=gone",
				       &f->opts, NULL, 0), 0);
	f->opts.fsck_mode = FSCK_SKIP;
	want_ok(f, fx_plan(f), 5);
	want_mount(f, "/sysroot/srv/data", "LABEL=data", "ro,noatime",
		   "systemd.mount-extra=LABEL=data:/srv/data: the command line mounts it");
	s = want_step(f, 2, OP_BIND, "/sysroot/var/lib/x", "/sysroot/mnt/x", "");
	assert_string_equal(s->options, "");
	s = want_step(f, 3, OP_TMPFS, "tmpfs", "/sysroot/scratch", "tmpfs");
	assert_string_equal(s->options, "size=10m");
	s = want_step(f, 4, OP_SWAPON, "UUID=" USR_UUID, "", "swap");
	assert_true(s->optional);
	want_note(f, "systemd.swap-extra=LABEL=gone not enabled: the device is not there");
	fx_free(f);

	/* a device that is not there is waited for, as an x-initrd.mount entry's */
	f = with_fstab("");
	want_error(f, plan_with(f, "systemd.mount-extra=LABEL=gone:/srv/gone"), -ENOENT,
		   "systemd.mount-extra=LABEL=gone matches no partition");
	fx_free(f);
	(void)state;
}

/* Without the fstab read yet, a disk root wants it; a tmpfs root and a share do not. */
static void test_wants_fstab(void **state)
{
	struct fixture *f = with_fstab("");

	f->machine.has_fstab = false;
	assert_int_equal(plan_with(f, ""), 0);
	assert_true(f->plan.wants_fstab);
	assert_string_equal(f->plan.fstab_path, "/sysroot/etc/fstab");
	assert_int_equal(f->plan.root_steps, 1);
	fx_free(f);
	f = with_fstab("");
	f->machine.has_fstab = false;
	assert_int_equal(plan_with(f, "root=tmpfs mount.usr=LABEL=data"), 0);
	assert_false(f->plan.wants_fstab);
	fx_free(f);
	/* a root shared by the host: its fstab is the host's */
	f = with_fstab("");
	f->machine.has_fstab = false;
	assert_int_equal(plan_with(f, "root=virtiofs:root"), 0);
	assert_false(f->plan.wants_fstab);
	fx_free(f);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usr_from_fstab),
		cmocka_unit_test(test_usr_rw_with_root),
		cmocka_unit_test(test_command_line_wins),
		cmocka_unit_test(test_usr_missing_waits),
		cmocka_unit_test(test_initrd_entries),
		cmocka_unit_test(test_mount_extra),
		cmocka_unit_test(test_wants_fstab),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
