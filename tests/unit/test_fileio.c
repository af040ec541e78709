/* lib/fileio.c: whole writes, copies between descriptors, mkdir -p. */
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

#include "fileio.h"

static void test_write_all_and_copy(void **state)
{
	char in_path[] = "/tmp/fileio-in-XXXXXX", out_path[] = "/tmp/fileio-out-XXXXXX";
	static char big[200000], back[sizeof(big)];
	int in = mkstemp(in_path), out = mkstemp(out_path);

	assert_true(in >= 0 && out >= 0);
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7);
	assert_int_equal(write_all(in, big, sizeof(big)), 0);
	assert_int_equal(lseek(in, 0, SEEK_SET), 0);
	/* more than copy_fd's buffer: several rounds */
	assert_int_equal(copy_fd(in, out), 0);
	assert_int_equal(pread(out, back, sizeof(back), 0), (ssize_t)sizeof(back));
	assert_memory_equal(big, back, sizeof(big));
	close(in);
	close(out);
	unlink(in_path);
	unlink(out_path);
	(void)state;
}

static void test_write_all_says_why(void **state)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(write_all(fd, "x", 1), -EBADF);
	close(fd);
	assert_int_equal(write_all(-1, "x", 1), -EBADF);
	assert_int_equal(copy_fd(-1, 1), -EBADF);
	(void)state;
}

static void test_make_directories(void **state)
{
	char top[] = "/tmp/fileio-dirs-XXXXXX";
	char path[PATH_MAX], file[PATH_MAX + 8];
	struct stat st;
	int fd;

	assert_non_null(mkdtemp(top));
	snprintf(path, sizeof(path), "%s/a/b/c", top);
	assert_int_equal(make_directories(path, 0700), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(make_directories(path, 0700), 0); /* there already */
	/* a file in the way */
	snprintf(file, sizeof(file), "%s/f", top);
	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	snprintf(file, sizeof(file), "%s/f/g", top);
	assert_int_equal(make_directories(file, 0755), -ENOTDIR);
	snprintf(file, sizeof(file), "rm -rf %s", top);
	assert_int_equal(system(file), 0);
	(void)state;
}

static void test_read_file(void **state)
{
	char path[] = "/tmp/fileio-read-XXXXXX";
	char small[4], buf[64];
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write_all(fd, "hello\n", 6), 0);
	close(fd);
	assert_int_equal(read_file_at(AT_FDCWD, path, buf, sizeof(buf)), 6);
	assert_string_equal(buf, "hello\n");
	/* cut to what fits, ended */
	assert_int_equal(read_file_at(AT_FDCWD, path, small, sizeof(small)), 3);
	assert_string_equal(small, "hel");
	unlink(path);
	assert_int_equal(read_file_at(AT_FDCWD, path, buf, sizeof(buf)), -ENOENT);
	assert_string_equal(buf, "");
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_all_and_copy),
		cmocka_unit_test(test_write_all_says_why),
		cmocka_unit_test(test_make_directories),
		cmocka_unit_test(test_read_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
