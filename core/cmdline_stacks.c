/* The storage stacks on the command line: whether the boot assembles them (rd.lvm=). */
#include "cmdline_keys.h"

int cmdline_set_lvm(struct options *o, const char *value, const char **why)
{
	return cmdline_set_bool(value, &o->lvm.enabled, why);
}
