/* `earlymount initramfs --host-only`: the decision, chain records in, module names out. The
 * rules follow the kernel's own: a bound driver's module by name, its device's modalias
 * through the target kernel's alias index (the host may have built in what the image's
 * kernel has as a module), a filesystem by its "fs-TYPE" alias, as request_module asks. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hostonly.h"
#include "util.h"

/* What a filesystem needs at mount time besides its own module, that the kernel would load
 * through modprobe, which the initramfs lacks: vfat's codepage and its default iocharset
 * ("ascii" in Debian's kernels). The modules' own pre-softdeps (ext4: crc32c) are resolved
 * with their dependencies. */
static const struct fs_extra {
	const char *fstype;
	const char *module;
} fs_extras[] = {
	{ "vfat", "nls_cp437" },
	{ "vfat", "nls_ascii" },
	{ "vfat", "nls_iso8859_1" },
};

/* dm/uuid prefixes of the targets that need a module (cryptsetup's and earlymount's own) */
static const struct dm_kind {
	const char *uuid_prefix;
	const char *module;
} dm_kinds[] = {
	{ "CRYPT-VERITY-", "dm_verity" },
	{ "CRYPT-LUKS", "dm_crypt" },
	{ "CRYPT-PLAIN-", "dm_crypt" },
};

static int add_name(struct hostonly_choice *c, const char *name)
{
	int r = 0;

	for (size_t i = 0; i < c->n; i++)
		if (streq(c->names[i], name))
			goto out;
	if (c->n == ARRAY_SIZE(c->names)) {
		r = -ENOBUFS;
		goto out;
	}
	r = copy_str(c->names[c->n], sizeof(c->names[c->n]), name);
	if (r == 0)
		c->n++;
out:
	return r;
}

static int add_dm(const struct hostonly_device *d, struct hostonly_choice *c)
{
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(dm_kinds) && r == 0; i++) {
		if (!startswith(d->dm_uuid, dm_kinds[i].uuid_prefix))
			continue;
		r = add_name(c, dm_kinds[i].module);
		if (streq(dm_kinds[i].module, "dm_crypt"))
			c->luks = true;
		else
			c->verity = true;
	}
	return r;
}

/* An unbound device is not needed for the disk to work on this host: only bound ones count. */
static int add_device(const struct hostonly_device *d, struct hostonly_choice *c)
{
	int r = 0;

	if (d->dm_uuid[0])
		r = add_dm(d, c);
	if (r == 0 && d->module[0])
		r = add_name(c, d->module);
	if (r == 0 && d->driver[0] && d->modalias[0])
		r = add_name(c, d->modalias);
	return r;
}

int hostonly_choose(const struct hostonly_mount *m, struct hostonly_choice *choice)
{
	char alias[sizeof(m->fstype) + 3];
	int r = 0;

	if (!m->block) {
		r = -ENOTBLK;
		goto out;
	}
	for (size_t i = 0; i < m->n_devices && r == 0; i++)
		r = add_device(&m->devices[i], choice);
	snprintf(alias, sizeof(alias), "fs-%s", m->fstype);
	if (r == 0)
		r = add_name(choice, alias);
	for (size_t i = 0; i < ARRAY_SIZE(fs_extras) && r == 0; i++)
		if (streq(fs_extras[i].fstype, m->fstype))
			r = add_name(choice, fs_extras[i].module);
out:
	return r;
}

int hostonly_choose_efi(struct hostonly_choice *choice)
{
	return add_name(choice, "efivarfs");
}
