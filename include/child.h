/* Child processes: starting a program with its standard streams set, and waiting for it. */
#pragma once

#include <sys/types.h>

struct child_spec {
	const char *const *argv; /* argv[0] is the program's path, or a name looked up in $PATH */
	int in, out, err;        /* what the child gets as fd 0, 1 and 2; -1 keeps the parent's */
	int exec_failed;         /* the child's exit code when the program cannot be run */
	const char *const *env;  /* NAME=VALUE strings set in the child alone, NULL-terminated;
				  * NULL: none */
};

/* Forks and runs spec's program: 0 with *pid, or -errno when no child could be made. When
 * the program cannot be run, the child says why on its fd 2 and exits with exec_failed.
 * The program gets ^C's default action whatever this process does with it (`earlymount
 * qemu` ignores it, to clean up after QEMU). */
int child_start(const struct child_spec *spec, pid_t *pid);

/* Waits for pid, again after EINTR: 0 with *status (NULL: not wanted), or -errno. */
int child_wait(pid_t pid, int *status);

/* The longest line child_run_lines() hands on, its end included; longer ones are cut. */
#define CHILD_LINE_MAX 160

typedef void child_line_fn(const char *line, void *data);

/* Runs spec's program with /dev/null as its input and both output streams into a pipe whose
 * lines (split at '\n' or '\r', empty ones skipped) go to fn as they come; spec's in, out
 * and err are not used. Then waits for it: its exit code, -EINTR when a signal killed it, or
 * -errno when it could not be started or waited for. */
int child_run_lines(const struct child_spec *spec, child_line_fn *fn, void *data);

/* A tool's output in earlymount's log: child_log_line() logs each line (its leading blanks
 * dropped) with prefix, unless the line begins with the prefix already, and keeps the last
 * one for the warning when the tool fails. */
struct child_log {
	const char *prefix; /* "lvm: " */
	char last[CHILD_LINE_MAX];
};

void child_log_line(const char *line, void *data);

/* The warning after a tool run with child_log_line() did not succeed (r, child_run_lines()'s
 * answer, not 0): "PREFIXunable to run TOOL on WHAT: ERROR; THEN", or "PREFIXTOOL on WHAT failed
 * (exit code N: its last line); THEN". */
void child_log_failure(const struct child_log *out, const char *tool, const char *what, int r,
		       const char *then);
