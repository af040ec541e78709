/* LUKS on the command line: rd.luks.* and luks.*, each a volume by its header's UUID or for
 * every volume. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cmdline_keys.h"
#include "dm_name.h"
#include "util.h"
#include "uuid.h"

int cmdline_set_luks(struct options *o, const char *value, const char **why)
{
	return cmdline_set_bool(value, &o->luks.enabled, why);
}

int cmdline_set_luks_crypttab(struct options *o, const char *value, const char **why)
{
	return cmdline_set_bool(value, &o->luks.crypttab, why);
}

/* The volume of a LUKS header UUID ("luks-" prefix allowed, as systemd takes it), added when
 * new. 0, -EINVAL (not a UUID) or -ENOSPC. */
static int luks_volume(struct options *o, const char *uuid, size_t len, struct luks_volume **out)
{
	char text[UUID_STR_LEN + sizeof("luks-")];
	uint8_t bytes[16];
	char normal[UUID_STR_LEN];
	struct luks_cmdline *l = &o->luks;
	int r = -EINVAL;

	if (len >= sizeof(text))
		goto out;
	memcpy(text, uuid, len);
	text[len] = '\0';
	uuid = startswith(text, "luks-") ? text + 5 : text;
	if (uuid_parse(uuid, bytes) < 0 && id128_parse(uuid, bytes) < 0)
		goto out;
	uuid_format(bytes, normal);
	for (size_t i = 0; i < l->n_volumes; i++)
		if (streq(l->volumes[i].uuid, normal)) {
			*out = &l->volumes[i];
			r = 0;
			goto out;
		}
	r = -ENOSPC;
	if (l->n_volumes == LUKS_MAX_VOLUMES)
		goto out;
	*out = &l->volumes[l->n_volumes++];
	memset(*out, 0, sizeof(**out));
	COPY_STR((*out)->uuid, normal);
	r = 0;
out:
	return r;
}

static const char *luks_volume_why(int r)
{
	return r == -ENOSPC ? "more LUKS volumes than earlymount keeps (8)"
			    : "not a LUKS UUID (as cryptsetup luksUUID prints it)";
}

int cmdline_set_luks_uuid(struct options *o, const char *value, const char **why)
{
	struct luks_volume *v;
	int r = luks_volume(o, value, strlen(value), &v);

	if (r == 0)
		v->listed = true;
	else
		*why = luks_volume_why(r);
	return r < 0 ? -EINVAL : 0;
}

int cmdline_set_luks_name(struct options *o, const char *value, const char **why)
{
	const char *eq = strchr(value, '=');
	struct luks_volume *v;
	int r = eq ? luks_volume(o, value, (size_t)(eq - value), &v) : -EINVAL;

	if (r < 0) {
		*why = eq ? luks_volume_why(r) : "UUID=NAME expected";
	} else if (!dm_name_valid(eq + 1)) {
		*why = "not a device-mapper name: " DM_NAME_RULE;
		r = -EINVAL;
	} else {
		r = cmdline_store(o, eq + 1, &v->name);
		v->listed = true;
	}
	return r;
}

/* rd.luks.options= and rd.luks.key= apply to one volume when they start with its UUID and
 * '=', else to all. The part after the UUID in *rest. */
static const char **luks_field(struct options *o, const char *value, bool key, const char **rest)
{
	const char *eq = strchr(value, '=');
	struct luks_volume *v = NULL;

	*rest = value;
	if (eq && luks_volume(o, value, (size_t)(eq - value), &v) == 0) {
		*rest = eq + 1;
		return key ? &v->key : &v->options;
	}
	return key ? &o->luks.key : &o->luks.options;
}

int cmdline_set_luks_options(struct options *o, const char *value, const char **why)
{
	const char *rest;
	const char **field = luks_field(o, value, false, &rest);

	(void)why;
	return cmdline_store_or_reset(o, rest, field);
}

/* A malformed key spec is left out: the passphrase prompt still opens the volume. */
int cmdline_set_luks_key(struct options *o, const char *value, const char **why)
{
	const char *rest;
	const char **field = luks_field(o, value, true, &rest);
	int r = 0;

	if (rest[0] && rest[0] != '/') {
		*why = "not a key file: an absolute path, with :DEVICE when it is on a device";
		r = -EINVAL;
	} else {
		r = cmdline_store_or_reset(o, rest, field);
	}
	return r;
}
