/* The forms of value that keys of more than one area take: booleans, words, device specs. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "cmdline_keys.h"
#include "parse.h"
#include "util.h"

static const char *const device_tags[] = { "UUID=", "PARTUUID=", "LABEL=", "PARTLABEL=" };

bool cmdline_is_device_spec(const char *s)
{
	if (s[0] == '/')
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(device_tags); i++) {
		const char *rest = startswith(s, device_tags[i]);

		if (rest && rest[0] != '\0')
			return true;
	}
	return false;
}

/* A boolean key: the bare key means yes. */
int cmdline_set_bool(const char *value, bool *field, const char **why)
{
	int b = value ? parse_boolean(value) : 1;

	if (b < 0) {
		*why = "not a boolean; use yes or no (or 1/0, true/false, on/off, y/n, t/f)";
		return b;
	}
	*field = b;
	return 0;
}

/* The value of word in table; -EINVAL when it is not there. */
int cmdline_word_lookup(const struct word_value *table, size_t n, const char *word, int *value)
{
	int r = -EINVAL;

	for (size_t i = 0; i < n && r < 0; i++)
		if (streq(word, table[i].word)) {
			*value = table[i].value;
			r = 0;
		}
	return r;
}
