/* lib/child.c: a program run with its standard streams set, its status, and what a program
 * that cannot run says. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "child.h"

/* Runs argv with stdin from the pipe's text and stdout and stderr into another: the output. */
static int run(const char *const *argv, const char *input, int exec_failed, char *out, size_t size)
{
	int in[2], res[2], status = -1;
	ssize_t n, got = 0;
	pid_t pid;

	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(res, O_CLOEXEC), 0);
	assert_int_equal(child_start(&(struct child_spec){ .argv = argv, .in = in[0], .out = res[1],
							   .err = res[1], .exec_failed = exec_failed },
				     &pid),
			 0);
	close(in[0]);
	close(res[1]);
	assert_int_equal(write(in[1], input, strlen(input)), (ssize_t)strlen(input));
	close(in[1]);
	while ((n = read(res[0], out + got, size - 1 - (size_t)got)) > 0)
		got += n;
	out[got] = '\0';
	close(res[0]);
	assert_int_equal(child_wait(pid, &status), 0);
	return status;
}

static void test_streams_and_status(void **state)
{
	const char *const cat[] = { "/bin/sh", "-c", "cat; echo err >&2; exit 3", NULL };
	char out[64];
	int status = run(cat, "hello\n", 127, out, sizeof(out));

	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 3);
	assert_string_equal(out, "hello\nerr\n");
	(void)state;
}

static void test_a_program_that_cannot_run(void **state)
{
	const char *const missing[] = { "/nonexistent/program", NULL };
	char out[256];
	int status = run(missing, "", 42, out, sizeof(out));

	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 42);
	assert_non_null(strstr(out, "unable to run /nonexistent/program"));
	(void)state;
}

/* A file the kernel will not run (here a script without #!) is not handed to /bin/sh: a fsck
 * checker or LUKS helper of another arch must fail as such, not as the shell's exit code. */
static void test_no_shell_for_a_path(void **state)
{
	char path[] = "/tmp/child-noexec-XXXXXX";
	const char *const argv[] = { path, NULL };
	char out[256];
	int fd = mkstemp(path);
	int status;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "echo ran\n", 9), 9);
	close(fd);
	assert_int_equal(chmod(path, 0755), 0);
	status = run(argv, "", 42, out, sizeof(out));
	unlink(path);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 42);
	assert_null(strstr(out, "ran"));
	assert_non_null(strstr(out, "Exec format error"));
	(void)state;
}

static void test_wait_for_no_child(void **state)
{
	int status;

	assert_int_equal(child_wait(getpid(), &status), -ECHILD);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_streams_and_status),
		cmocka_unit_test(test_a_program_that_cannot_run),
		cmocka_unit_test(test_no_shell_for_a_path),
		cmocka_unit_test(test_wait_for_no_child),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
