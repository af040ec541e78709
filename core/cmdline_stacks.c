/* The storage stacks on the command line: whether the boot assembles them (rd.lvm=, rd.md=),
 * and how long an md array waits for a missing member (earlymount.md_degraded=). */
#include <errno.h>

#include "cmdline_keys.h"
#include "parse.h"

int cmdline_set_lvm(struct options *o, const char *value, const char **why)
{
	return cmdline_set_bool(value, &o->lvm.enabled, why);
}

int cmdline_set_md(struct options *o, const char *value, const char **why)
{
	return cmdline_set_bool(value, &o->md.enabled, why);
}

int cmdline_set_md_degraded(struct options *o, const char *value, const char **why)
{
	int r = parse_time_span(value, &o->md.degraded_sec);

	if (r < 0) {
		*why = "not a time span; use whole seconds, a span such as 20s, or infinity (never "
		       "start an array degraded)";
		o->md.degraded_sec = -1;
	}
	return r < 0 ? -EINVAL : 0;
}
