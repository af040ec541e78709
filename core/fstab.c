/* fstab(5) for the initramfs: fields split on blanks, \ooo escapes decoded, the options the
 * kernel takes kept apart from those meant for mount(8) and systemd. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fstab.h"
#include "text_lines.h"
#include "util.h"

#define FSTAB_MAX_FIELDS 6

/* udev's links named after what a device holds: the spec that names the same. */
static const struct by_link {
	const char *dir;
	const char *key;
} by_links[] = {
	{ "/dev/disk/by-uuid/", "UUID=" },
	{ "/dev/disk/by-label/", "LABEL=" },
	{ "/dev/disk/by-partuuid/", "PARTUUID=" },
	{ "/dev/disk/by-partlabel/", "PARTLABEL=" },
};

/* Words for mount(8), systemd or the boot order, none of them the kernel's. */
static const char *const userspace_words[] = {
	"defaults", "auto", "noauto", "nofail", "user", "users", "nouser", "owner", "group",
	"_netdev", "nobootwait", "sw", "pri", "discard", "loop",
};

static const char *const network_types[] = {
	"nfs", "nfs4", "cifs", "smb3", "ceph", "glusterfs", "9p", "virtiofs", "sshfs",
};

static bool in_list(const char *s, size_t n, const char *const *list, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (strlen(list[i]) == n && strncmp(s, list[i], n) == 0)
			return true;
	return false;
}

static int hex_value(char c)
{
	return isdigit((unsigned char)c) ? c - '0' : tolower((unsigned char)c) - 'a' + 10;
}

void fstab_unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7' && (s[1] != '0' || s[2] != '0' || s[3] != '0')) {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

/* udev's \xHH in a link's name (a label with a space is "my\x20disk"), in place. */
static void decode_hex(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] == 'x' && isxdigit((unsigned char)s[2]) &&
		    isxdigit((unsigned char)s[3]) && (s[2] != '0' || s[3] != '0')) {
			*out++ = (char)(hex_value(s[2]) * 16 + hex_value(s[3]));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

void fstab_device_spec(char *what, char *out, size_t size)
{
	const char *name = NULL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(by_links) && !name; i++)
		name = startswith(what, by_links[i].dir);
	if (name && *name) {
		decode_hex((char *)name);
		snprintf(out, size, "%s%s", by_links[i - 1].key, name);
	} else {
		snprintf(out, size, "%s", what);
	}
}

static void set_what(struct fstab_entry *e, char *what)
{
	fstab_device_spec(what, e->what, sizeof(e->what));
}

/* The mount point without its trailing slashes ("/" stays). */
static void set_where(struct fstab_entry *e, const char *where)
{
	size_t n = strlen(where);

	while (n > 1 && where[n - 1] == '/')
		n--;
	snprintf(e->where, sizeof(e->where), "%.*s", (int)n, where);
}

/* Sorts the options: ro/rw, nofail, _netdev, x-initrd.mount, x-systemd.growfs, noauto noted;
 * the kernel's kept. */
static void set_options(struct fstab_entry *e, const char *options, bool *initrd, bool *noauto)
{
	size_t len = 0;

	e->rw = -1;
	for (const char *s = options; *s;) {
		size_t n = strcspn(s, ",");

		if (n == 2 && strncmp(s, "rw", 2) == 0)
			e->rw = 1;
		else if (n == 2 && strncmp(s, "ro", 2) == 0)
			e->rw = 0;
		else if (n == 14 && strncmp(s, "x-initrd.mount", 14) == 0)
			*initrd = true;
		if (n == 6 && strncmp(s, "noauto", 6) == 0)
			*noauto = true;
		if (n == 6 && strncmp(s, "nofail", 6) == 0)
			e->nofail = true;
		if (n == 7 && strncmp(s, "_netdev", 7) == 0)
			e->network = true;
		if (n == 16 && strncmp(s, "x-systemd.growfs", 16) == 0)
			e->growfs = true;
		if (n > 0 && !(n == 2 && (strncmp(s, "rw", 2) == 0 || strncmp(s, "ro", 2) == 0)) &&
		    !in_list(s, n, userspace_words, ARRAY_SIZE(userspace_words)) &&
		    strncmp(s, "x-", 2) != 0 && strncmp(s, "comment=", 8) != 0 &&
		    strncmp(s, "pri=", 4) != 0 && len + n + 2 < sizeof(e->options))
			len += (size_t)snprintf(e->options + len, sizeof(e->options) - len, "%s%.*s",
						len ? "," : "", (int)n, s);
		s += n + (s[n] == ',');
	}
}

/* The pass field: a few decimal digits; false (and 0) otherwise. */
static bool parse_pass(const char *s, int *pass)
{
	size_t n = strspn(s, "0123456789");
	bool ok = n > 0 && n <= 4 && !s[n];

	*pass = 0;
	for (size_t i = 0; ok && i < n; i++)
		*pass = *pass * 10 + (s[i] - '0');
	return ok;
}

static void note_bad(struct fstab *out, unsigned line, const char *why)
{
	if (out->bad_line)
		return;
	out->bad_line = line;
	COPY_STR(out->bad_why, why);
}

/* One line: an entry for the initramfs is added to out. */
static void parse_line(char *line, unsigned number, struct fstab *out)
{
	char *fields[FSTAB_MAX_FIELDS];
	struct fstab_entry e = { .line = number };
	bool initrd = false, noauto = false;
	int n;

	line += strspn(line, " \t");
	if (!*line || *line == '#')
		return;
	n = text_fields(line, fields, FSTAB_MAX_FIELDS);
	if (n < 2) {
		note_bad(out, number, "fewer than two fields (device and mount point)");
		return;
	}
	for (int i = 0; i < n; i++)
		fstab_unescape(fields[i]);
	if (fields[1][0] != '/' || strlen(fields[0]) >= FSTAB_FIELD || strlen(fields[1]) >= FSTAB_FIELD ||
	    (n > 2 && strlen(fields[2]) >= sizeof(e.type))) {
		/* swap entries have "none" or "swap" here, which nothing mounts in the initramfs */
		if (!streq(fields[1], "none") && !streq(fields[1], "swap"))
			note_bad(out, number, "a mount point that is not an absolute path, or a field too long");
		return;
	}
	set_what(&e, fields[0]);
	set_where(&e, fields[1]);
	if (n > 2 && !streq(fields[2], "auto"))
		COPY_STR(e.type, fields[2]);
	set_options(&e, n > 3 ? fields[3] : "", &initrd, &noauto);
	if (n > 5 && !parse_pass(fields[5], &e.passno))
		note_bad(out, number, "the sixth field (pass) is not a number");
	e.network = e.network || in_list(e.type, strlen(e.type), network_types, ARRAY_SIZE(network_types));
	/* systemd takes /usr whatever noauto says; other x-initrd.mount entries are pulled in
	 * unless noauto */
	if (!streq(e.where, "/usr") && !(initrd && !noauto))
		return;
	if (streq(e.type, "swap") || streq(e.where, "/"))
		return;
	if (out->n == FSTAB_MAX_ENTRIES)
		out->dropped++;
	else
		out->entries[out->n++] = e;
}

static void read_line(char *line, unsigned number, void *ctx)
{
	struct fstab *out = ctx;

	if (line)
		parse_line(line, number, out);
	else
		note_bad(out, number, "the line is too long");
}

void fstab_parse_initrd(const char *text, size_t len, struct fstab *out)
{
	char line[4 * FSTAB_FIELD];

	memset(out, 0, sizeof(*out));
	text_lines(text, len, line, sizeof(line), read_line, out);
}

int fstab_entry_make(const char *what, const char *where, const char *type, const char *options,
		     struct fstab_entry *e)
{
	char spec[FSTAB_FIELD];
	bool initrd = false, noauto = false;
	int r = 0;

	memset(e, 0, sizeof(*e));
	if (where[0] != '/' || strlen(where) >= FSTAB_FIELD || copy_str(spec, sizeof(spec), what) < 0 ||
	    !spec[0] || strlen(type) >= sizeof(e->type) || strlen(options) >= FSTAB_FIELD) {
		r = -EINVAL;
		goto out;
	}
	set_what(e, spec);
	set_where(e, where);
	if (!streq(type, "auto"))
		COPY_STR(e->type, type);
	set_options(e, options, &initrd, &noauto);
	e->network = e->network || in_list(e->type, strlen(e->type), network_types,
					   ARRAY_SIZE(network_types));
out:
	return r;
}

const struct fstab_entry *fstab_find(const struct fstab *f, const char *where)
{
	for (size_t i = 0; i < f->n; i++)
		if (streq(f->entries[i].where, where))
			return &f->entries[i];
	return NULL;
}
