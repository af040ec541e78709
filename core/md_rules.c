/* md RAID at boot, the pure part: the arrays the command line lets the boot assemble, and
 * when an incomplete one starts degraded. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "md_rules.h"
#include "util.h"

#define MD_UUID_HEX 32

const char *const md_levels[] = { "linear", "raid0", "raid1", "raid4", "raid5", "raid6", "raid10" };
const size_t md_levels_n = ARRAY_SIZE(md_levels);

/* The UUID's 32 hex digits in lower case, without separators: false when it is not one. */
static bool md_uuid_digits(const char *uuid, size_t len, char out[MD_UUID_HEX + 1])
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		if (uuid[i] == ':' || uuid[i] == '-')
			continue;
		if (!isxdigit((unsigned char)uuid[i]) || n == MD_UUID_HEX)
			return false;
		out[n++] = (char)tolower((unsigned char)uuid[i]);
	}
	out[n] = '\0';
	return n == MD_UUID_HEX;
}

/* mdadm's 8:8:8:8 or libblkid's 8-4-4-4-12: the separators where one of the forms has them. */
static bool md_uuid_form(const char *uuid, size_t len)
{
	static const char *const forms[] = { "xxxxxxxx:xxxxxxxx:xxxxxxxx:xxxxxxxx",
					     "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" };
	bool ok = false;

	for (size_t f = 0; f < ARRAY_SIZE(forms) && !ok; f++) {
		ok = strlen(forms[f]) == len;
		for (size_t i = 0; i < len && ok; i++)
			ok = forms[f][i] == 'x' ? isxdigit((unsigned char)uuid[i]) : forms[f][i] == uuid[i];
	}
	return ok;
}

bool md_uuid_valid(const char *uuid)
{
	return md_uuid_form(uuid, strlen(uuid));
}

/* Calls fn for each entry of the comma-separated list until it returns true: that answer. */
static bool list_any(const char *list, bool (*fn)(const char *entry, size_t len, void *data),
		     void *data)
{
	bool found = false;

	while (list && *list && !found) {
		size_t len = strcspn(list, ",");

		found = len > 0 && fn(list, len, data);
		list += len + (list[len] == ',');
	}
	return found;
}

static bool entry_is_uuid(const char *entry, size_t len, void *data)
{
	const char *digits = data;
	char got[MD_UUID_HEX + 1];

	return md_uuid_form(entry, len) && md_uuid_digits(entry, len, got) && streq(got, digits);
}

bool md_array_wanted(const struct md_cmdline *md, const char *array_uuid)
{
	char digits[MD_UUID_HEX + 1];

	if (!md->enabled)
		return false;
	if (!md->uuids)
		return true;
	return md_uuid_digits(array_uuid, strlen(array_uuid), digits) &&
	       list_any(md->uuids, entry_is_uuid, digits);
}

struct invalid_entry {
	char *out;
	size_t size;
};

static bool entry_invalid(const char *entry, size_t len, void *data)
{
	struct invalid_entry *e = data;
	bool bad = !md_uuid_form(entry, len);

	if (bad && e->size > 0)
		snprintf(e->out, e->size, "%.*s", (int)len, entry);
	return bad;
}

bool md_uuid_list_invalid(const struct md_cmdline *md, char *out, size_t size)
{
	return list_any(md->uuids, entry_invalid, &(struct invalid_entry){ out, size });
}

int md_degraded_sec(const struct md_cmdline *md, int root_wait_sec)
{
	int sec = md->degraded_sec >= 0 ? md->degraded_sec : MD_DEGRADED_DEFAULT_SEC;

	if (md->degraded_sec < 0 && root_wait_sec > 0 && sec > root_wait_sec / 2)
		sec = root_wait_sec / 2 > 0 ? root_wait_sec / 2 : 1;
	return sec;
}
