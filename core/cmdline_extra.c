/* systemd.mount-extra=WHAT:WHERE[:FSTYPE[:OPTIONS]] (and rd.systemd.mount-extra=, for the initrd
 * alone) and systemd.swap-extra=WHAT[:OPTIONS], as systemd-fstab-generator(8) reads them: more
 * fstab entries given on the command line, each key repeatable. The fields split at ':', the
 * last one given taking the rest (options may hold ':'; a WHAT cannot). And the credential
 * keys, which only count here (core/credentials.c reads their values where they are used). */
#include <errno.h>
#include <string.h>

#include "cmdline_keys.h"
#include "util.h"

#define EXTRA_FIELDS 4

/* value split at ':' into at most max fields, in place; their count. */
static size_t split(char *value, char *fields[], size_t max)
{
	size_t n = 0;

	fields[n++] = value;
	while (n < max) {
		char *colon = strchr(fields[n - 1], ':');

		if (!colon)
			break;
		*colon = '\0';
		fields[n++] = colon + 1;
	}
	return n;
}

static int add(struct fstab *list, const struct fstab_entry *e, const char **why)
{
	int r = 0;

	if (list->n == FSTAB_MAX_ENTRIES) {
		*why = "more than 8 of them";
		r = -E2BIG;
	} else {
		list->entries[list->n++] = *e;
	}
	return r;
}

/* value copied into copy (of size bytes) and split into at most max fields: their count, or
 * 0 when it is too long. */
static size_t fields_of(const char *value, char *copy, size_t size, char *f[], size_t max)
{
	return copy_str(copy, size, value) < 0 ? 0 : split(copy, f, max);
}

int cmdline_set_mount_extra(struct options *o, const char *value, const char **why)
{
	char copy[4 * FSTAB_FIELD], *f[EXTRA_FIELDS] = { 0 };
	size_t n = fields_of(value, copy, sizeof(copy), f, EXTRA_FIELDS);
	struct fstab_entry e;
	int r = -EINVAL;

	if (n < 2 || fstab_entry_make(f[0], f[1], n > 2 ? f[2] : "", n > 3 ? f[3] : "", &e) < 0)
		*why = "not WHAT:WHERE[:FSTYPE[:OPTIONS]] with an absolute WHERE";
	else if (streq(e.where, "/") || streq(e.where, "/usr"))
		*why = "the root and /usr are given by root= and mount.usr=";
	else {
		e.line = (unsigned)o->mount_extra.n + 1;
		r = add(&o->mount_extra, &e, why);
	}
	return r;
}

int cmdline_set_swap_extra(struct options *o, const char *value, const char **why)
{
	char copy[2 * FSTAB_FIELD], *f[2] = { 0 };
	size_t n = fields_of(value, copy, sizeof(copy), f, 2);
	struct fstab_entry e;
	int r = -EINVAL;

	if (n == 0 || fstab_entry_make(f[0], "/", "swap", n > 1 ? f[1] : "", &e) < 0) {
		*why = "not WHAT[:OPTIONS]";
	} else {
		e.line = (unsigned)o->swap_extra.n + 1;
		r = add(&o->swap_extra, &e, why);
	}
	return r;
}

/* Never refused here: a refusal would print the value, and a credential's value is secret. */
int cmdline_set_credential(struct options *o, const char *value, const char **why)
{
	o->n_credentials++;
	return 0;
}

int cmdline_set_import_credentials(struct options *o, const char *value, const char **why)
{
	return cmdline_set_bool(value, &o->import_credentials, why);
}

int cmdline_set_tpm2_wait(struct options *o, const char *value, const char **why)
{
	bool wait = false;
	int r = cmdline_set_bool(value, &wait, why);

	if (r == 0)
		o->tpm2_wait = wait;
	return r;
}
