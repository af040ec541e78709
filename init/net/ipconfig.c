/* Running klibc's ipconfig: its output is read as it comes, the watchdog fed meanwhile, and
 * it is ended when it outlives its own timeout (-t) by far. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "fileio.h"
#include "ipconfig.h"
#include "log.h"
#include "paths.h"
#include "timing.h"
#include "util.h"
#include "watchdog.h"

#define GRACE_SEC 5 /* past -t, before ipconfig is ended */
#define LINE_MAX_IPCONFIG 160

struct run_output {
	char pending[LINE_MAX_IPCONFIG];
	size_t len;
	char last[LINE_MAX_IPCONFIG]; /* for the message when it fails */
};

static void output_line(struct run_output *o)
{
	o->pending[o->len] = '\0';
	if (o->len) {
		log_debug("ipconfig: %s", o->pending);
		COPY_STR(o->last, o->pending);
	}
	o->len = 0;
}

static void output_bytes(struct run_output *o, const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n' || buf[i] == '\r' || o->len == sizeof(o->pending) - 1)
			output_line(o);
		if (buf[i] != '\n' && buf[i] != '\r')
			o->pending[o->len++] = buf[i];
	}
}

/* Reads fd until its end or the deadline: true at its end. */
static bool read_until_end(int fd, double deadline, struct run_output *o)
{
	char buf[512];

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int left = (int)((deadline - timing_now()) * 1000);
		ssize_t n;

		if (left <= 0)
			return false;
		if (watchdog_poll(&p, 1, left) < 0 && errno != EINTR)
			return false;
		n = read(fd, buf, sizeof(buf));
		if (n == 0)
			break;
		if (n > 0)
			output_bytes(o, buf, (size_t)n);
		else if (errno != EINTR && errno != EAGAIN)
			break;
	}
	output_line(o);
	return true;
}

/* ipconfig's arguments: DHCP on iface, or the kernel's static form naming it. */
static int build_argv(const struct net_ip *ip, const char *iface, int timeout_sec,
		      char *timeout, size_t timeout_size, char *spec, size_t spec_size,
		      const char **argv)
{
	size_t n = 0;
	int r = 0;

	snprintf(timeout, timeout_size, "%d", timeout_sec);
	argv[n++] = EARLYMOUNT_IPCONFIG;
	argv[n++] = "-t";
	argv[n++] = timeout;
	if (ip->method == NET_STATIC) {
		r = net_ip_kernel_form(ip, iface, spec, spec_size);
	} else {
		argv[n++] = "-c";
		argv[n++] = "dhcp";
		snprintf(spec, spec_size, "%s", iface);
	}
	argv[n++] = "-d";
	argv[n++] = spec;
	argv[n] = NULL;
	return r;
}

static int read_lease(const char *iface, struct net_lease *lease)
{
	char path[64], text[4096];
	ssize_t n;

	snprintf(path, sizeof(path), NET_CONF_FORMAT, iface);
	n = read_file_at(AT_FDCWD, path, text, sizeof(text));
	if (n < 0)
		return (int)n;
	return net_lease_parse(text, (size_t)n, lease);
}

int ipconfig_run(const struct net_ip *ip, const char *iface, int timeout_sec,
		 struct net_lease *lease, char *why, size_t why_size)
{
	char timeout[16], spec[256];
	const char *argv[10];
	struct run_output out = { 0 };
	int pipefd[2] = { -1, -1 };
	pid_t pid = -1;
	int status = 0;
	bool ended;
	int r = build_argv(ip, iface, timeout_sec, timeout, sizeof(timeout), spec, sizeof(spec), argv);

	if (r == 0 && access(EARLYMOUNT_IPCONFIG, X_OK) < 0) {
		r = -ENOENT;
		snprintf(why, why_size, "the image has no %s (klibc's ipconfig): build it with "
			 "`earlymount initramfs --network`", EARLYMOUNT_IPCONFIG);
		goto out;
	}
	if (r == 0 && pipe2(pipefd, O_CLOEXEC) < 0)
		r = -errno;
	if (r == 0)
		r = child_start(&(struct child_spec){ .argv = argv, .in = -1, .out = pipefd[1],
						      .err = pipefd[1], .exec_failed = 127 }, &pid);
	if (r < 0) {
		snprintf(why, why_size, "unable to run %s: %s", EARLYMOUNT_IPCONFIG, strerror(-r));
		goto out;
	}
	close(pipefd[1]);
	pipefd[1] = -1;
	ended = read_until_end(pipefd[0], timing_now() + timeout_sec + GRACE_SEC, &out);
	if (!ended)
		kill(pid, SIGKILL);
	r = child_wait(pid, &status);
	if (r == 0 && (!ended || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
		       read_lease(iface, lease) < 0)) {
		r = -ETIMEDOUT;
		snprintf(why, why_size, "%s on %s within %d s%s%s%s", ip->method == NET_STATIC
				 ? "unable to set the static address" : "no DHCP lease", iface, timeout_sec,
			 out.last[0] ? " (ipconfig: " : "", out.last, out.last[0] ? ")" : "");
	}
out:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	return r;
}
