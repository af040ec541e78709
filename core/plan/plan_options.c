/* The options a mount gets. The planner decides ro and rw itself (GPT bit 60, the volatile
 * modes, the boot's ro/rw), so the user's rootflags=, mount.usrflags= and earlymount.tmpfs=
 * are merged in word by word, never copied whole. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "plan_internal.h"
#include "util.h"

static bool has_option(const char *options, const char *word, size_t len)
{
	const char *s = options;

	while (*s) {
		size_t n = strcspn(s, ",");

		if (n == len && strncmp(s, word, len) == 0)
			return true;
		s += n;
		if (*s == ',')
			s++;
	}
	return false;
}

static void add_option(struct text *t, const char *word, size_t len)
{
	if (len == 0 || has_option(t->buf, word, len))
		return;
	plan_text_add(t, "%s%.*s", t->len ? "," : "", (int)len, word);
}

bool plan_flags_have(const char *flags, const char *word)
{
	return flags && has_option(flags, word, strlen(word));
}

/* Whether the last ro/rw word in flags is rw. */
bool plan_flags_want_rw(const char *flags)
{
	bool rw = false;

	while (flags && *flags) {
		size_t n = strcspn(flags, ",");

		if (n == 2 && strncmp(flags, "rw", 2) == 0)
			rw = true;
		else if (n == 2 && strncmp(flags, "ro", 2) == 0)
			rw = false;
		flags += n;
		if (*flags == ',')
			flags++;
	}
	return rw;
}

/* ro|rw, nodev, nosuid, noexec, then filesystem options, then the user's, no word twice. */
int plan_format_options(struct planner *p, char *out, size_t size, const struct mount_flags *f,
			const char *target)
{
	const char *s = f->user;
	struct text t;
	int r = 0;

	plan_text_init(&t, out, size);
	add_option(&t, f->rw ? "rw" : "ro", 2);
	if (f->nodev)
		add_option(&t, "nodev", 5);
	if (f->nosuid)
		add_option(&t, "nosuid", 6);
	if (f->noexec)
		add_option(&t, "noexec", 6);
	if (f->umask)
		add_option(&t, "umask=0077", 10);
	if (f->norecovery)
		add_option(&t, "norecovery", 10);
	while (s && *s) {
		size_t n = strcspn(s, ",");

		if (!(n == 2 && (strncmp(s, "ro", 2) == 0 || strncmp(s, "rw", 2) == 0)))
			add_option(&t, s, n);
		s += n;
		if (*s == ',')
			s++;
	}
	if (t.full)
		r = plan_fail(p, -EINVAL, "mount options for %s are longer than %d bytes: shorten "
			      "rootflags= or mount.usrflags=", target, PLAN_OPTIONS - 1);
	return r;
}

static bool word_is_ro_rw(const char *word, size_t len)
{
	return len == 2 && (strncmp(word, "ro", 2) == 0 || strncmp(word, "rw", 2) == 0);
}

/* The last word of options with the same key (the part before '=') as word, or NULL: the
 * last one is what the filesystem would take. */
static const char *option_with_key(const char *options, const char *word, size_t len,
				   size_t *found_len)
{
	const char *eq = memchr(word, '=', len);
	size_t key = eq ? (size_t)(eq - word) : len;
	const char *found = NULL;

	for (const char *s = options; s && *s;) {
		size_t n = strcspn(s, ",");

		if (n >= key && strncmp(s, word, key) == 0 && (n == key || s[key] == '=')) {
			found = s;
			*found_len = n;
		}
		s += n + (s[n] == ',');
	}
	return found;
}

/* The btrfs subvolume flags pick: their last subvol= or subvolid= word, or "" (the default
 * subvolume). */
static void subvolume_word(const char *flags, char *out, size_t size)
{
	size_t n = 0, nid = 0;
	const char *w = option_with_key(flags, "subvol", 6, &n);
	const char *id = option_with_key(flags, "subvolid", 8, &nid);

	/* the later word wins, as in the kernel's option parser */
	if (id && (!w || id > w)) {
		w = id;
		n = nid;
	}
	snprintf(out, size, "%.*s", w ? (int)n : 0, w ? w : "");
}

bool plan_flags_other_subvolume(const char *a, const char *b)
{
	char wa[PLAN_PATH], wb[PLAN_PATH];

	subvolume_word(a, wa, sizeof(wa));
	subvolume_word(b, wb, sizeof(wb));
	return !streq(wa, wb);
}

/* defaults with each word the user gave for the same key in its place, then the user's
 * other words; the user's ro/rw are left out (the caller decides those). */
int plan_merge_tmpfs_options(struct planner *p, const char *defaults, const char *user,
			     char *out, size_t size, const char *target)
{
	struct text t;
	int r = 0;

	plan_text_init(&t, out, size);
	for (const char *s = defaults; *s;) {
		size_t n = strcspn(s, ","), given_len = 0;
		const char *given = word_is_ro_rw(s, n) ? NULL : option_with_key(user, s, n, &given_len);

		if (given)
			add_option(&t, given, given_len);
		else
			add_option(&t, s, n);
		s += n + (s[n] == ',');
	}
	for (const char *s = user; s && *s;) {
		size_t n = strcspn(s, ","), found_len;

		if (!word_is_ro_rw(s, n) && !option_with_key(defaults, s, n, &found_len))
			add_option(&t, s, n);
		s += n + (s[n] == ',');
	}
	if (t.full)
		r = plan_fail(p, -EINVAL, "mount options for %s are longer than %d bytes: shorten "
			      "rootflags= or earlymount.tmpfs=", target, PLAN_OPTIONS - 1);
	return r;
}
