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

struct lines {
	char text[512];
	unsigned n;
};

static void collect_line(const char *line, void *data)
{
	struct lines *l = data;

	strcat(l->text, line);
	strcat(l->text, "|");
	l->n++;
}

/* Both streams, split at \n and \r, empty lines skipped, a long one cut; the exit code. */
static void test_run_lines(void **state)
{
	const char *const argv[] = { "/bin/sh", "-c",
				     "printf 'one\\n\\ntwo\\rthree'; echo err >&2; "
				     "head -c 300 /dev/zero | tr '\\0' x; exit 4",
				     NULL };
	struct lines l = { "", 0 };
	int r = child_run_lines(&(struct child_spec){ .argv = argv, .exec_failed = 127 }, collect_line, &l);

	assert_int_equal(r, 4);
	assert_int_equal(l.n, 4);
	assert_true(strncmp(l.text, "one|two|three", 13) == 0);
	assert_non_null(strstr(l.text, "err|"));
	/* the last line: 300 x's, cut at CHILD_LINE_MAX - 1 */
	assert_int_equal(strlen(strstr(l.text, "err|") + 4), CHILD_LINE_MAX - 1 + strlen("|"));
	(void)state;
}

/* A child killed by a signal is -EINTR; its stdin is /dev/null (cat ends at once). */
static void test_run_lines_killed_and_stdin(void **state)
{
	const char *const killed[] = { "/bin/sh", "-c", "cat; kill -9 $$", NULL };
	struct lines l = { "", 0 };

	assert_int_equal(child_run_lines(&(struct child_spec){ .argv = killed, .exec_failed = 127 },
					 collect_line, &l),
			 -EINTR);
	assert_int_equal(l.n, 0);
	(void)state;
}

/* A tool's lines: blanks before them dropped, the last non-empty one kept. */
static void test_log_lines(void **state)
{
	struct child_log out = { .prefix = "tool: " };

	child_log_line("  first", &out);
	assert_string_equal(out.last, "first");
	child_log_line("tool: said with the prefix", &out);
	assert_string_equal(out.last, "tool: said with the prefix");
	child_log_line(" \t ", &out);
	assert_string_equal(out.last, "tool: said with the prefix");
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_streams_and_status),
		cmocka_unit_test(test_a_program_that_cannot_run),
		cmocka_unit_test(test_no_shell_for_a_path),
		cmocka_unit_test(test_wait_for_no_child),
		cmocka_unit_test(test_run_lines),
		cmocka_unit_test(test_run_lines_killed_and_stdin),
		cmocka_unit_test(test_log_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
