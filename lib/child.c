/* Child processes: starting a program with its standard streams set, and waiting for it. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"

static void __attribute__((noreturn)) child_exec(const struct child_spec *spec)
{
	const int want[3] = { spec->in, spec->out, spec->err };

	signal(SIGINT, SIG_DFL);
	for (const char *const *e = spec->env; e && *e; e++)
		if (putenv((char *)*e) < 0)
			_exit(spec->exec_failed);
	for (int fd = 0; fd < 3; fd++)
		if (want[fd] >= 0 && dup2(want[fd], fd) < 0)
			_exit(spec->exec_failed);
	/* a path is run as it is: execvp() would hand a file the kernel refuses (ENOEXEC: another
	 * arch's binary, a damaged one) to /bin/sh, whose exit code means something else */
	if (strchr(spec->argv[0], '/'))
		execv(spec->argv[0], (char *const *)spec->argv);
	else
		execvp(spec->argv[0], (char *const *)spec->argv);
	dprintf(STDERR_FILENO, "unable to run %s: %s\n", spec->argv[0], strerror(errno));
	_exit(spec->exec_failed);
}

int child_start(const struct child_spec *spec, pid_t *pid)
{
	*pid = fork();
	if (*pid == 0)
		child_exec(spec);
	return *pid < 0 ? -errno : 0;
}

int child_wait(pid_t pid, int *status)
{
	int r;

	while ((r = waitpid(pid, status, 0)) < 0 && errno == EINTR)
		;
	return r < 0 ? -errno : 0;
}
