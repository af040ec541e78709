/* Resume from hibernation: resume=, resume_offset= and noresume. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "cmdline_keys.h"
#include "parse.h"
#include "util.h"

int cmdline_set_resume(struct options *o, const char *value, const char **why)
{
	int r = 0;

	if (value[0] && !cmdline_is_device_spec(value) && !is_devno(value)) {
		*why = "not a device; give a path such as /dev/vda3, a UUID=, PARTUUID=, LABEL= or "
		       "PARTLABEL= tag, or MAJOR:MINOR";
		r = -EINVAL;
	} else {
		r = cmdline_store_or_reset(o, value, &o->resume);
	}
	return r;
}

int cmdline_set_resume_offset(struct options *o, const char *value, const char **why)
{
	int r = parse_decimal(value, strlen(value), UINT64_MAX, &o->resume_offset);

	if (r < 0)
		*why = "not a number of pages; give the swap file's first page, as "
		       "filefrag or btrfs inspect-internal map-swapfile -r print it";
	else
		o->has_resume_offset = true;
	return r;
}

int cmdline_set_noresume(struct options *o, const char *value, const char **why)
{
	o->noresume = true;
	return 0;
}
