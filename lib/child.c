/* Child processes: starting a program with its standard streams set, and waiting for it. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "log.h"

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

struct line_split {
	char line[CHILD_LINE_MAX];
	size_t len;
	child_line_fn *fn;
	void *data;
};

static void line_end(struct line_split *l)
{
	if (l->len == 0)
		return;
	l->line[l->len] = '\0';
	l->fn(l->line, l->data);
	l->len = 0;
}

static void lines_read(int fd, struct line_split *l)
{
	char buf[512];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n' || buf[i] == '\r')
				line_end(l);
			else if (l->len < sizeof(l->line) - 1)
				l->line[l->len++] = buf[i];
		}
	}
	line_end(l);
}

void child_log_line(const char *line, void *data)
{
	struct child_log *l = data;
	size_t n = strlen(l->prefix);

	while (*line == ' ' || *line == '\t')
		line++;
	if (!*line)
		return;
	/* "mdadm: " said by mdadm itself */
	log_info("%s%s", strncmp(line, l->prefix, n) == 0 ? "" : l->prefix, line);
	snprintf(l->last, sizeof(l->last), "%s", line);
}

void child_log_failure(const struct child_log *out, const char *tool, const char *what, int r,
		       const char *then)
{
	if (r < 0)
		log_warn("%sunable to run %s on %s: %s; %s", out->prefix, tool, what, strerror(-r), then);
	else
		log_warn("%s%s on %s failed (exit code %d%s%s); %s", out->prefix, tool, what, r,
			 out->last[0] ? ": " : "", out->last, then);
}

int child_run_lines(const struct child_spec *spec, child_line_fn *fn, void *data)
{
	struct line_split split = { .fn = fn, .data = data };
	struct child_spec run = *spec;
	int fds[2], status = 0;
	pid_t pid;
	int r = pipe2(fds, O_CLOEXEC) < 0 ? -errno : 0;

	if (r < 0)
		goto out;
	run.in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	run.out = run.err = fds[1];
	r = child_start(&run, &pid);
	close(fds[1]);
	if (run.in >= 0)
		close(run.in);
	if (r == 0)
		lines_read(fds[0], &split);
	close(fds[0]);
	if (r == 0)
		r = child_wait(pid, &status);
	if (r == 0)
		r = WIFEXITED(status) ? WEXITSTATUS(status) : -EINTR;
out:
	return r;
}
