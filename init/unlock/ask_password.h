/* Asks for a passphrase on every console the kernel writes to (serial and VT alike), without
 * echo, and takes the first line typed on any of them. Effect layer. */
#pragma once

#include <stddef.h>

#define ASK_PASSWORD_MAX 512

/* Work the prompt does while it waits: ready(data) whenever fd is readable. The kernel's
 * uevents, so that a keyboard that comes after the question (a USB one is enumerated in the
 * background, often after the disk) still gets its driver. */
struct ask_watch {
	int fd;
	void (*ready)(void *data);
	void *data;
};

/* Writes prompt to each console, reads one line into out (NUL-terminated, without its newline;
 * size at most ASK_PASSWORD_MAX). timeout_sec 0 waits forever. watch may be NULL. The length,
 * or -ETIMEDOUT, -ENOTTY (no console to ask on), -E2BIG (a line longer than size - 1; it is
 * discarded). */
int ask_password(const char *prompt, int timeout_sec, const struct ask_watch *watch, char *out,
		 size_t size);
