/* execute: each op with its syscalls wrapped; failures leave a sentence naming the step. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "disk.h"
#include "execute.h"
#include "log.h"
#include "plan.h"
#include "util.h"

static struct {
	char mkdirs[16][PLAN_PATH];
	mode_t modes[16];
	size_t n_mkdirs;
	int mkdir_errno;       /* returned by every mkdir; EEXIST means "already there" */
	char ensured[8][32];
	size_t n_ensured;
} rec;

int __wrap_mkdir(const char *path, mode_t mode)
{
	if (rec.n_mkdirs < 16) {
		copy_str(rec.mkdirs[rec.n_mkdirs], PLAN_PATH, path);
		rec.modes[rec.n_mkdirs++] = mode;
	}
	errno = rec.mkdir_errno;
	return errno ? -1 : 0;
}

int __wrap_mount(const char *source, const char *target, const char *fstype,
		 unsigned long flags, const void *data)
{
	const char *src = source ? source : "(null)";
	const char *type = fstype ? fstype : "(null)";
	const char *options = data ? data : "(null)";
	int err;

	check_expected(src);
	check_expected(target);
	check_expected(type);
	check_expected(flags);
	check_expected(options);
	err = mock_type(int);
	errno = err;
	return err ? -1 : 0;
}

int __wrap_symlink(const char *target, const char *path)
{
	check_expected(path);
	check_expected(target);
	errno = mock_type(int);
	return errno ? -1 : 0;
}

int __wrap_swapon(const char *path, int flags)
{
	check_expected(path);
	errno = mock_type(int);
	return errno ? -1 : 0;
}

int __wrap_umount2(const char *target, int flags)
{
	check_expected(target);
	errno = mock_type(int);
	return errno ? -1 : 0;
}

static void expect_mount(const char *src, const char *target, const char *type,
			 unsigned long flags, const char *options, int err)
{
	expect_string(__wrap_mount, src, src);
	expect_string(__wrap_mount, target, target);
	expect_string(__wrap_mount, type, type);
	expect_value(__wrap_mount, flags, flags);
	expect_string(__wrap_mount, options, options);
	will_return(__wrap_mount, err);
}

static int record_fs(const char *fstype, void *data)
{
	copy_str(rec.ensured[rec.n_ensured++], 32, fstype);
	return 0;
}

static struct disk_set disks;
static struct execute_ctx ctx;

static int reset(void **state)
{
	memset(&rec, 0, sizeof(rec));
	rec.mkdir_errno = EEXIST;
	ctx = (struct execute_ctx){ .disks = &disks, .ensure_fs = record_fs };
	return 0;
}

static int disks_setup(void **state)
{
	struct disk *d = disk_set_add(&disks);
	struct part *p;

	if (!d)
		return -1;
	COPY_STR(d->path, "/dev/vda");
	COPY_STR(d->pttype, "gpt");
	p = disk_add_part(d);
	p->number = 2;
	COPY_STR(p->partuuid, "11111111-2222-3333-4444-555555555555");
	COPY_STR(p->fstype, "ext4");
	COPY_STR(p->fslabel, "root");
	COPY_STR(p->devpath, "/dev/vda2");
	return 0;
}

static int disks_teardown(void **state)
{
	disk_set_free(&disks);
	return 0;
}

static struct plan_step step(enum plan_op op, const char *source, const char *target,
			     const char *fstype, const char *options)
{
	struct plan_step s = { .op = op };

	COPY_STR(s.source, source);
	COPY_STR(s.target, target);
	COPY_STR(s.fstype, fstype);
	COPY_STR(s.options, options);
	return s;
}

static void test_mount_partition(void **state)
{
	struct plan_step s = step(OP_MOUNT, "PARTUUID=11111111-2222-3333-4444-555555555555",
				  "/sysroot", "ext4", "ro,nodev,norecovery");

	s.part = &disks.disks[0].parts[0];
	expect_mount("/dev/vda2", "/sysroot", "ext4", MS_RDONLY | MS_NODEV, "norecovery", 0);
	assert_int_equal(execute_step(&s, &ctx), 0);
	assert_int_equal(rec.n_mkdirs, 1);
	assert_string_equal(rec.mkdirs[0], "/sysroot");
	assert_int_equal(rec.n_ensured, 1);
	assert_string_equal(rec.ensured[0], "ext4");
}

static void test_mount_spec_looked_up(void **state)
{
	struct plan_step s = step(OP_MOUNT, "PARTUUID=11111111-2222-3333-4444-555555555555",
				  "/sysroot", "", "rw");

	/* no fstype in the step: the probed one is used */
	expect_mount("/dev/vda2", "/sysroot", "ext4", 0, "(null)", 0);
	assert_int_equal(execute_step(&s, &ctx), 0);
}

static void test_mount_path_as_is(void **state)
{
	struct plan_step s = step(OP_MOUNT, "/dev/sdz1", "/sysroot/usr", "xfs", "ro");

	expect_mount("/dev/sdz1", "/sysroot/usr", "xfs", MS_RDONLY, "(null)", 0);
	assert_int_equal(execute_step(&s, &ctx), 0);
	assert_int_equal(rec.n_mkdirs, 2);
	assert_string_equal(rec.mkdirs[0], "/sysroot");
	assert_string_equal(rec.mkdirs[1], "/sysroot/usr");
}

static void test_mount_fails_with_advice(void **state)
{
	struct plan_step s = step(OP_MOUNT, "/dev/vda2", "/sysroot", "ext4", "ro");

	expect_mount("/dev/vda2", "/sysroot", "ext4", MS_RDONLY, "(null)", EINVAL);
	assert_int_equal(execute_step(&s, &ctx), -EINVAL);
	assert_string_equal(ctx.why, "unable to mount /dev/vda2 (ext4) on /sysroot: Invalid argument"
				     " — the filesystem may be damaged: check it with fsck, or give "
				     "rootfstype=");
}

static void test_mount_unknown_source(void **state)
{
	struct plan_step s = step(OP_MOUNT, "LABEL=nothere", "/sysroot", "ext4", "ro");

	assert_int_equal(execute_step(&s, &ctx), -ENOENT);
	assert_string_equal(ctx.why,
			    "unable to find LABEL=nothere to mount on /sysroot: No such file or directory");
}

static void test_mount_without_fstype(void **state)
{
	struct plan_step s = step(OP_MOUNT, "/dev/vdb", "/sysroot", "", "ro");

	assert_int_equal(execute_step(&s, &ctx), -EINVAL);
	assert_non_null(strstr(ctx.why, "give rootfstype="));
}

static void test_mount_point_cannot_be_made(void **state)
{
	struct plan_step s = step(OP_MOUNT, "/dev/vda2", "/sysroot/var", "ext4", "");

	rec.mkdir_errno = EROFS;
	assert_int_equal(execute_step(&s, &ctx), -EROFS);
	assert_string_equal(ctx.why, "unable to create the mount point /sysroot/var: Read-only file system");
}

static void test_tmpfs_and_overlay(void **state)
{
	struct plan_step t = step(OP_TMPFS, "", "/sysroot", "", "mode=0755,nosuid,nodev");
	struct plan_step o = step(OP_OVERLAY, "", "/sysroot", "",
				  "lowerdir=/run/earlymount/lower,upperdir=/run/earlymount/upper/u,"
				  "workdir=/run/earlymount/upper/w");

	expect_mount("tmpfs", "/sysroot", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755", 0);
	assert_int_equal(execute_step(&t, &ctx), 0);
	expect_mount("overlay", "/sysroot", "overlay", 0, o.options, 0);
	assert_int_equal(execute_step(&o, &ctx), 0);
	assert_int_equal(rec.n_ensured, 2);
	assert_string_equal(rec.ensured[0], "tmpfs");
	assert_string_equal(rec.ensured[1], "overlay");
}

static void test_bind_read_only(void **state)
{
	struct plan_step s = step(OP_BIND, "/sysroot/usr", "/run/earlymount/usr", "", "ro");

	expect_mount("/sysroot/usr", "/run/earlymount/usr", "(null)", MS_BIND, "(null)", 0);
	expect_mount("(null)", "/run/earlymount/usr", "(null)", MS_REMOUNT | MS_BIND | MS_RDONLY,
		     "(null)", 0);
	assert_int_equal(execute_step(&s, &ctx), 0);

	s = step(OP_BIND, "/a", "/b", "", "");
	expect_mount("/a", "/b", "(null)", MS_BIND, "(null)", ENOENT);
	assert_int_equal(execute_step(&s, &ctx), -ENOENT);
	assert_string_equal(ctx.why, "unable to bind /a on /b: No such file or directory");
}

static void test_move(void **state)
{
	struct plan_step s = step(OP_MOVE, "/sysroot", "/run/earlymount/lower", "", "");

	expect_mount("/sysroot", "/run/earlymount/lower", "(null)", MS_MOVE, "(null)", 0);
	assert_int_equal(execute_step(&s, &ctx), 0);
	expect_mount("/sysroot", "/run/earlymount/lower", "(null)", MS_MOVE, "(null)", EINVAL);
	assert_int_equal(execute_step(&s, &ctx), -EINVAL);
	assert_string_equal(ctx.why,
			    "unable to move the mount /sysroot to /run/earlymount/lower: Invalid argument");
}

static void test_mkdir_modes(void **state)
{
	struct plan_step s = step(OP_MKDIR, "", "/run/earlymount/upper/w", "", "");

	s.mode = 01777;
	rec.mkdir_errno = 0;
	assert_int_equal(execute_step(&s, &ctx), 0);
	assert_int_equal(rec.n_mkdirs, 4);
	assert_string_equal(rec.mkdirs[0], "/run");
	assert_int_equal(rec.modes[0], 0755);
	assert_string_equal(rec.mkdirs[3], "/run/earlymount/upper/w");
	assert_int_equal(rec.modes[3], 01777);
}

static void test_symlink(void **state)
{
	struct plan_step s = step(OP_SYMLINK, "usr/lib", "/sysroot/lib", "", "");

	expect_string(__wrap_symlink, path, "/sysroot/lib");
	expect_string(__wrap_symlink, target, "usr/lib");
	will_return(__wrap_symlink, EEXIST);
	assert_int_equal(execute_step(&s, &ctx), 0);
	expect_string(__wrap_symlink, path, "/sysroot/lib");
	expect_string(__wrap_symlink, target, "usr/lib");
	will_return(__wrap_symlink, EROFS);
	assert_int_equal(execute_step(&s, &ctx), -EROFS);
	assert_string_equal(ctx.why,
			    "unable to create the symlink /sysroot/lib -> usr/lib: Read-only file system");
}

static void test_swapon_failure_is_the_steps_to_judge(void **state)
{
	struct plan_step s = step(OP_SWAPON, "PARTUUID=11111111-2222-3333-4444-555555555555", "",
				  "", "");

	expect_string(__wrap_swapon, path, "/dev/vda2");
	will_return(__wrap_swapon, 0);
	assert_int_equal(execute_step(&s, &ctx), 0);
	expect_string(__wrap_swapon, path, "/dev/vda2");
	will_return(__wrap_swapon, EINVAL);
	assert_int_equal(execute_step(&s, &ctx), -EINVAL);
	/* The planner marks swap optional: then the boot goes on. */
	s.optional = true;
	expect_string(__wrap_swapon, path, "/dev/vda2");
	will_return(__wrap_swapon, EINVAL);
	assert_int_equal(execute_step(&s, &ctx), 0);
	assert_string_equal(ctx.why, "");
	s = step(OP_SWAPON, "LABEL=none", "", "", "");
	s.optional = true;
	assert_int_equal(execute_step(&s, &ctx), 0);
}

static void test_optional_mount_failure_is_a_warning(void **state)
{
	struct plan_step s = step(OP_MOUNT, "/dev/vda1", "/sysroot/boot", "vfat", "ro");

	s.optional = true;
	expect_mount("/dev/vda1", "/sysroot/boot", "vfat", MS_RDONLY, "(null)", EINVAL);
	assert_int_equal(execute_step(&s, &ctx), 0);
	assert_string_equal(ctx.why, "");
}

static void test_umount(void **state)
{
	struct plan_step s = step(OP_UMOUNT, "", "/sysroot", "", "");

	expect_string(__wrap_umount2, target, "/sysroot");
	will_return(__wrap_umount2, 0);
	assert_int_equal(execute_step(&s, &ctx), 0);
	expect_string(__wrap_umount2, target, "/sysroot");
	will_return(__wrap_umount2, EBUSY);
	assert_int_equal(execute_step(&s, &ctx), -EBUSY);
	assert_string_equal(ctx.why, "unable to unmount /sysroot: Device or resource busy");
}

static void test_steps_stop_at_first_failure(void **state)
{
	struct plan_step steps[3] = {
		step(OP_TMPFS, "", "/a", "", ""),
		step(OP_TMPFS, "", "/b", "", ""),
		step(OP_TMPFS, "", "/c", "", ""),
	};

	expect_mount("tmpfs", "/b", "tmpfs", 0, "(null)", ENOSPC);
	assert_int_equal(execute_steps(steps, 1, 3, &ctx), -ENOSPC);
	assert_non_null(strstr(ctx.why, "unable to mount tmpfs (tmpfs) on /b"));
	assert_int_equal(execute_steps(steps, 3, 3, &ctx), 0);
}

static void test_unknown_op(void **state)
{
	struct plan_step s = step(OP_MAX, "", "/x", "", "");

	assert_int_equal(execute_step(&s, &ctx), -EINVAL);
	assert_non_null(strstr(ctx.why, "unknown plan step"));
}

static void test_filesystems_text(void **state)
{
	static const char text[] = "nodev\tsysfs\nnodev\ttmpfs\n\text4\n\tvfat\nnodev\toverlay\n";

	assert_true(filesystems_text_has(text, "ext4"));
	assert_true(filesystems_text_has(text, "overlay"));
	assert_true(filesystems_text_has(text, "tmpfs"));
	assert_false(filesystems_text_has(text, "ext"));
	assert_false(filesystems_text_has(text, "xfs"));
	assert_false(filesystems_text_has(text, "nodev"));
	assert_false(filesystems_text_has("", "ext4"));
}

/* ---- the skeleton, on a real directory: its ops use the *at() calls, which are not wrapped */

static char skel_root[PLAN_PATH];

static const char *at_root(const char *rel)
{
	static char buf[8][2 * PLAN_PATH];
	static unsigned next;
	char *out = buf[next++ % 8];

	snprintf(out, 2 * PLAN_PATH, "%s/%s", skel_root, rel);
	return out;
}

static void mkdir_real(const char *rel)
{
	assert_int_equal(mkdirat(AT_FDCWD, at_root(rel), 0755), 0);
}

static void write_real(const char *rel, const char *text)
{
	int fd = openat(AT_FDCWD, at_root(rel), O_WRONLY | O_CREAT | O_TRUNC, 0640);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void assert_file_text(const char *rel, const char *text)
{
	char buf[256] = "";
	int fd = openat(AT_FDCWD, at_root(rel), O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	assert_string_equal(buf, text);
}

static void assert_link(const char *rel, const char *text)
{
	char buf[PLAN_PATH];
	ssize_t n = readlinkat(AT_FDCWD, at_root(rel), buf, sizeof(buf) - 1);

	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, text);
}

static unsigned mode_of(const char *rel)
{
	struct stat st;

	assert_int_equal(lstat(at_root(rel), &st), 0);
	return st.st_mode & 07777;
}

static bool exists(const char *rel)
{
	struct stat st;

	return lstat(at_root(rel), &st) == 0;
}

static int skel_setup(void **state)
{
	snprintf(skel_root, sizeof(skel_root), "%s/em-skel.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(skel_root))
		return -1;
	umask(022);
	return reset(state);
}

static int skel_teardown(void **state)
{
	char cmd[PLAN_PATH * 2];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", skel_root);
	(void)state;
	return system(cmd) == 0 ? 0 : -1;
}

/* A step on the skeleton directory, as the planner writes them for /sysroot. */
static struct plan_step skel_step(enum plan_op op, const char *source, const char *target,
				  unsigned mode)
{
	struct plan_step s = step(op, op == OP_POPULATE ? at_root(source) : source,
				  at_root(target), "", "");

	s.mode = mode;
	return s;
}

static void run_skeleton(void)
{
	struct plan_step steps[] = {
		skel_step(OP_POPULATE, "usr/share/factory/etc", "etc", 0),
		skel_step(OP_SKEL_DIR, "", "etc", 0755),
		skel_step(OP_POPULATE, "usr/share/factory/var", "var", 0),
		skel_step(OP_SKEL_DIR, "", "var", 0755),
		skel_step(OP_SKEL_DIR, "", "run", 0755),
		skel_step(OP_SKEL_DIR, "", "tmp", 01777),
		skel_step(OP_SKEL_DIR, "", "var/tmp", 01777),
		skel_step(OP_SKEL_DIR, "", "root", 0700),
		skel_step(OP_SKEL_LINK, "usr/bin", "bin", 0),
		skel_step(OP_SKEL_LINK, "usr/sbin", "sbin", 0),
		skel_step(OP_SKEL_LINK, "usr/bin", "sbin", 0),
		skel_step(OP_SKEL_LINK, "usr/lib", "lib", 0),
		skel_step(OP_SKEL_LINK, "usr/lib64", "lib64", 0),
		skel_step(OP_SKEL_LINK, "../run", "var/run", 0),
	};

	assert_int_equal(execute_steps(steps, 0, ARRAY_SIZE(steps), &ctx), 0);
}

static void make_usr(bool with_sbin)
{
	mkdir_real("usr");
	mkdir_real("usr/bin");
	mkdir_real("usr/lib");
	if (with_sbin)
		mkdir_real("usr/sbin");
	mkdir_real("usr/share");
	mkdir_real("usr/share/factory");
	mkdir_real("usr/share/factory/etc");
	mkdir_real("usr/share/factory/etc/sub");
	write_real("usr/share/factory/etc/hostname", "factory\n");
	write_real("usr/share/factory/etc/sub/deep", "deep\n");
	assert_int_equal(symlinkat("hostname", AT_FDCWD, at_root("usr/share/factory/etc/name")), 0);
	assert_int_equal(fchmodat(AT_FDCWD, at_root("usr/share/factory/etc/sub"), 0750, 0), 0);
}

static void test_skeleton_on_a_fresh_root(void **state)
{
	make_usr(false);
	run_skeleton();
	assert_file_text("etc/hostname", "factory\n");
	assert_file_text("etc/sub/deep", "deep\n");
	assert_int_equal(mode_of("etc/hostname"), 0640);
	assert_int_equal(mode_of("etc/sub"), 0750);
	assert_link("etc/name", "hostname");
	/* No factory /var: an empty one, with the umask kept off the sticky directories. */
	assert_int_equal(mode_of("var"), 0755);
	assert_int_equal(mode_of("tmp"), 01777);
	assert_int_equal(mode_of("var/tmp"), 01777);
	assert_int_equal(mode_of("root"), 0700);
	assert_link("bin", "usr/bin");
	/* /usr has no sbin: /sbin points at usr/bin; /usr has no lib64: no /lib64. */
	assert_link("sbin", "usr/bin");
	assert_link("lib", "usr/lib");
	assert_false(exists("lib64"));
	assert_link("var/run", "../run");
	(void)state;
}

static void test_skeleton_sbin_and_lib64_follow_usr(void **state)
{
	make_usr(true);
	mkdir_real("usr/lib64");
	run_skeleton();
	assert_link("sbin", "usr/sbin");
	assert_link("lib64", "usr/lib64");
	(void)state;
}

static void test_skeleton_never_overwrites(void **state)
{
	make_usr(true);
	mkdir_real("etc");
	write_real("etc/hostname", "mine\n");
	mkdir_real("bin");
	mkdir_real("tmp");
	mkdir_real("var");
	write_real("var/run", "not a link\n");
	run_skeleton();
	assert_file_text("etc/hostname", "mine\n");
	/* A non-empty /etc is the admin's: nothing is added to it. */
	assert_false(exists("etc/sub"));
	assert_int_equal(mode_of("bin"), 0755);
	assert_int_equal(mode_of("tmp"), 0755);
	assert_file_text("var/run", "not a link\n");
	assert_link("sbin", "usr/sbin");
	(void)state;
}

static void test_populate_fills_an_empty_mount_point(void **state)
{
	struct plan_step s = skel_step(OP_POPULATE, "usr/share/factory/etc", "etc", 0);

	make_usr(false);
	mkdir_real("etc");
	assert_int_equal(execute_step(&s, &ctx), 0);
	assert_file_text("etc/sub/deep", "deep\n");
	(void)state;
}

/* The skeleton helps the real init; what it cannot make is a warning, never a failed boot. */
static void test_skeleton_failures_are_warnings(void **state)
{
	struct plan_step steps[] = {
		skel_step(OP_SKEL_DIR, "", "file/tmp", 01777),
		skel_step(OP_SKEL_LINK, "", "file/bin", 0),
		skel_step(OP_POPULATE, "factory", "file/etc", 0),
	};

	/* Under a regular file nothing can be made, even by root. */
	write_real("file", "x\n");
	mkdir_real("factory");
	write_real("factory/a", "a\n");
	mkdir_real("usr");
	mkdir_real("usr/bin");
	COPY_STR(steps[1].source, at_root("usr/bin"));
	assert_int_equal(execute_steps(steps, 0, ARRAY_SIZE(steps), &ctx), 0);
	assert_false(exists("file/tmp"));
	assert_false(exists("file/bin"));
	assert_false(exists("file/etc"));
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_mount_partition, reset),
		cmocka_unit_test_setup(test_mount_spec_looked_up, reset),
		cmocka_unit_test_setup(test_mount_path_as_is, reset),
		cmocka_unit_test_setup(test_mount_fails_with_advice, reset),
		cmocka_unit_test_setup(test_mount_unknown_source, reset),
		cmocka_unit_test_setup(test_mount_without_fstype, reset),
		cmocka_unit_test_setup(test_mount_point_cannot_be_made, reset),
		cmocka_unit_test_setup(test_tmpfs_and_overlay, reset),
		cmocka_unit_test_setup(test_bind_read_only, reset),
		cmocka_unit_test_setup(test_move, reset),
		cmocka_unit_test_setup(test_mkdir_modes, reset),
		cmocka_unit_test_setup(test_symlink, reset),
		cmocka_unit_test_setup(test_swapon_failure_is_the_steps_to_judge, reset),
		cmocka_unit_test_setup(test_optional_mount_failure_is_a_warning, reset),
		cmocka_unit_test_setup(test_umount, reset),
		cmocka_unit_test_setup(test_steps_stop_at_first_failure, reset),
		cmocka_unit_test_setup(test_unknown_op, reset),
		cmocka_unit_test(test_filesystems_text),
		cmocka_unit_test_setup_teardown(test_skeleton_on_a_fresh_root, skel_setup, skel_teardown),
		cmocka_unit_test_setup_teardown(test_skeleton_sbin_and_lib64_follow_usr, skel_setup,
						skel_teardown),
		cmocka_unit_test_setup_teardown(test_skeleton_never_overwrites, skel_setup, skel_teardown),
		cmocka_unit_test_setup_teardown(test_populate_fills_an_empty_mount_point, skel_setup,
						skel_teardown),
		cmocka_unit_test_setup_teardown(test_skeleton_failures_are_warnings, skel_setup,
						skel_teardown),
	};

	log_set_max_level(LOG_ERR);
	return cmocka_run_group_tests(tests, disks_setup, disks_teardown);
}
