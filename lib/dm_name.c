/* The names the kernel's device-mapper takes for a device. */
#include <string.h>

#include "dm_name.h"
#include "util.h"

bool dm_name_valid(const char *name)
{
	static const char *const reserved[] = { ".", "..", "control" };
	size_t len = strlen(name);
	bool ok = len > 0 && len <= 127 && !strchr(name, '/');

	for (size_t i = 0; i < ARRAY_SIZE(reserved) && ok; i++)
		ok = !streq(name, reserved[i]);
	return ok;
}
