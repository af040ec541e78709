/* crypttab(5) for the initramfs: four fields split on blanks (the last two optional), \ooo
 * escapes decoded as in fstab, the options read by the same parser as rd.luks.options=. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "crypttab.h"
#include "dm_name.h"
#include "fstab.h"
#include "luks.h"
#include "text_lines.h"
#include "util.h"

#define CRYPTTAB_MAX_FIELDS 5 /* one more than taken, to tell a fifth field */

/* Keys that are no secret but a new random one at each boot: the volume is formatted anew
 * every time (swap, /tmp), which is the real system's job, not the initramfs's. */
static const char *const random_keys[] = { "/dev/urandom", "/dev/random", "/dev/hw_random" };

/* Options that format the volume once opened: as above. */
static const char *const formatting_words[] = { "swap", "tmp" };

static bool has_word(const char *options, const char *word)
{
	size_t n = strlen(word);

	for (const char *w = options; *w;) {
		size_t len = strcspn(w, ",");

		if ((len == n || (len > n && w[n] == '=')) && strncmp(w, word, n) == 0)
			return true;
		w += len;
		w += *w == ',';
	}
	return false;
}

static bool is_random_key(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(random_keys); i++)
		if (streq(key, random_keys[i]))
			return true;
	return false;
}

static bool formats(const char *options)
{
	for (size_t i = 0; i < ARRAY_SIZE(formatting_words); i++)
		if (has_word(options, formatting_words[i]))
			return true;
	return false;
}

/* What the boot does with e, its fields filled. */
static void set_use(struct crypttab_entry *e)
{
	char path[CRYPTTAB_FIELD], device[CRYPTTAB_FIELD];
	struct luks_options o;

	if (is_random_key(e->key) || formats(e->options)) {
		e->use = CRYPTTAB_REAL;
	} else if (has_word(e->options, "noauto")) {
		e->use = CRYPTTAB_NOAUTO;
	} else if (luks_options_parse(e->options, &o, e->why, sizeof(e->why)) < 0) {
		e->use = CRYPTTAB_REFUSED;
	} else if (e->key[0] && luks_key_parse(e->key, path, sizeof(path), device, sizeof(device)) < 0) {
		e->use = CRYPTTAB_REFUSED;
		snprintf(e->why, sizeof(e->why), "the key '%.80s' is no absolute path (PATH or "
			 "PATH:DEVICE), nor none", e->key);
	} else {
		e->use = CRYPTTAB_OPEN;
	}
}

static void note_bad(struct crypttab *out, unsigned line, const char *why)
{
	if (out->bad_line)
		return;
	out->bad_line = line;
	COPY_STR(out->bad_why, why);
}

/* One line: its entry is added to out. */
static void parse_line(char *line, unsigned number, struct crypttab *out)
{
	char *fields[CRYPTTAB_MAX_FIELDS];
	struct crypttab_entry *e;
	int n;

	line += strspn(line, " \t");
	if (!*line || *line == '#')
		return;
	n = text_fields(line, fields, CRYPTTAB_MAX_FIELDS);
	for (int i = 0; i < n; i++)
		fstab_unescape(fields[i]);
	if (n < 2 || n > 4) {
		note_bad(out, number, n < 2 ? "fewer than two fields (name and device)"
					    : "more than four fields (name, device, key, options)");
		return;
	}
	if (!dm_name_valid(fields[0]) || strlen(fields[0]) >= sizeof(e->name)) {
		note_bad(out, number, "a volume name the device-mapper does not take (" DM_NAME_RULE ")");
		return;
	}
	for (int i = 1; i < n; i++)
		if (strlen(fields[i]) >= CRYPTTAB_FIELD) {
			note_bad(out, number, "a field longer than 255 bytes");
			return;
		}
	if (out->n == CRYPTTAB_MAX_ENTRIES) {
		out->dropped++;
		return;
	}
	e = &out->entries[out->n++];
	memset(e, 0, sizeof(*e));
	e->line = number;
	COPY_STR(e->name, fields[0]);
	fstab_device_spec(fields[1], e->device, sizeof(e->device));
	if (n > 2 && !streq(fields[2], "-") && !streq(fields[2], "none"))
		COPY_STR(e->key, fields[2]);
	if (n > 3)
		COPY_STR(e->options, fields[3]);
	set_use(e);
}

static void read_line(char *line, unsigned number, void *ctx)
{
	struct crypttab *out = ctx;

	if (line)
		parse_line(line, number, out);
	else
		note_bad(out, number, "a line longer than 1023 bytes");
}

void crypttab_parse(const char *text, size_t len, struct crypttab *out)
{
	char line[1024];

	memset(out, 0, sizeof(*out));
	if (len > CRYPTTAB_TEXT_MAX)
		len = CRYPTTAB_TEXT_MAX;
	text_lines(text, len, line, sizeof(line), read_line, out);
}

const struct crypttab_entry *crypttab_find(const struct crypttab *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (streq(t->entries[i].name, name))
			return &t->entries[i];
	return NULL;
}

const char *crypttab_use_name(enum crypttab_use use)
{
	static const char *const names[] = {
		[CRYPTTAB_OPEN] = "opened at boot",
		[CRYPTTAB_NOAUTO] = "noauto: not opened",
		[CRYPTTAB_REAL] = "a random key: left to the real system",
		[CRYPTTAB_REFUSED] = "refused",
	};

	return (size_t)use < ARRAY_SIZE(names) ? names[use] : "?";
}
