/* log: early messages kept and replayed in order, nothing printed twice, levels filtered,
 * long lines cut safely. open/write/close are wrapped: /dev/kmsg and fd 2 are captured. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"

#define FAKE_KMSG_FD 1000

static char kmsg[65536];
static size_t kmsg_len;
static char console[65536];
static size_t console_len;
static int kmsg_opens;
static int kmsg_open_errno;      /* 0: opening /dev/kmsg works */
static const char *printk_text = "4\t4\t1\t7\n";

int __real_open(const char *path, int flags, ...);
int __real_openat(int dirfd, const char *path, int flags, ...);
ssize_t __real_write(int fd, const void *buf, size_t n);
int __real_close(int fd);

int __wrap_open(const char *path, int flags, ...)
{
	va_list ap;
	int mode;

	if (strcmp(path, "/dev/kmsg") == 0) {
		kmsg_opens++;
		if (kmsg_open_errno) {
			errno = kmsg_open_errno;
			return -1;
		}
		return FAKE_KMSG_FD;
	}
	if (strcmp(path, "/proc/sys/kernel/printk") == 0) {
		int fd = memfd_create("printk", MFD_CLOEXEC);

		__real_write(fd, printk_text, strlen(printk_text));
		lseek(fd, 0, SEEK_SET);
		return fd;
	}
	va_start(ap, flags);
	mode = va_arg(ap, int);
	va_end(ap);
	return __real_open(path, flags, mode);
}

/* lib/fileio.c's read_file_at() opens with openat(): printk's file is faked there too. */
int __wrap_openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	int mode;

	if (strcmp(path, "/proc/sys/kernel/printk") == 0)
		return __wrap_open(path, flags);
	va_start(ap, flags);
	mode = va_arg(ap, int);
	va_end(ap);
	return __real_openat(dirfd, path, flags, mode);
}

static void capture(char *buf, size_t *len, size_t size, const void *data, size_t n)
{
	if (*len + n < size) {
		memcpy(buf + *len, data, n);
		*len += n;
		buf[*len] = '\0';
	}
}

ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
	if (fd == FAKE_KMSG_FD) {
		capture(kmsg, &kmsg_len, sizeof(kmsg), buf, n);
		return (ssize_t)n;
	}
	if (fd == 2) {
		capture(console, &console_len, sizeof(console), buf, n);
		return (ssize_t)n;
	}
	return __real_write(fd, buf, n);
}

int __wrap_close(int fd)
{
	return fd == FAKE_KMSG_FD ? 0 : __real_close(fd);
}

static void captures_clear(void)
{
	kmsg_len = console_len = 0;
	kmsg[0] = console[0] = '\0';
}

static int captures_reset(void **state)
{
	captures_clear();
	return 0;
}

static void test_stderr_target(void **state)
{
	log_setup(LOG_TARGET_STDERR);
	log_set_max_level(LOG_INFO);
	log_info("hello %d", 1);
	log_debug("not shown");
	log_err("unable to mount devtmpfs on /dev: %s", "No such device");
	assert_string_equal(console, "earlymount: hello 1\n"
				     "earlymount: unable to mount devtmpfs on /dev: No such device\n");
	log_set_max_level(LOG_DEBUG);
	log_debug("now shown");
	assert_non_null(strstr(console, "earlymount: now shown\n"));
	assert_int_equal(kmsg_len, 0);
	log_set_max_level(99);
	assert_int_equal(log_get_max_level(), LOG_DEBUG);
	log_set_max_level(-5);
	assert_int_equal(log_get_max_level(), LOG_EMERG);
	log_set_max_level(LOG_INFO);
}

/* Before /dev exists nothing can be written: all is kept, then replayed once, in order. */
static void test_early_messages_replayed(void **state)
{
	log_setup(LOG_TARGET_CONSOLE);
	log_info("one");
	log_warn("two %s", "2");
	log_debug("dropped: above the level");
	log_err("three");
	assert_int_equal(kmsg_len, 0);
	assert_int_equal(console_len, 0);
	assert_int_equal(log_open_kmsg(), 0);
	assert_string_equal(kmsg, "<6>earlymount: one\n<4>earlymount: two 2\n<3>earlymount: three\n");
	/* console loglevel 4: the kernel echoes level 3 itself, not 4 or 6; 6 is ours to print */
	assert_string_equal(console, "earlymount: one\nearlymount: two 2\n");
	captures_clear();
	assert_int_equal(log_open_kmsg(), 0);
	assert_int_equal(kmsg_len, 0);
}

static void test_nothing_printed_twice(void **state)
{
	log_set_max_level(LOG_WARNING); /* quiet */
	log_info("info");
	log_warn("warning");
	log_err("error");
	assert_string_equal(kmsg, "<6>earlymount: info\n<4>earlymount: warning\n<3>earlymount: error\n");
	assert_string_equal(console, "earlymount: warning\n");
	captures_clear();
	log_set_max_level(LOG_DEBUG);
	log_debug("debug");
	assert_string_equal(kmsg, "<7>earlymount: debug\n");
	assert_string_equal(console, "earlymount: debug\n");
	log_set_max_level(LOG_INFO);
}

static void test_lines_split(void **state)
{
	log_err("first line\nsecond line");
	assert_string_equal(kmsg, "<3>earlymount: first line\n<3>earlymount: second line\n");
}

static void test_long_line_cut(void **state)
{
	char msg[1500];
	const char *nl;

	memset(msg, 'x', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	log_warn("%s", msg);
	nl = strchr(kmsg, '\n');
	assert_non_null(nl);
	assert_true(nl - kmsg + 1 <= 976);
	assert_int_equal(strlen(kmsg), (size_t)(nl - kmsg + 1));
	/* the console is no record device: it gets the whole line */
	assert_int_equal(console_len, strlen("earlymount: ") + sizeof(msg) - 1 + 1);
}

static void test_long_line_keeps_utf8_whole(void **state)
{
	char msg[1200] = "";

	while (strlen(msg) + 3 < sizeof(msg))
		strcat(msg, "\xe2\x86\x92"); /* → */
	log_warn("%s", msg);
	assert_true(kmsg_len <= 976);
	/* the last byte before the newline ends a whole "→" */
	assert_int_equal((unsigned char)kmsg[kmsg_len - 2], 0x92);
	assert_int_equal((unsigned char)kmsg[kmsg_len - 3], 0x86);
}

static void test_kmsg_reopened_before_ratelimit(void **state)
{
	int opens = kmsg_opens;

	for (int i = 0; i < 20; i++)
		log_info("line %d", i);
	assert_true(kmsg_opens >= opens + 2);
	assert_non_null(strstr(kmsg, "<6>earlymount: line 19\n"));
}

static void test_errno_kept(void **state)
{
	errno = EBUSY;
	log_info("x");
	assert_int_equal(errno, EBUSY);
}

/* A fresh log state needs a fresh process: fork, check with plain ifs, exit with the result. */
static int scenario_kmsg_unavailable(void)
{
	char big[600];

	kmsg_open_errno = ENOENT;
	captures_clear();
	memset(big, 'y', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	log_setup(LOG_TARGET_CONSOLE);
	log_info("early");
	for (int i = 0; i < 40; i++)
		log_info("%s", big);
	if (console_len != 0)
		return 1;
	if (log_open_kmsg() != -ENOENT)
		return 2;
	if (strncmp(console, "earlymount: early\n", 18) != 0)
		return 3;
	if (!strstr(console, "early messages lost (the buffer was full)\n"))
		return 4;
	captures_clear();
	log_info("after");
	if (strcmp(console, "earlymount: after\n") != 0 || kmsg_len != 0)
		return 5;
	/* a later try (the failure path makes one) may succeed */
	kmsg_open_errno = 0;
	if (log_open_kmsg() != 0)
		return 6;
	log_err("late");
	if (strcmp(kmsg, "<3>earlymount: late\n") != 0)
		return 7;
	return 0;
}

static void test_kmsg_unavailable(void **state)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(scenario_kmsg_unavailable());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_kmsg_unavailable, captures_reset),
		cmocka_unit_test_setup(test_stderr_target, captures_reset),
		cmocka_unit_test_setup(test_early_messages_replayed, captures_reset),
		cmocka_unit_test_setup(test_nothing_printed_twice, captures_reset),
		cmocka_unit_test_setup(test_lines_split, captures_reset),
		cmocka_unit_test_setup(test_long_line_cut, captures_reset),
		cmocka_unit_test_setup(test_long_line_keeps_utf8_whole, captures_reset),
		cmocka_unit_test_setup(test_kmsg_reopened_before_ratelimit, captures_reset),
		cmocka_unit_test_setup(test_errno_kept, captures_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
