/* What a stopped boot does next, decided from the command line and whether the initramfs
 * has a shell: a shell, a wait, or a reboot, power-off or halt for a device nobody watches.
 * Pure: emergency.c acts on it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cmdline.h"

enum failure_action {
	FAILURE_WAIT,     /* wait forever: the message stays on the console */
	FAILURE_SHELL,    /* the shell again */
	FAILURE_REBOOT,
	FAILURE_POWEROFF,
	FAILURE_HALT,
};

struct failure_plan {
	bool shell_first;          /* offer the shell; `then` once it exits */
	enum failure_action then;  /* without a shell, or after it */
	int delay_sec;             /* before a reboot, power-off or halt: panic=N, N > 0 */
	char because[48];          /* the key that chose `then` ("rd.emergency=reboot",
				    * "panic=3", "rd.shell=0"), empty for the default */
};

/* The order, first match wins:
 *   1. a shell first when the initramfs has one and rd.shell=0 is absent;
 *   2. then rd.emergency=reboot|poweroff|halt when given (after the shell exits, as dracut);
 *   3. else the shell again, when it was offered (panic= waits for the person at the shell);
 *   4. else, panic=N not 0, a reboot;
 *   5. else a wait forever.
 * A reboot, power-off or halt comes panic=N seconds later when N > 0, else at once. */
void failure_decide(const struct options *o, bool shell_present, struct failure_plan *plan);

/* "reboot", "power off", "halt", for "rebooting in 3 s" style messages: the -ing form. */
const char *failure_action_doing(enum failure_action action);

/* "reboot", "poweroff" or "halt", as rd.emergency= has them; NULL for a wait or a shell. */
const char *failure_action_word(enum failure_action action);

/* Whether the countdown before the action says how long is left, at `left` seconds: every
 * 10 s, and each of the last 5. */
bool failure_countdown_says(int left);

/* One line for `earlymount plan`: "if the boot stops: with SHELL in the image, …; without,
 * …". snprintf's result. */
int failure_describe(const struct options *o, const char *shell, char *buf, size_t size);
