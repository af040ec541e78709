/* quiet, and debug and rd.debug: how much the boot says. */
#include "cmdline_keys.h"

int cmdline_set_quiet(struct options *o, const char *value, const char **why)
{
	o->quiet = true;
	return 0;
}

int cmdline_set_debug(struct options *o, const char *value, const char **why)
{
	o->debug = true;
	return 0;
}
