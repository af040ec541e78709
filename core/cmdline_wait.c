/* How long the boot waits for its devices: rootwait, rd.timeout= (earlymount.timeout=) and
 * rootdelay=. */
#include <errno.h>

#include "cmdline_keys.h"
#include "parse.h"

int cmdline_set_rootwait(struct options *o, const char *value, const char **why)
{
	o->rootwait = true;
	return 0;
}

int cmdline_set_timeout(struct options *o, const char *value, const char **why)
{
	int r = parse_time_span(value, &o->timeout_sec);

	if (r == -ERANGE)
		*why = "too long; use infinity to wait forever";
	else if (r < 0)
		*why = "not a time span; use whole seconds, a span such as 90s, 500ms or 2min, or infinity";
	return r < 0 ? -EINVAL : 0;
}

int cmdline_set_rootdelay(struct options *o, const char *value, const char **why)
{
	int r = parse_seconds(value, &o->rootdelay_sec);

	if (r < 0)
		*why = "not a number of seconds; use a whole number of seconds, 0 or more";
	return r < 0 ? -EINVAL : 0;
}
