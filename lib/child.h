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
