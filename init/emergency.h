/* Where every boot failure ends, and the shells of rd.emergency and rd.break. PID 1 never
 * exits: with no shell it waits forever, reaping. */
#pragma once

#include <stdbool.h>

#include "cmdline.h"
#include "failure_record.h"

/* Runs an interactive shell on the console and returns when it exits (zombies reaped
 * meanwhile). 0, or -ENOENT when there is no shell. */
int emergency_shell(void);

/* Logs why the boot stopped (one or two lines: what was expected, what was found, what to
 * try), then does what failure_decide() chose for o (rd.emergency=, rd.shell=, panic=):
 * a shell again and again, a shell and then an action, an action (its countdown logged), or
 * a wait forever. o may be a zeroed struct: the defaults. When the machine then goes down by
 * itself (an action, or the watchdog armed), record (NULL: none), its action set here, is
 * kept for the next boot first (last_failure_keep()). */
void emergency_fail(const struct options *o, struct failure_record *record, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));

/* "REASON; rebooting now (...)" on the console and the kernel log, a sync, a reboot: for a
 * failure whose answer is a fresh boot (fsck's exit code 2). Waits forever if the kernel
 * refuses. */
void emergency_reboot(const char *reason) __attribute__((noreturn));

/* rd.emergency / rd.break: a shell now; the boot goes on when it exits. reason says where. */
void emergency_pause(const char *reason);
