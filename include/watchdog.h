/* The hardware watchdog while the initramfs runs (rd.watchdog=): armed as soon as its device
 * is there, fed by the boot's waits and between its stages, never by a timer of its own, so
 * that a stage that hangs (a driver, a hook, a wait without end) lets it reset the machine.
 * Left armed at the switch for the real init to take over. One per process: PID 1's. */
#pragma once

#include <poll.h>
#include <stdbool.h>

/* Asks for device (NULL: /dev/watchdog0) armed with a timeout of sec seconds; sec <= 0 asks
 * nothing. The device may appear later, once its driver is in: every feed looks again. */
void watchdog_init(const char *device, int sec);
/* Pings the watchdog (at most once a second), arming it first when its device has appeared. */
void watchdog_feed(void);
/* poll(2) that feeds the watchdog while it waits: the wait goes in pieces of at most half
 * the timeout. Returns as poll() does, 0 once timeout_ms (-1: none) has passed. */
int watchdog_poll(struct pollfd *fds, nfds_t n, int timeout_ms);
/* Whether the watchdog is armed: a boot that stops is then reset by it. */
bool watchdog_armed(void);
/* Before the real init runs: says that the watchdog stays armed and for how long, then closes
 * it without the magic close, which would stop it. */
void watchdog_leave(void);
