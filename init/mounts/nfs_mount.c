/* The kernel's NFS client waits for a server that does not answer, in mount(2) itself: each
 * try runs in a child process (a mount there is PID 1's too: one mount namespace), which is
 * killed when it outlives its slice; the kernel's RPC waits are killable. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fileio.h"
#include "log.h"
#include "mountopts.h"
#include "nfs_mount.h"
#include "timing.h"
#include "util.h"
#include "watchdog.h"

#define TRY_SEC 10    /* the longest one try may take */
#define PAUSE_MS 1000 /* between tries */
#define DATA_MAX 512

static const char *const nfs3_modules[] = { "nfsv3", "nfsv4", NULL };
static const char *const nfs4_modules[] = { "nfsv4", NULL };

bool nfs_fstype(const char *fstype)
{
	return streq(fstype, "nfs") || streq(fstype, "nfs4");
}

/* "nfs" may carry vers=4 too */
const char *const *nfs_modules(const char *fstype)
{
	return streq(fstype, "nfs4") ? nfs4_modules : streq(fstype, "nfs") ? nfs3_modules : NULL;
}

/* Waits for pid until deadline, feeding the watchdog: its status, or -ETIMEDOUT once it was
 * killed for taking too long. */
static int wait_child(pid_t pid, double deadline)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	int status = 0, r;

	while (fd >= 0) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int left = (int)((deadline - timing_now()) * 1000);

		if (left <= 0 || (watchdog_poll(&p, 1, left) < 0 && errno != EINTR))
			break;
		if (p.revents & POLLIN)
			break;
	}
	if (fd >= 0)
		close(fd);
	r = waitpid(pid, &status, WNOHANG);
	if (r == 0) {
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		return -ETIMEDOUT;
	}
	if (r < 0)
		return -errno;
	return WIFEXITED(status) ? -WEXITSTATUS(status) : -EINTR;
}

/* One try: 0 or -errno (the child's exit code is the mount's errno). */
static int try_mount(const char *source, const char *target, const char *fstype,
		     unsigned long flags, const char *data, double deadline)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(mount(source, target, fstype, flags, data[0] ? data : NULL) < 0 ? errno : 0);
	return wait_child(pid, deadline);
}

/* What no wait changes: the options, a missing module, a refusal by the server. */
static bool worth_retrying(int r)
{
	return r != -EINVAL && r != -ENODEV && r != -EACCES && r != -EPERM && r != -EBUSY;
}

int nfs_mount(const char *source, const char *target, const char *fstype, const char *options,
	      int timeout_sec, char *why, size_t why_size)
{
	double end = timing_now() + timeout_sec;
	char data[DATA_MAX], server[64];
	unsigned long flags;
	unsigned tries = 0;
	int r = mountopts_parse(options, &flags, data, sizeof(data));

	snprintf(server, sizeof(server), "%.*s", (int)strcspn(source, ":"), source);
	if (r == 0)
		r = make_directories(target, 0755);
	while (r == 0) {
		double now = timing_now();

		tries++;
		r = try_mount(source, target, fstype, flags, data, now + TRY_SEC < end ? now + TRY_SEC : end);
		if (r == 0 || !worth_retrying(r) || timing_now() + PAUSE_MS / 1000.0 >= end)
			break;
		if (tries == 1)
			log_info("the NFS server %s does not answer yet (%s): trying again for up to %d s",
				 server, strerror(-r), timeout_sec);
		watchdog_poll(NULL, 0, PAUSE_MS);
		r = 0;
	}
	if (r == -ETIMEDOUT)
		snprintf(why, why_size, "unable to mount the NFS export %s on %s: the server %s did not "
			 "answer (%u %s in %d s); check that it is up and exports %s to this client, and "
			 "the network (ip=)", source, target, server, tries, tries == 1 ? "try" : "tries",
			 timeout_sec, source + strlen(server) + 1);
	else if (r < 0)
		snprintf(why, why_size, "unable to mount the NFS export %s on %s: %s (%u %s in %d s); "
			 "check that the server %s exports %s to this client, and the network (ip=)",
			 source, target, strerror(-r), tries, tries == 1 ? "try" : "tries", timeout_sec,
			 server, source + strlen(server) + 1);
	return r;
}
