/* lib/path.c and lib/name_list.c: joined names, programs found on $PATH, lists of names. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#include "name_list.h"
#include "path.h"

static void test_join(void **state)
{
	char out[8];

	assert_int_equal(path_join(out, sizeof(out), "/a", "b"), 0);
	assert_string_equal(out, "/a/b");
	assert_int_equal(path_join(out, sizeof(out), "/abc", "def"), -ENAMETOOLONG);
	(void)state;
}

static void make_program(const char *dir, const char *name, mode_t mode)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, mode);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

static void test_find_program(void **state)
{
	char a[] = "/tmp/path-a-XXXXXX", b[] = "/tmp/path-b-XXXXXX";
	char env[2 * sizeof(a) + 2], want[PATH_MAX], out[PATH_MAX], cmd[2 * sizeof(a) + 16];
	const char *saved = getenv("PATH");
	char *old = saved ? strdup(saved) : NULL;

	assert_non_null(mkdtemp(a));
	assert_non_null(mkdtemp(b));
	make_program(a, "plain", 0644); /* not executable: passed over */
	make_program(b, "plain", 0755);
	make_program(b, "extra", 0755);
	snprintf(env, sizeof(env), "%s:%s", a, b);
	setenv("PATH", env, 1);
	assert_int_equal(path_find_program("plain", NULL, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "%s/plain", b);
	assert_string_equal(out, want);
	assert_int_equal(path_find_program("missing", NULL, out, sizeof(out)), -ENOENT);
	/* the extra directories come after $PATH */
	setenv("PATH", a, 1);
	assert_int_equal(path_find_program("extra", NULL, out, sizeof(out)), -ENOENT);
	assert_int_equal(path_find_program("extra", b, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "%s/extra", b);
	assert_string_equal(out, want);
	if (old)
		setenv("PATH", old, 1);
	free(old);
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", a, b);
	assert_int_equal(system(cmd), 0);
	(void)state;
}

static void test_name_list(void **state)
{
	struct name_list list = { 0 };

	assert_false(name_list_has(&list, "a"));
	assert_int_equal(name_list_add(&list, "a"), 0);
	assert_int_equal(name_list_add(&list, "b"), 0);
	assert_int_equal(list.n, 2);
	assert_true(name_list_has(&list, "b"));
	assert_false(name_list_has(&list, "c"));
	name_list_free(&list);
	assert_int_equal(list.n, 0);
	assert_null(list.names);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_find_program),
		cmocka_unit_test(test_name_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
