/* Binary keymaps, checked whole before the first entry is handed on: a keyboard half
 * switched to another layout is worse than one left alone. */
#include <errno.h>
#include <string.h>

#include "bkeymap.h"

int bkeymap_check(const uint8_t *bytes, size_t len)
{
	size_t magic = strlen(BKEYMAP_MAGIC), maps = 0;
	int r = -EINVAL;

	if (len >= magic + BKEYMAP_MAPS && !memcmp(bytes, BKEYMAP_MAGIC, magic)) {
		for (size_t i = 0; i < BKEYMAP_MAPS; i++)
			maps += bytes[magic + i] != 0;
		if (len == magic + BKEYMAP_MAPS + maps * BKEYMAP_KEYS * sizeof(uint16_t))
			r = (int)(maps * BKEYMAP_KEYS);
	}
	return r;
}

int bkeymap_walk(const uint8_t *bytes, size_t len, bkeymap_entry_fn *fn, void *data)
{
	size_t magic = strlen(BKEYMAP_MAGIC), pos = magic + BKEYMAP_MAPS;
	int r = bkeymap_check(bytes, len), count = 0;

	if (r < 0)
		return r;
	for (unsigned table = 0; table < BKEYMAP_MAPS && r >= 0; table++) {
		if (!bytes[magic + table])
			continue;
		for (unsigned key = 0; key < BKEYMAP_KEYS && r >= 0; key++, pos += 2) {
			uint16_t value;

			memcpy(&value, bytes + pos, sizeof(value));
			r = fn(table, key, value, data);
			count++;
		}
	}
	return r < 0 ? r : count;
}
