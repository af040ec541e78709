/* Sizes for people, in binary units. */
#include <stdio.h>

#include "format_size.h"
#include "util.h"

void format_size(uint64_t bytes, char *buf, size_t size)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024 && u + 1 < ARRAY_SIZE(units)) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
}
