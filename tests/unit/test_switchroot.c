/* switchroot: the checks before the handoff, as pure functions over facts, and init lookup
 * inside a real temporary tree (openat2 RESOLVE_IN_ROOT needs no privileges). */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"
#include "plan.h"
#include "switchroot.h"

static const struct switchroot_facts good = {
	.pid = 1,
	.root_fs_magic = (long)RAMFS_MAGIC,
	.root_dev = 1,
	.newroot_dev = 2,
	.newroot_exists = true,
};

static void test_facts_good(void **state)
{
	struct switchroot_facts f = good;
	char why[SWITCHROOT_WHY] = "";

	assert_int_equal(switchroot_check_facts(&f, "/sysroot", why, sizeof(why)), 0);
	f.root_fs_magic = (long)TMPFS_MAGIC;
	assert_int_equal(switchroot_check_facts(&f, "/sysroot", why, sizeof(why)), 0);
	assert_string_equal(why, "");
}

static void test_facts_not_pid1(void **state)
{
	struct switchroot_facts f = good;
	char why[SWITCHROOT_WHY];

	f.pid = 42;
	assert_int_equal(switchroot_check_facts(&f, "/sysroot", why, sizeof(why)), -EPERM);
	assert_string_equal(why, "not switching to /sysroot: earlymount is not PID 1 (pid 42)");
}

static void test_facts_root_not_initramfs(void **state)
{
	struct switchroot_facts f = good;
	char why[SWITCHROOT_WHY];

	f.root_fs_magic = (long)EXT4_SUPER_MAGIC;
	assert_int_equal(switchroot_check_facts(&f, "/sysroot", why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "is not an initramfs"));
}

static void test_facts_newroot_not_mounted(void **state)
{
	struct switchroot_facts f = good;
	char why[SWITCHROOT_WHY];

	f.newroot_dev = f.root_dev;
	assert_int_equal(switchroot_check_facts(&f, "/sysroot", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "not switching to /sysroot: nothing is mounted there — the root "
				 "was not mounted");
	f = good;
	f.newroot_exists = false;
	assert_int_equal(switchroot_check_facts(&f, "/sysroot", why, sizeof(why)), -EINVAL);
}

static void test_mode_runnable(void **state)
{
	assert_true(switchroot_mode_runnable(S_IFREG | 0755));
	assert_true(switchroot_mode_runnable(S_IFREG | 0100));
	assert_true(switchroot_mode_runnable(S_IFREG | 0001));
	assert_false(switchroot_mode_runnable(S_IFREG | 0644));
	assert_false(switchroot_mode_runnable(S_IFDIR | 0755));
	assert_false(switchroot_mode_runnable(S_IFLNK | 0777));
}

static char root[64];
static int root_fd = -1;

static void make_file(const char *rel, mode_t mode)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	assert_true(fd >= 0);
	close(fd);
	chmod(path, mode);
}

static void make_dir(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static void make_link(const char *rel, const char *target)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(symlink(target, path), 0);
}

static int tree_setup(void **state)
{
	strcpy(root, "/tmp/test_switchroot.XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int tree_teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

/* Each test gets an empty new root. */
static int tree_reset(void **state)
{
	tree_teardown(state);
	mkdir(root, 0755);
	make_dir("sbin");
	make_dir("etc");
	make_dir("bin");
	make_dir("lib");
	make_dir("lib/systemd");
	root_fd = open(root, O_PATH | O_DIRECTORY);
	return root_fd >= 0 ? 0 : -1;
}

static int tree_close(void **state)
{
	close(root_fd);
	return 0;
}

static void test_absolute_symlink_resolves_inside(void **state)
{
	char init[PLAN_PATH], why[SWITCHROOT_WHY] = "";

	make_file("lib/systemd/systemd", 0755);
	make_link("sbin/init", "/lib/systemd/systemd");
	assert_int_equal(switchroot_find_init(root_fd, NULL, plan_default_inits, init, sizeof(init),
					      why, sizeof(why)),
			 0);
	assert_string_equal(init, "/sbin/init");
}

static void test_symlink_cannot_escape(void **state)
{
	char init[PLAN_PATH], why[SWITCHROOT_WHY];

	/* on the host these lead to a real /bin/sh; inside the new root they lead nowhere */
	make_link("sbin/init", "../../../../../../bin/sh");
	make_link("bin/init", "/bin/sh");
	assert_int_equal(switchroot_find_init(root_fd, NULL, plan_default_inits, init, sizeof(init),
					      why, sizeof(why)),
			 -ENOENT);
	assert_string_equal(why, "no init in the new root: tried /sbin/init, /etc/init, /bin/init, "
				 "/bin/sh — give init=");
}

static void test_fallbacks_in_order(void **state)
{
	char init[PLAN_PATH], why[SWITCHROOT_WHY];

	make_file("sbin/init", 0644); /* not executable */
	make_dir("etc/init");         /* a directory */
	make_file("bin/sh", 0755);
	assert_int_equal(switchroot_find_init(root_fd, "", plan_default_inits, init, sizeof(init),
					      why, sizeof(why)),
			 0);
	assert_string_equal(init, "/bin/sh");
	make_file("bin/init", 0700);
	assert_int_equal(switchroot_find_init(root_fd, NULL, plan_default_inits, init, sizeof(init),
					      why, sizeof(why)),
			 0);
	assert_string_equal(init, "/bin/init");
}

static void test_explicit_init_has_no_fallback(void **state)
{
	static const char *const none[] = { NULL };
	char init[PLAN_PATH] = "", why[SWITCHROOT_WHY];

	make_file("bin/sh", 0755);
	assert_int_equal(switchroot_find_init(root_fd, "/usr/lib/systemd/systemd", none, init,
					      sizeof(init), why, sizeof(why)),
			 -ENOENT);
	assert_string_equal(why, "init=/usr/lib/systemd/systemd cannot be run in the new root: No "
				 "such file or directory — fix init= or drop it to try the usual "
				 "places");
	make_file("lib/systemd/systemd", 0644);
	assert_int_equal(switchroot_find_init(root_fd, "/lib/systemd/systemd", none, init,
					      sizeof(init), why, sizeof(why)),
			 -EACCES);
	assert_int_equal(switchroot_find_init(root_fd, "/bin/sh", none, init, sizeof(init), why,
					      sizeof(why)),
			 0);
	assert_string_equal(init, "/bin/sh");
}

static void test_check_refuses_outside_pid1(void **state)
{
	char init[PLAN_PATH], why[SWITCHROOT_WHY];

	assert_int_equal(switchroot_check(root, NULL, init, sizeof(init), why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "is not PID 1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_facts_good),
		cmocka_unit_test(test_facts_not_pid1),
		cmocka_unit_test(test_facts_root_not_initramfs),
		cmocka_unit_test(test_facts_newroot_not_mounted),
		cmocka_unit_test(test_mode_runnable),
		cmocka_unit_test_setup_teardown(test_absolute_symlink_resolves_inside, tree_reset, tree_close),
		cmocka_unit_test_setup_teardown(test_symlink_cannot_escape, tree_reset, tree_close),
		cmocka_unit_test_setup_teardown(test_fallbacks_in_order, tree_reset, tree_close),
		cmocka_unit_test_setup_teardown(test_explicit_init_has_no_fallback, tree_reset, tree_close),
		cmocka_unit_test_setup_teardown(test_check_refuses_outside_pid1, tree_reset, tree_close),
	};

	log_set_max_level(LOG_ERR);
	return cmocka_run_group_tests(tests, tree_setup, tree_teardown);
}
