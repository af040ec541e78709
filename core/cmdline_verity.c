/* dm-verity on the command line: systemd.verity=, roothash= and usrhash=, and
 * systemd.verity_root_*= and systemd.verity_usr_*=. */
#include <errno.h>

#include "cmdline_keys.h"
#include "verity.h"

int cmdline_set_verity(struct options *o, const char *value, const char **why)
{
	return cmdline_set_bool(value, &o->verity, why);
}

/* A malformed hash or device is kept, and refused by the planner: a boot that asked for
 * verification must not go on without it, as it would if the key were left out. */
static int set_hash(struct options *o, const char *value, const char **field, const char **why)
{
	int r = cmdline_store_or_reset(o, value, field);

	if (r == 0 && value[0] && verity_hash_check(value) < 0) {
		*why = "not a root hash: 64 to 128 hex digits (sha256 gives 64), as veritysetup "
		       "format or systemd-repart print it";
		r = -EINVAL;
	}
	return r;
}

int cmdline_set_roothash(struct options *o, const char *value, const char **why)
{
	return set_hash(o, value, &o->verity_root.hash, why);
}

int cmdline_set_usrhash(struct options *o, const char *value, const char **why)
{
	return set_hash(o, value, &o->verity_usr.hash, why);
}

static int set_verity_device(struct options *o, const char *value, const char **field,
			     const char **why)
{
	int r = cmdline_store_or_reset(o, value, field);

	if (r == 0 && value[0] && !cmdline_is_device_spec(value)) {
		*why = "not a device; give a path such as /dev/vda2, or a UUID=, PARTUUID=, LABEL= "
		       "or PARTLABEL= tag";
		r = -EINVAL;
	}
	return r;
}

int cmdline_set_verity_root_data(struct options *o, const char *value, const char **why)
{
	return set_verity_device(o, value, &o->verity_root.data, why);
}

int cmdline_set_verity_root_hash(struct options *o, const char *value, const char **why)
{
	return set_verity_device(o, value, &o->verity_root.hash_device, why);
}

int cmdline_set_verity_root_options(struct options *o, const char *value, const char **why)
{
	return cmdline_store_or_reset(o, value, &o->verity_root.options);
}

int cmdline_set_verity_usr_data(struct options *o, const char *value, const char **why)
{
	return set_verity_device(o, value, &o->verity_usr.data, why);
}

int cmdline_set_verity_usr_hash(struct options *o, const char *value, const char **why)
{
	return set_verity_device(o, value, &o->verity_usr.hash_device, why);
}

int cmdline_set_verity_usr_options(struct options *o, const char *value, const char **why)
{
	return cmdline_store_or_reset(o, value, &o->verity_usr.options);
}
