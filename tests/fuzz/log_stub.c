/* Stand-in for lib/log.c while it cannot be built: the fuzz targets need log.h's functions.
 * Every message is still formatted, so a bad argument shows up under the sanitizers. */
#include <stdio.h>

#include "log.h"

static int max_level = LOG_INFO;

void log_setup(enum log_target target)
{
	(void)target;
}

void log_set_max_level(int level)
{
	max_level = level;
}

int log_get_max_level(void)
{
	return max_level;
}

int log_open_kmsg(void)
{
	return 0;
}

void log_vmsg(int level, const char *fmt, va_list ap)
{
	char line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	if (level <= max_level)
		fprintf(stderr, "%s\n", line);
}

void log_msg(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}
