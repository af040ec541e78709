/* Where every boot failure ends, and the shells of rd.emergency and rd.break. PID 1 never
 * exits: with no shell it waits forever, reaping. */
#pragma once

#include <stdbool.h>

#define EMERGENCY_SHELL "/bin/sh"

/* Runs an interactive shell on the console and returns when it exits (zombies reaped
 * meanwhile). 0, or -ENOENT when there is no shell. */
int emergency_shell(void);

/* Logs why the boot stopped (one or two lines: what was expected, what was found, what to
 * try), then offers a shell again and again, or waits forever without one. */
void emergency_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* rd.emergency / rd.break: a shell now; the boot goes on when it exits. reason says where. */
void emergency_pause(const char *reason);
