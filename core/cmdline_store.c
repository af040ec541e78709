/* The strings of struct options, kept in its own storage: the command line is read without
 * allocating. */
#include <errno.h>
#include <string.h>

#include "cmdline_keys.h"

int cmdline_store(struct options *o, const char *s, const char **out)
{
	size_t n = strlen(s) + 1;
	int r = -E2BIG;

	if (n > sizeof(o->storage) - o->used)
		goto out;
	memcpy(o->storage + o->used, s, n);
	*out = o->storage + o->used;
	o->used += n;
	r = 0;
out:
	return r;
}

/* An empty value resets the key, as if it had not been given. */
int cmdline_store_or_reset(struct options *o, const char *value, const char **field)
{
	if (value[0] == '\0') {
		*field = NULL;
		return 0;
	}
	return cmdline_store(o, value, field);
}

/* Appends the non-empty comma-separated items of value to *list, which must be the last
 * string in storage: join_lists() (cmdline.c) builds one list at a time, after every other
 * key. */
int cmdline_list_append(struct options *o, const char **list, const char *value)
{
	size_t len = strlen(value);
	const char *item = value;
	char *out;
	int r = 0;

	if (!*list) {
		r = cmdline_store(o, "", list);
		if (r < 0)
			goto out;
	}
	/* The items and their commas take at most len + 1 bytes beyond the terminator. */
	if (len + 1 > sizeof(o->storage) - o->used) {
		r = -E2BIG;
		goto out;
	}
	out = o->storage + o->used - 1;
	while (*item) {
		size_t n = strcspn(item, ",");

		if (n > 0) {
			if (out != *list)
				*out++ = ',';
			memcpy(out, item, n);
			out += n;
		}
		item += n;
		if (*item == ',')
			item++;
	}
	*out = '\0';
	o->used = (size_t)(out - o->storage) + 1;
out:
	return r;
}
