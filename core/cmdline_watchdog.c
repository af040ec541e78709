/* The hardware watchdog across the initramfs: rd.watchdog= (its timeout) and systemd's
 * systemd.watchdog_device= (which device; the driver comes with rd.driver.pre=). */
#include <errno.h>
#include <string.h>

#include "cmdline_keys.h"
#include "parse.h"

/* The longest timeout asked for: watchdog drivers take an unsigned int of seconds, and most
 * hardware far less (the driver then refuses it, and the boot says so). */
#define WATCHDOG_MAX_SEC 3600

int cmdline_set_watchdog(struct options *o, const char *value, const char **why)
{
	int sec = 0;
	int r = value && (strcmp(value, "0") == 0 || strcmp(value, "off") == 0) ? 0
										 : parse_time_span(value, &sec);

	if (r == 0 && (sec < 0 || sec > WATCHDOG_MAX_SEC)) {
		r = -EINVAL;
		*why = "out of range; give 1s to 1h, or 0 (off)";
	} else if (r < 0) {
		*why = "not a time span; use whole seconds, a span such as 30s or 2min, or 0 (off)";
	}
	if (r == 0)
		o->watchdog_sec = sec;
	return r < 0 ? -EINVAL : 0;
}

int cmdline_set_watchdog_device(struct options *o, const char *value, const char **why)
{
	int r = value && value[0] == '/' ? cmdline_store(o, value, &o->watchdog_device) : -EINVAL;

	if (r == -EINVAL)
		*why = "an absolute path of a watchdog device expected (/dev/watchdog0)";
	return r;
}
