/* Values in the forms systemd and the kernel write them: booleans, time spans, seconds, device
 * numbers. Pure: no logging, no allocation. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "parse.h"
#include "util.h"

static const struct {
	const char *word;
	int value;
} boolean_words[] = {
	{ "1", 1 }, { "yes", 1 }, { "y", 1 }, { "true", 1 }, { "t", 1 }, { "on", 1 },
	{ "0", 0 }, { "no", 0 }, { "n", 0 }, { "false", 0 }, { "f", 0 }, { "off", 0 },
};

/* A bare number is seconds, as in systemd's time spans. */
static const struct {
	const char *name;
	uint32_t ms;
} time_units[] = {
	{ "", 1000 }, { "s", 1000 }, { "sec", 1000 }, { "min", 60 * 1000 }, { "ms", 1 },
};

/* The longest span whose seconds still fit an int, in milliseconds. */
#define SPAN_MAX_MS ((uint64_t)INT_MAX * 1000)

int parse_boolean(const char *s)
{
	int r = -EINVAL;

	if (!s)
		goto out;
	/* systemd compares the words without regard to case. */
	for (size_t i = 0; i < ARRAY_SIZE(boolean_words); i++)
		if (strcasecmp(s, boolean_words[i].word) == 0) {
			r = boolean_words[i].value;
			break;
		}
out:
	return r;
}

/* The kernel's own form of a device, "MAJ:MIN" in decimal, as /sys/power/resume takes it. */
bool is_devno(const char *s)
{
	size_t major = strspn(s, "0123456789");
	size_t minor = major && s[major] == ':' ? strspn(s + major + 1, "0123456789") : 0;

	return minor > 0 && s[major + 1 + minor] == '\0';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Reads digits at *s, at most limit; -ERANGE past it, -EINVAL when there are none. */
static int read_number(const char **s, uint64_t limit, uint64_t *out)
{
	const char *p = *s;
	uint64_t n = 0;
	int r = -EINVAL;

	if (!is_digit(*p))
		goto out;
	for (; is_digit(*p); p++) {
		n = n * 10 + (uint64_t)(*p - '0');
		if (n > limit) {
			r = -ERANGE;
			goto out;
		}
	}
	*s = p;
	*out = n;
	r = 0;
out:
	return r;
}

int parse_seconds(const char *s, int *out)
{
	uint64_t n;
	int r = read_number(&s, INT_MAX, &n);

	if (r == 0 && *s != '\0')
		r = -EINVAL;
	if (r == 0)
		*out = (int)n;
	return r;
}

int parse_time_span(const char *s, int *out)
{
	uint64_t total_ms = 0, n;
	bool any = false;
	int r = 0;

	if (streq(s, "infinity")) {
		*out = 0;
		goto out;
	}
	for (;;) {
		size_t unit_len;
		size_t i;

		while (is_space(*s))
			s++;
		if (*s == '\0')
			break;
		r = read_number(&s, SPAN_MAX_MS, &n);
		if (r < 0)
			goto out;
		while (is_space(*s))
			s++;
		unit_len = strcspn(s, "0123456789 \t\n");
		for (i = 0; i < ARRAY_SIZE(time_units); i++)
			if (strlen(time_units[i].name) == unit_len &&
			    strncmp(s, time_units[i].name, unit_len) == 0)
				break;
		if (i == ARRAY_SIZE(time_units)) {
			r = -EINVAL;
			goto out;
		}
		s += unit_len;
		total_ms += n * time_units[i].ms;
		if (total_ms > SPAN_MAX_MS) {
			r = -ERANGE;
			goto out;
		}
		any = true;
	}
	if (!any) {
		r = -EINVAL;
		goto out;
	}
	*out = (int)((total_ms + 999) / 1000);
out:
	return r;
}
