/* The handoff to systemd as from another initrd. systemd 252 reads --deserialize FD line by
 * line as "key=value" until an empty line (its manager section), then unit sections until the
 * end of the file; "initrd-timestamp=" holds two decimal microsecond counts, realtime then
 * monotonic. --switched-root makes it set up the system and queue the default target as on a
 * first boot; without it, a --deserialize is taken for a re-exec. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "switchroot.h"
#include "systemd_handoff.h"
#include "util.h"

static uint64_t clock_us(clockid_t id)
{
	struct timespec ts = { 0 };

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void dual_clock_now(struct dual_clock *t)
{
	t->realtime_us = clock_us(CLOCK_REALTIME);
	t->monotonic_us = clock_us(CLOCK_MONOTONIC);
}

bool systemd_handoff_is_systemd(const char *resolved_init)
{
	const char *slash = strrchr(resolved_init, '/');

	return streq(slash ? slash + 1 : resolved_init, "systemd");
}

int systemd_handoff_format(const struct dual_clock *initrd_start, char *buf, size_t size)
{
	int n = snprintf(buf, size, "initrd-timestamp=%" PRIu64 " %" PRIu64 "\n\n",
			 initrd_start->realtime_us, initrd_start->monotonic_us);

	return n < 0 || (size_t)n >= size ? -E2BIG : n;
}

void systemd_handoff_argv(const char *init, const char *fd_text, int argc, char **argv,
			  char **args, size_t max)
{
	const char *ours[] = { init, "--switched-root", "--system", "--deserialize", fd_text };
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(ours) && n + 1 < max; i++)
		args[n++] = (char *)ours[i];
	for (int i = 1; i < argc && n + 1 < max; i++)
		args[n++] = argv[i];
	args[n] = NULL;
}

/* A memory file holding the serialization, at offset 0, open across exec (systemd takes
 * over the descriptor). The fd, or -errno. */
static int serialization_fd(const struct dual_clock *initrd_start)
{
	char text[128];
	int len = systemd_handoff_format(initrd_start, text, sizeof(text));
	int fd = len < 0 ? len : memfd_create("earlymount-serialization", 0);
	int r = fd;

	if (fd < 0) {
		r = len < 0 ? len : -errno;
		goto out;
	}
	errno = 0;
	if (write(fd, text, (size_t)len) != len || lseek(fd, 0, SEEK_SET) != 0) {
		r = errno ? -errno : -EIO;
		close(fd);
	}
out:
	return r;
}

int systemd_handoff_exec(const char *init, int argc, char **argv,
			 const struct dual_clock *initrd_start)
{
	char resolved[PATH_MAX];
	char fd_text[16];
	char *args[EXEC_ARGS_MAX + 1];
	int fd = -1, r;

	if (realpath(init, resolved) && systemd_handoff_is_systemd(resolved)) {
		fd = serialization_fd(initrd_start);
		if (fd < 0)
			log_warn("%s is systemd, but the initrd's start time cannot be handed to it "
				 "(%s): starting it without, systemd-analyze will show no initrd time",
				 init, strerror(-fd));
	}
	if (fd < 0) {
		r = switchroot_exec(init, argc, argv);
	} else {
		snprintf(fd_text, sizeof(fd_text), "%d", fd);
		systemd_handoff_argv(init, fd_text, argc, argv, args, ARRAY_SIZE(args));
		log_info("%s is systemd (%s): handing over the initrd's start time with "
			 "--deserialize %d", init, resolved, fd);
		execv(init, args);
		r = -errno;
		close(fd);
	}
	return r;
}
