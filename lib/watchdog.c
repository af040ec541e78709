/* The hardware watchdog of rd.watchdog=, through the kernel's watchdog API (linux/watchdog.h):
 * WDIOC_SETTIMEOUT arms it, WDIOC_KEEPALIVE pings it, and a close without writing 'V' leaves
 * it running. */
#include <errno.h>
#include <fcntl.h>
#include <linux/watchdog.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "log.h"
#include "timing.h"
#include "watchdog.h"

#define DEFAULT_DEVICE "/dev/watchdog0"

static struct {
	char device[128];
	int sec;         /* asked for; 0: no watchdog */
	int fd;          /* -1 until armed */
	bool given_up;   /* the device refused, or it was left to the real init: not tried again */
	double last_ping;
} wd = { .fd = -1 };

void watchdog_init(const char *device, int sec)
{
	snprintf(wd.device, sizeof(wd.device), "%s", device ? device : DEFAULT_DEVICE);
	wd.sec = sec > 0 ? sec : 0;
	watchdog_feed();
}

/* Opens and arms the device; quiet while it is not there yet. */
static void arm(void)
{
	int timeout = wd.sec;
	int fd = open(wd.device, O_WRONLY | O_CLOEXEC);

	if (fd < 0) {
		if (errno != ENOENT && errno != ENXIO) {
			log_warn("unable to open the watchdog %s: %s; booting without it", wd.device,
				 strerror(errno));
			wd.given_up = true;
		}
		return;
	}
	if (ioctl(fd, WDIOC_SETTIMEOUT, &timeout) < 0) {
		log_warn("the watchdog %s refuses a timeout of %d s: %s; it runs with its own",
			 wd.device, wd.sec, strerror(errno));
		if (ioctl(fd, WDIOC_GETTIMEOUT, &timeout) < 0)
			timeout = 0;
	}
	wd.fd = fd;
	wd.sec = timeout > 0 ? timeout : wd.sec;
	log_info("watchdog %s armed: %d s without a sign of progress resets the machine", wd.device,
		 wd.sec);
}

void watchdog_feed(void)
{
	double now;

	if (!wd.sec || wd.given_up)
		return;
	if (wd.fd < 0)
		arm();
	now = timing_now();
	if (wd.fd >= 0 && now - wd.last_ping >= 1.0) {
		(void)ioctl(wd.fd, WDIOC_KEEPALIVE, 0);
		wd.last_ping = now;
	}
}

bool watchdog_armed(void)
{
	return wd.fd >= 0;
}

int watchdog_poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	double end = timeout_ms < 0 ? -1 : timing_now() + timeout_ms / 1000.0;
	int piece = wd.sec > 0 && !wd.given_up ? wd.sec * 500 : -1;
	int r;

	if (piece < 0)
		return poll(fds, n, timeout_ms);
	do {
		int left = end < 0 ? -1 : (int)((end - timing_now()) * 1000.0 + 0.5);

		if (end >= 0 && left < 0)
			left = 0;
		watchdog_feed();
		r = poll(fds, n, left < 0 || left > piece ? piece : left);
	} while (r == 0 && (end < 0 || timing_now() < end));
	watchdog_feed();
	return r;
}

void watchdog_leave(void)
{
	if (wd.fd < 0)
		return;
	(void)ioctl(wd.fd, WDIOC_KEEPALIVE, 0);
	log_info("leaving the watchdog %s armed: the real init must take it over within %d s "
		 "(systemd: RuntimeWatchdogSec=), or the machine resets", wd.device, wd.sec);
	close(wd.fd);
	wd.fd = -1;
	/* should the real init fail to start, the boot stops unfed, as any stopped boot */
	wd.given_up = true;
}
