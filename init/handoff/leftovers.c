/* The processes left at the switch. SIGKILL, not SIGTERM: nothing there has state worth a
 * clean exit (an SSH session whose passphrase was taken), and a process that ignored
 * SIGTERM would hold the switch. Each is reaped: orphans are PID 1's children, and a zombie
 * handed to the real init is one it never made. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "leftovers.h"
#include "util.h"

#define PF_KTHREAD_FLAG 0x00200000u /* include/linux/sched.h's PF_KTHREAD */
#define REAP_WAIT_MS 1000

/* Whether pid is a process of user space, its name in comm. */
static bool user_process(pid_t pid, char *comm, size_t size)
{
	char path[64], stat[512];
	const char *open, *close;
	unsigned long flags = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_file_at(AT_FDCWD, path, stat, sizeof(stat)) <= 0)
		return false;
	open = strchr(stat, '(');
	close = strrchr(stat, ')');
	if (!open || !close || close < open)
		return false;
	snprintf(comm, size, "%.*s", (int)(close - open - 1), open + 1);
	/* after the name: state, ppid, pgrp, session, tty_nr, tpgid, flags (proc(5)) */
	if (sscanf(close + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return false;
	return !(flags & PF_KTHREAD_FLAG);
}

/* Sends SIGKILL to every user process but this one; how many. */
static size_t kill_all(char *names, size_t size)
{
	char comm[64];
	struct dirent *e;
	DIR *d = opendir("/proc");
	size_t n = 0, used = strlen(names);

	while (d && (e = readdir(d))) {
		pid_t pid = (pid_t)atoi(e->d_name);

		if (pid <= 1 || pid == getpid() || !user_process(pid, comm, sizeof(comm)))
			continue;
		if (kill(pid, SIGKILL) < 0)
			continue;
		n++;
		if (used < size)
			used += (size_t)snprintf(names + used, size - used, "%s%s[%d]", used ? ", " : "", comm, (int)pid);
	}
	if (d)
		closedir(d);
	return n;
}

static void reap(void)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };

	for (int waited = 0; waited < REAP_WAIT_MS; waited += 10) {
		pid_t pid;

		while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
			;
		if (pid < 0 && errno == ECHILD)
			break;
		nanosleep(&pause, NULL);
	}
}

size_t leftovers_end(char *names, size_t size)
{
	size_t n;

	names[0] = '\0';
	n = kill_all(names, size);
	/* zombies are reaped whether or not anything was killed */
	reap();
	return n;
}
