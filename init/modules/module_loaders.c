/* Background inserts: each module a child process inserts, at a nice level that lets what
 * the plan waits for go first on one CPU; a pipe tells when it is done and what libkmod said. */
#include <errno.h>
#include <fcntl.h>
#include <libkmod/libkmod.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "log.h"
#include "module_insert.h"
#include "module_loaders.h"
#include "timing.h"
#include "util.h"
#include "watchdog.h"

/* Drivers that may probe asynchronously for a pinned plan: their disks are SCSI disks, which
 * sd names from its own asynchronous probe anyway, so no disk name changes. Not virtio_blk,
 * nvme's PCI side or mmc: probed in parallel, vda and vdb could swap between boots (seen in
 * uefi-two-disks), and root=/dev/vda2 would name another disk. */
static const char *const async_probe_drivers[] = { "ahci" };

static bool may_probe_async(const char *name)
{
	bool found = false;

	for (size_t i = 0; i < ARRAY_SIZE(async_probe_drivers) && !found; i++)
		found = streq(async_probe_drivers[i], name);
	return found;
}

bool module_loader_requested(const struct modules *m, const char *name)
{
	for (size_t i = 0; i < m->n_requested; i++)
		if (streq(m->requested[i], name))
			return true;
	return false;
}

static int remember_request(struct modules *m, const char *name)
{
	int r = 0;

	if (m->n_requested == m->cap_requested) {
		size_t cap = m->cap_requested ? m->cap_requested * 2 : 64;
		char **grown = realloc(m->requested, cap * sizeof(*grown));

		if (!grown) {
			r = -ENOMEM;
			goto out;
		}
		m->requested = grown;
		m->cap_requested = cap;
	}
	m->requested[m->n_requested] = strdup(name);
	if (!m->requested[m->n_requested])
		r = -ENOMEM;
	else
		m->n_requested++;
out:
	return r;
}

void module_loader_release(struct modules *m, size_t i)
{
	struct module_loader *l = &m->loaders[i];

	close(l->fd);
	free(l->name);
	free(l->wanted_for);
	m->loaders[i] = m->loaders[--m->n_loaders];
}

/* Waits for loader i to report, and handles its result. 1 inserted, 0 or -errno. */
int module_loader_finish(struct modules *m, size_t i)
{
	struct module_loader *l = &m->loaders[i];
	struct pollfd pfd = { .fd = l->fd, .events = POLLIN };
	int result = -EIO;
	ssize_t n;
	int r;

	while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
		;
	n = read(l->fd, &result, sizeof(result));
	if (n != (ssize_t)sizeof(result))
		result = -EIO; /* the loader died before it could answer */
	/* ECHILD: an emergency shell's reaper took it; its answer is in the pipe all the same */
	(void)child_wait(l->pid, NULL);
	r = module_insert_result(m, l->name, l->wanted_for, result);
	module_loader_release(m, i);
	return r;
}

static bool loader_done(const struct module_loader *l)
{
	struct pollfd pfd = { .fd = l->fd, .events = POLLIN };

	return poll(&pfd, 1, 0) > 0;
}

/* Inserts mod in a child process; the pipe tells when it is done, and what libkmod said.
 * The insert runs at the given nice level: with one CPU, what the plan waits for goes
 * first. */
int module_loader_start(struct modules *m, struct kmod_module *mod, const char *wanted_for,
			int nice_level)
{
	const char *name = kmod_module_get_name(mod);
	struct module_loader *l;
	int fds[2];
	pid_t pid;
	int r = 0;

	if (m->n_loaders == MODULES_MAX_LOADERS)
		module_loader_finish(m, 0);
	if (pipe2(fds, O_CLOEXEC) < 0) {
		r = -errno;
		goto out;
	}
	pid = fork();
	if (pid == 0) {
		int result;

		setpriority(PRIO_PROCESS, 0, nice_level);
		result = module_probe_insert(mod, m->async_probe && nice_level != 0 && may_probe_async(name));

		(void)!write(fds[1], &result, sizeof(result));
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0) {
		r = -errno;
		close(fds[0]);
		goto out;
	}
	l = &m->loaders[m->n_loaders++];
	*l = (struct module_loader){ .pid = pid, .fd = fds[0], .name = strdup(name),
				     .wanted_for = strdup(wanted_for), .soon = nice_level == 0 };
	if (!l->name || !l->wanted_for) {
		/* it runs all the same; only its report is lost */
		waitpid(pid, NULL, 0);
		module_loader_release(m, m->n_loaders - 1);
		r = -ENOMEM;
		goto out;
	}
	r = remember_request(m, name);
out:
	return r;
}

void modules_set_parallel(struct modules *m, bool parallel)
{
	/* what the plan asked for must be in before its mounts begin */
	for (size_t i = 0; i < m->n_loaders && !parallel;) {
		if (m->loaders[i].soon)
			module_loader_finish(m, i); /* the last loader moved into i */
		else
			i++;
	}
	m->parallel = parallel;
}

void modules_yield(struct modules *m)
{
	for (size_t i = 0; i < m->n_loaders; i++)
		if (!m->loaders[i].soon)
			setpriority(PRIO_PROCESS, m->loaders[i].pid, LOADER_NICE_YIELD);
}

size_t modules_loading(const struct modules *m)
{
	return m->n_loaders;
}

size_t modules_poll_fds(const struct modules *m, struct pollfd *fds, size_t max)
{
	size_t n = 0;

	for (; n < m->n_loaders && n < max; n++)
		fds[n] = (struct pollfd){ .fd = m->loaders[n].fd, .events = POLLIN };
	return n;
}

int modules_reap(struct modules *m, bool wait)
{
	int loaded = 0;

	for (size_t i = 0; i < m->n_loaders;) {
		if (wait || loader_done(&m->loaders[i]))
			loaded += module_loader_finish(m, i) > 0; /* the last loader moved into i */
		else
			i++;
	}
	return loaded;
}

/* Names of the loaders still running, "a (pid 1), b (pid 2)", cut to fit. */
static void loader_names(const struct modules *m, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < m->n_loaders && used < size; i++) {
		int n = snprintf(buf + used, size - used, "%s%s (pid %d)", i ? ", " : "",
				 m->loaders[i].name, (int)m->loaders[i].pid);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

size_t modules_finish(struct modules *m, int timeout_ms, double *waited_ms)
{
	struct pollfd fds[MODULES_MAX_LOADERS];
	size_t running = m->n_loaders;
	double start = timing_now(), elapsed = 0;
	char names[512];

	/* raised from the lowest priority: the boot has nothing else to do now */
	for (size_t i = 0; i < m->n_loaders; i++)
		setpriority(PRIO_PROCESS, m->loaders[i].pid, 0);
	while (m->n_loaders > 0 && elapsed < timeout_ms) {
		size_t n = modules_poll_fds(m, fds, ARRAY_SIZE(fds));

		if (watchdog_poll(fds, n, timeout_ms - (int)elapsed) < 0 && errno != EINTR)
			break;
		modules_reap(m, false);
		elapsed = (timing_now() - start) * 1e3;
	}
	*waited_ms = elapsed;
	if (running > 0)
		log_info("waited %.0f ms for %zu module loads before the handoff", elapsed,
			 running - m->n_loaders);
	if (m->n_loaders > 0) {
		loader_names(m, names, sizeof(names));
		/* A kill could cut a driver's probe short in an interruptible wait: they are left
		 * to end by themselves, children of the real init, which reaps them. */
		log_warn("%zu module loads still running after %d ms, left to the real init: %s",
			 m->n_loaders, timeout_ms, names);
	}
	return m->n_loaders;
}
