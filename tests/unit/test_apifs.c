/* apifs: the table walk. stat/mkdir/mount/symlink are wrapped over a tiny fake filesystem:
 * a path's st_dev is that of the longest mounted prefix, so "already mounted" is real logic. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "apifs.h"
#include "log.h"

#define MAX_FAKE 32

static struct {
	char mounted[MAX_FAKE][64];
	size_t n_mounted;
	char missing[MAX_FAKE][64];
	size_t n_missing;
} fake;

static void fake_mounted(const char *path)
{
	strcpy(fake.mounted[fake.n_mounted++], path);
}

static void fake_missing(const char *path)
{
	strcpy(fake.missing[fake.n_missing++], path);
}

static bool fake_is_missing(const char *path)
{
	for (size_t i = 0; i < fake.n_missing; i++)
		if (strcmp(fake.missing[i], path) == 0)
			return true;
	return false;
}

static dev_t fake_dev(const char *path)
{
	size_t best = 0;
	dev_t dev = 1;

	for (size_t i = 0; i < fake.n_mounted; i++) {
		size_t n = strlen(fake.mounted[i]);

		if (strncmp(path, fake.mounted[i], n) == 0 && (path[n] == '\0' || path[n] == '/') &&
		    n > best) {
			best = n;
			dev = (dev_t)(i + 2);
		}
	}
	return dev;
}

int __wrap_stat(const char *path, struct stat *st)
{
	if (fake_is_missing(path)) {
		errno = ENOENT;
		return -1;
	}
	memset(st, 0, sizeof(*st));
	st->st_dev = fake_dev(path);
	st->st_mode = S_IFDIR | 0755;
	return 0;
}

int __wrap_mkdir(const char *path, mode_t mode)
{
	check_expected(path);
	assert_int_equal(mode, 0755);
	for (size_t i = 0; i < fake.n_missing; i++)
		if (strcmp(fake.missing[i], path) == 0)
			fake.missing[i][0] = '\0';
	return 0;
}

int __wrap_mount(const char *source, const char *target, const char *fstype,
		 unsigned long flags, const void *data)
{
	const char *options = data ? data : "(none)";
	int err;

	check_expected(target);
	check_expected(fstype);
	check_expected(options);
	check_expected(flags);
	assert_string_equal(source, fstype);
	err = mock_type(int);
	if (err) {
		errno = err;
		return -1;
	}
	fake_mounted(target);
	return 0;
}

int __wrap_symlink(const char *target, const char *path)
{
	check_expected(path);
	check_expected(target);
	errno = mock_type(int);
	return errno ? -1 : 0;
}

#define NOSUID_NOEXEC_NODEV (MS_NOSUID | MS_NOEXEC | MS_NODEV)

static void expect_mount(const char *target, const char *fstype, const char *options,
			 unsigned long flags, int err)
{
	expect_string(__wrap_mount, target, target);
	expect_string(__wrap_mount, fstype, fstype);
	expect_string(__wrap_mount, options, options);
	expect_value(__wrap_mount, flags, flags);
	will_return(__wrap_mount, err);
}

static int fake_reset(void **state)
{
	memset(&fake, 0, sizeof(fake));
	fake_missing("/sys/firmware/efi"); /* not an EFI boot unless a test says so */
	return 0;
}

static void expect_proc_sys_dev(void)
{
	expect_mount("/proc", "proc", "(none)", NOSUID_NOEXEC_NODEV, 0);
	expect_mount("/sys", "sysfs", "(none)", NOSUID_NOEXEC_NODEV, 0);
	expect_mount("/dev", "devtmpfs", "mode=0755,size=4m", MS_NOSUID | MS_STRICTATIME, 0);
}

static void expect_after_dev(void)
{
	expect_mount("/sys/kernel/security", "securityfs", "(none)", NOSUID_NOEXEC_NODEV, 0);
	expect_mount("/dev/shm", "tmpfs", "mode=01777", MS_NOSUID | MS_NODEV | MS_STRICTATIME, 0);
	expect_mount("/dev/pts", "devpts", "mode=0620,gid=5", MS_NOSUID | MS_NOEXEC, 0);
	expect_mount("/run", "tmpfs", "mode=0755,size=20%,nr_inodes=800k",
		     MS_NOSUID | MS_NODEV | MS_STRICTATIME, 0);
	expect_mount("/sys/fs/cgroup", "cgroup2", "nsdelegate,memory_recursiveprot",
		     NOSUID_NOEXEC_NODEV, 0);
	expect_mount("/sys/fs/bpf", "bpf", "mode=0700", NOSUID_NOEXEC_NODEV, 0);
}

static void test_fresh_system(void **state)
{
	char why[128] = "";

	expect_proc_sys_dev();
	expect_after_dev();
	assert_int_equal(apifs_mount_table(apifs_table, apifs_table_size, why, sizeof(why)), 0);
	assert_string_equal(why, "");
}

static void test_skips_what_is_mounted(void **state)
{
	fake_mounted("/proc");
	fake_mounted("/dev"); /* CONFIG_DEVTMPFS_MOUNT */
	fake_mounted("/sys");
	fake_mounted("/sys/fs/cgroup");
	expect_mount("/sys/kernel/security", "securityfs", "(none)", NOSUID_NOEXEC_NODEV, 0);
	expect_mount("/dev/shm", "tmpfs", "mode=01777", MS_NOSUID | MS_NODEV | MS_STRICTATIME, 0);
	expect_mount("/dev/pts", "devpts", "mode=0620,gid=5", MS_NOSUID | MS_NOEXEC, 0);
	expect_mount("/run", "tmpfs", "mode=0755,size=20%,nr_inodes=800k",
		     MS_NOSUID | MS_NODEV | MS_STRICTATIME, 0);
	expect_mount("/sys/fs/bpf", "bpf", "mode=0700", NOSUID_NOEXEC_NODEV, 0);
	assert_int_equal(apifs_mount_table(apifs_table, apifs_table_size, NULL, 0), 0);
}

static void test_makes_missing_mount_points(void **state)
{
	fake_missing("/run");
	fake_missing("/dev/shm");
	expect_proc_sys_dev();
	expect_mount("/sys/kernel/security", "securityfs", "(none)", NOSUID_NOEXEC_NODEV, 0);
	expect_string(__wrap_mkdir, path, "/dev/shm");
	expect_mount("/dev/shm", "tmpfs", "mode=01777", MS_NOSUID | MS_NODEV | MS_STRICTATIME, 0);
	expect_mount("/dev/pts", "devpts", "mode=0620,gid=5", MS_NOSUID | MS_NOEXEC, 0);
	expect_string(__wrap_mkdir, path, "/run");
	expect_mount("/run", "tmpfs", "mode=0755,size=20%,nr_inodes=800k",
		     MS_NOSUID | MS_NODEV | MS_STRICTATIME, 0);
	expect_mount("/sys/fs/cgroup", "cgroup2", "nsdelegate,memory_recursiveprot",
		     NOSUID_NOEXEC_NODEV, 0);
	expect_mount("/sys/fs/bpf", "bpf", "mode=0700", NOSUID_NOEXEC_NODEV, 0);
	assert_int_equal(apifs_mount_table(apifs_table, apifs_table_size, NULL, 0), 0);
}

static void test_optional_failures_continue(void **state)
{
	char why[128] = "";

	expect_proc_sys_dev();
	expect_mount("/sys/kernel/security", "securityfs", "(none)", NOSUID_NOEXEC_NODEV, ENODEV);
	expect_mount("/dev/shm", "tmpfs", "mode=01777", MS_NOSUID | MS_NODEV | MS_STRICTATIME, 0);
	expect_mount("/dev/pts", "devpts", "mode=0620,gid=5", MS_NOSUID | MS_NOEXEC, ENODEV);
	expect_mount("/run", "tmpfs", "mode=0755,size=20%,nr_inodes=800k",
		     MS_NOSUID | MS_NODEV | MS_STRICTATIME, 0);
	expect_mount("/sys/fs/cgroup", "cgroup2", "nsdelegate,memory_recursiveprot",
		     NOSUID_NOEXEC_NODEV, 0);
	expect_mount("/sys/fs/bpf", "bpf", "mode=0700", NOSUID_NOEXEC_NODEV, EPERM);
	assert_int_equal(apifs_mount_table(apifs_table, apifs_table_size, why, sizeof(why)), 0);
	assert_string_equal(why, "");
}

static void test_required_failure(void **state)
{
	char why[128] = "";

	expect_mount("/proc", "proc", "(none)", NOSUID_NOEXEC_NODEV, 0);
	expect_mount("/sys", "sysfs", "(none)", NOSUID_NOEXEC_NODEV, 0);
	expect_mount("/dev", "devtmpfs", "mode=0755,size=4m", MS_NOSUID | MS_STRICTATIME, ENODEV);
	expect_after_dev();
	assert_int_equal(apifs_mount_table(apifs_table, apifs_table_size, why, sizeof(why)),
			 -ENODEV);
	assert_string_equal(why, "unable to mount devtmpfs on /dev: No such device");
}

static void test_cgroup2_falls_back(void **state)
{
	const struct apifs_entry *cg = NULL;

	for (size_t i = 0; i < apifs_table_size; i++)
		if (strcmp(apifs_table[i].fstype, "cgroup2") == 0)
			cg = &apifs_table[i];
	assert_non_null(cg);
	expect_mount("/sys/fs/cgroup", "cgroup2", "nsdelegate,memory_recursiveprot",
		     NOSUID_NOEXEC_NODEV, EINVAL);
	expect_mount("/sys/fs/cgroup", "cgroup2", "nsdelegate", NOSUID_NOEXEC_NODEV, EINVAL);
	expect_mount("/sys/fs/cgroup", "cgroup2", "(none)", NOSUID_NOEXEC_NODEV, 0);
	assert_int_equal(apifs_mount_table(cg, 1, NULL, 0), 0);
}

static void test_cgroup2_every_option_refused(void **state)
{
	const struct apifs_entry *cg = NULL;
	char why[128];

	for (size_t i = 0; i < apifs_table_size; i++)
		if (strcmp(apifs_table[i].fstype, "cgroup2") == 0)
			cg = &apifs_table[i];
	expect_mount("/sys/fs/cgroup", "cgroup2", "nsdelegate,memory_recursiveprot",
		     NOSUID_NOEXEC_NODEV, EINVAL);
	expect_mount("/sys/fs/cgroup", "cgroup2", "nsdelegate", NOSUID_NOEXEC_NODEV, EINVAL);
	expect_mount("/sys/fs/cgroup", "cgroup2", "(none)", NOSUID_NOEXEC_NODEV, ENODEV);
	assert_int_equal(apifs_mount_table(cg, 1, why, sizeof(why)), -ENODEV);
	assert_string_equal(why, "unable to mount cgroup2 on /sys/fs/cgroup: No such device");
}

static void test_efivarfs_on_efi_boots(void **state)
{
	fake.n_missing = 0; /* /sys/firmware/efi exists */
	expect_proc_sys_dev();
	expect_mount("/sys/kernel/security", "securityfs", "(none)", NOSUID_NOEXEC_NODEV, 0);
	expect_mount("/dev/shm", "tmpfs", "mode=01777", MS_NOSUID | MS_NODEV | MS_STRICTATIME, 0);
	expect_mount("/dev/pts", "devpts", "mode=0620,gid=5", MS_NOSUID | MS_NOEXEC, 0);
	expect_mount("/run", "tmpfs", "mode=0755,size=20%,nr_inodes=800k",
		     MS_NOSUID | MS_NODEV | MS_STRICTATIME, 0);
	expect_mount("/sys/fs/cgroup", "cgroup2", "nsdelegate,memory_recursiveprot",
		     NOSUID_NOEXEC_NODEV, 0);
	/* a module in Debian's kernels: ENODEV now, mounted again after the modules stage */
	expect_mount("/sys/firmware/efi/efivars", "efivarfs", "(none)", NOSUID_NOEXEC_NODEV, ENODEV);
	expect_mount("/sys/fs/bpf", "bpf", "mode=0700", NOSUID_NOEXEC_NODEV, 0);
	assert_int_equal(apifs_mount_table(apifs_table, apifs_table_size, NULL, 0), 0);

	expect_mount("/sys/firmware/efi/efivars", "efivarfs", "(none)", NOSUID_NOEXEC_NODEV, 0);
	assert_int_equal(apifs_mount_one("/sys/firmware/efi/efivars"), 0);
	assert_int_equal(apifs_mount_one("/sys/firmware/efi/efivars"), 0); /* now mounted: skipped */
	assert_int_equal(apifs_mount_one("/nowhere"), -ENOENT);
}

static void test_mount_point_detection(void **state)
{
	fake_mounted("/sys");
	assert_true(apifs_is_mount_point("/sys"));
	assert_false(apifs_is_mount_point("/sys/kernel"));
	assert_false(apifs_is_mount_point("/run"));
	fake_missing("/gone");
	assert_false(apifs_is_mount_point("/gone"));
	assert_false(apifs_is_mount_point("relative"));
}

static void expect_link(const char *path, const char *target, int err)
{
	expect_string(__wrap_symlink, path, path);
	expect_string(__wrap_symlink, target, target);
	will_return(__wrap_symlink, err);
}

static void test_links(void **state)
{
	expect_link("/dev/fd", "/proc/self/fd", 0);
	expect_link("/dev/stdin", "/proc/self/fd/0", EEXIST);
	expect_link("/dev/stdout", "/proc/self/fd/1", 0);
	expect_link("/dev/stderr", "/proc/self/fd/2", EROFS);
	apifs_make_links();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_fresh_system, fake_reset),
		cmocka_unit_test_setup(test_skips_what_is_mounted, fake_reset),
		cmocka_unit_test_setup(test_makes_missing_mount_points, fake_reset),
		cmocka_unit_test_setup(test_optional_failures_continue, fake_reset),
		cmocka_unit_test_setup(test_required_failure, fake_reset),
		cmocka_unit_test_setup(test_cgroup2_falls_back, fake_reset),
		cmocka_unit_test_setup(test_cgroup2_every_option_refused, fake_reset),
		cmocka_unit_test_setup(test_efivarfs_on_efi_boots, fake_reset),
		cmocka_unit_test_setup(test_mount_point_detection, fake_reset),
		cmocka_unit_test_setup(test_links, fake_reset),
	};

	log_set_max_level(LOG_ERR); /* the warnings are expected */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
