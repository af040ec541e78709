/* Handing over to systemd the way it accepts from another initrd: `--switched-root --system
 * --deserialize FD`, FD holding the manager state with the initrd's start time, so that
 * systemd-analyze counts the initrd phase. Any other init gets the plain exec. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The handoff adds four arguments before the kernel's. */
#define SYSTEMD_HANDOFF_ARGS 4

/* A moment on both clocks systemd keeps, in microseconds. */
struct dual_clock {
	uint64_t realtime_us;
	uint64_t monotonic_us;
};

/* Now, on CLOCK_REALTIME and CLOCK_MONOTONIC. */
void dual_clock_now(struct dual_clock *t);
/* Whether the init that will run, its symlinks resolved, is systemd's manager: a file named
 * "systemd" (/lib/systemd/systemd, /usr/lib/systemd/systemd). Pure. */
bool systemd_handoff_is_systemd(const char *resolved_init);
/* The serialization systemd reads from --deserialize: its manager section with
 * "initrd-timestamp=REALTIME MONOTONIC" alone, ended by the empty line that ends a section.
 * Pure. Its length, or -E2BIG. */
int systemd_handoff_format(const struct dual_clock *initrd_start, char *buf, size_t size);
/* args = init, --switched-root, --system, --deserialize, fd_text, then argv[1..argc-1],
 * NULL-terminated, at most max entries with the NULL (the kernel's are cut to fit). Pure. */
void systemd_handoff_argv(const char *init, const char *fd_text, int argc, char **argv,
			  char **args, size_t max);
/* Runs init in the new root (after the switch): systemd with the initrd's start time when
 * init resolves to it, else as switchroot_exec() does. Returns only on failure: -errno. */
int systemd_handoff_exec(const char *init, int argc, char **argv,
			 const struct dual_clock *initrd_start);
