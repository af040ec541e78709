/* `earlymount initramfs --host-only`: the decision, chain records in, module names out. The
 * rules follow the kernel's own: a bound driver's module by name, its device's modalias
 * through the target kernel's alias index (the host may have built in what the image's
 * kernel has as a module), a filesystem by its "fs-TYPE" alias, as request_module asks. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hostonly.h"
#include "lvm_names.h"
#include "md_rules.h"
#include "util.h"
#include "uuid.h"

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
enum dm_need { NEED_NONE, NEED_LUKS, NEED_VERITY, NEED_LVM };

static const struct dm_kind {
	const char *uuid_prefix;
	const char *module;  /* NULL: a stack earlymount does not assemble */
	enum dm_need need;   /* what the image needs besides the module */
	const char *what;    /* for messages */
} dm_kinds[] = {
	{ "CRYPT-VERITY-", "dm_verity", NEED_VERITY, "dm-verity" },
	{ "CRYPT-LUKS", "dm_crypt", NEED_LUKS, "LUKS" },
	{ "CRYPT-PLAIN-", "dm_crypt", NEED_LUKS, "plain dm-crypt" },
	{ "LVM-", "dm_mod", NEED_LVM, "LVM" },
	{ "mpath-", NULL, NEED_NONE, "multipath (dm-multipath)" },
	{ "CRYPT-INTEGRITY-", NULL, NEED_NONE, "dm-integrity" },
	{ "part", NULL, NEED_NONE, "kpartx partitions" },
};

/* The hidden devices lvm2 stacks under a logical volume that is not linear or striped, by
 * what their dm names hold ("vg0-pool-tpool", "vg0-root_rimage_0"): targets and tools (dm-thin-pool
 * and thin_check, dm-cache, dm-raid, dm-mirror, dm-snapshot) an image of earlymount's lacks.
 * lvm2 reserves the "_" parts in LV names; a "-" part is a layer's suffix after VG-LV. */
static const struct lvm_layer {
	const char *name_part;
	const char *what;
} lvm_layers[] = {
	{ "-tpool", "an LVM thin pool" },   { "_tdata", "an LVM thin pool" },
	{ "_tmeta", "an LVM thin pool" },   { "_rimage_", "LVM RAID" },
	{ "_rmeta_", "LVM RAID" },          { "_mimage_", "an LVM mirror" },
	{ "_mlog", "an LVM mirror" },       { "_corig", "an LVM cache volume" },
	{ "_cdata", "an LVM cache volume" }, { "_cmeta", "an LVM cache volume" },
	{ "_vorigin", "an LVM VDO volume" }, { "_vdata", "an LVM VDO volume" },
	{ "-real", "an LVM snapshot" },     { "-cow", "an LVM snapshot" },
};

static bool lvm_layer_named(const char *dm_name, const char *part)
{
	char vg[LVM_NAME_MAX], lv[LVM_NAME_MAX];
	size_t n = strlen(dm_name), k = strlen(part);

	if (part[0] == '_')
		return strstr(dm_name, part) != NULL;
	/* VG-LV-LAYER: not a visible LV's name */
	return n > k && streq(dm_name + n - k, part) &&
	       !lvm_split_dm_name(dm_name, vg, sizeof(vg), lv, sizeof(lv));
}

/* Filesystems whose root needs a network, or a module and tools earlymount does not run. */
static const struct unsupported_fs {
	const char *fstype;
	const char *what;
} unsupported_filesystems[] = {
	{ "cifs", "SMB (cifs)" },
	{ "smb3", "SMB (smb3)" },  { "zfs", "ZFS" },        { "ceph", "CephFS" },
	{ "glusterfs", "GlusterFS" }, { "fuse.sshfs", "sshfs" },
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

static const char *device_name(const struct hostonly_device *d)
{
	return strrchr(d->path, '/') ? strrchr(d->path, '/') + 1 : d->path;
}

static int unsupported(const struct hostonly_mount *m, const struct hostonly_device *d,
		       const char *what, struct hostonly_choice *c)
{
	if (!c->unsupported[0])
		snprintf(c->unsupported, sizeof(c->unsupported), "%s is on %s (%s)", m->where, what,
			 device_name(d));
	return -EOPNOTSUPP;
}

/* A dm-crypt device: its name, and its header's UUID from cryptsetup's dm UUID
 * ("CRYPT-LUKS2-<32 hex digits>-NAME"), kept once. */
static void add_crypt(const struct hostonly_mount *m, const struct hostonly_device *d,
		      struct hostonly_choice *c)
{
	const char *luks = startswith(d->dm_uuid, "CRYPT-LUKS");
	struct hostonly_crypt *k;
	const char *hex;

	for (size_t i = 0; i < c->n_crypt; i++)
		if (streq(c->crypt[i].name, d->dm_name))
			return;
	if (c->n_crypt == HOSTONLY_MAX_CRYPT || strlen(d->dm_name) >= sizeof(k->name))
		return;
	k = &c->crypt[c->n_crypt++];
	memset(k, 0, sizeof(*k));
	COPY_STR(k->name, d->dm_name);
	COPY_STR(k->where, m->where);
	hex = luks ? strchr(luks, '-') : NULL;
	if (hex && strlen(hex + 1) > 32 && hex[33] == '-') {
		char digits[33];
		uint8_t id[16];

		memcpy(digits, hex + 1, 32);
		digits[32] = '\0';
		if (id128_parse(digits, id) == 0)
			uuid_format(id, k->uuid);
	}
}

static int add_dm(const struct hostonly_mount *m, const struct hostonly_device *d,
		  struct hostonly_choice *c)
{
	const struct dm_kind *kind = NULL;
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(dm_kinds) && !kind; i++)
		if (startswith(d->dm_uuid, dm_kinds[i].uuid_prefix))
			kind = &dm_kinds[i];
	if (!kind) {
		r = unsupported(m, d, "a device-mapper device earlymount does not know", c);
		goto out;
	}
	if (!kind->module) {
		r = unsupported(m, d, kind->what, c);
		goto out;
	}
	for (size_t i = 0; i < ARRAY_SIZE(lvm_layers) && kind->need == NEED_LVM; i++)
		if (lvm_layer_named(d->dm_name, lvm_layers[i].name_part)) {
			r = unsupported(m, d, lvm_layers[i].what, c);
			goto out;
		}
	r = add_name(c, kind->module);
	if (kind->need == NEED_LUKS)
		add_crypt(m, d, c);
	c->luks = c->luks || kind->need == NEED_LUKS;
	c->verity = c->verity || kind->need == NEED_VERITY;
	c->lvm = c->lvm || kind->need == NEED_LVM;
out:
	return r;
}

/* An md array: md_mod and its level's module, and mdadm in the image. Firmware RAID (IMSM,
 * DDF: external metadata that mdmon keeps) and md's multipath are not assembled. */
static int add_md(const struct hostonly_mount *m, const struct hostonly_device *d,
		  struct hostonly_choice *c)
{
	char what[96], alias[48];
	bool known = false;
	int r;

	for (size_t i = 0; i < md_levels_n && !known; i++)
		known = streq(d->md_level, md_levels[i]);
	if (startswith(d->md_metadata, "external:")) {
		snprintf(what, sizeof(what), "firmware RAID (md with %s metadata, kept by mdmon)",
			 d->md_metadata + strlen("external:"));
		r = unsupported(m, d, what, c);
	} else if (!known) {
		snprintf(what, sizeof(what), "md RAID of level %s", d->md_level);
		r = unsupported(m, d, what, c);
	} else {
		snprintf(alias, sizeof(alias), "md-%s", d->md_level);
		r = add_name(c, "md_mod");
		if (r == 0)
			r = add_name(c, alias);
		c->md = true;
	}
	return r;
}

/* An unbound device is not needed for the disk to work on this host: only bound ones count. */
static int add_device(const struct hostonly_mount *m, const struct hostonly_device *d,
		      struct hostonly_choice *c)
{
	int r = 0;

	if (strstr(d->path, "/session")) {
		r = unsupported(m, d, "iSCSI", c);
	} else if (startswith(device_name(d), "nbd")) {
		r = unsupported(m, d, "NBD (a network block device)", c);
	} else if (d->md_level[0]) {
		r = add_md(m, d, c);
	} else if (d->dm_uuid[0]) {
		r = add_dm(m, d, c);
	}
	if (r == 0 && d->module[0])
		r = add_name(c, d->module);
	if (r == 0 && d->driver[0] && d->modalias[0])
		r = add_name(c, d->modalias);
	return r;
}

/* An NFS mount: the network (--network: ipconfig, the drivers) and its version's module. */
static int choose_nfs(const struct hostonly_mount *m, struct hostonly_choice *choice)
{
	int r = hostonly_choose_fstype(m->fstype, choice);

	choice->network = true;
	if (r == 0)
		r = add_name(choice, streq(m->fstype, "nfs4") ? "nfsv4" : "nfsv3");
	/* "nfs" mounts of version 4 are common: both, as the boot's command line decides */
	if (r == 0)
		r = add_name(choice, "nfsv4");
	return r;
}

int hostonly_choose(const struct hostonly_mount *m, struct hostonly_choice *choice)
{
	int r = 0;

	if (streq(m->fstype, "nfs") || streq(m->fstype, "nfs4")) {
		r = choose_nfs(m, choice);
		goto out;
	}
	for (size_t i = 0; i < ARRAY_SIZE(unsupported_filesystems); i++)
		if (streq(m->fstype, unsupported_filesystems[i].fstype)) {
			snprintf(choice->unsupported, sizeof(choice->unsupported), "%s is on %s (%.200s)",
				 m->where, unsupported_filesystems[i].what, m->source);
			r = -EOPNOTSUPP;
			goto out;
		}
	if (!m->block) {
		r = -ENOTBLK;
		goto out;
	}
	for (size_t i = 0; i < m->n_devices && r == 0; i++)
		r = add_device(m, &m->devices[i], choice);
	if (r == 0)
		r = hostonly_choose_fstype(m->fstype, choice);
out:
	return r;
}

int hostonly_choose_fstype(const char *fstype, struct hostonly_choice *choice)
{
	char alias[72];
	int r = snprintf(alias, sizeof(alias), "fs-%s", fstype) < (int)sizeof(alias) ? 0 : -ENAMETOOLONG;

	if (r == 0)
		r = add_name(choice, alias);
	for (size_t i = 0; i < ARRAY_SIZE(fs_extras) && r == 0; i++)
		if (streq(fs_extras[i].fstype, fstype))
			r = add_name(choice, fs_extras[i].module);
	return r;
}

int hostonly_choose_efi(struct hostonly_choice *choice)
{
	return add_name(choice, "efivarfs");
}

int hostonly_choose_modalias(const char *modalias, struct hostonly_choice *choice)
{
	return add_name(choice, modalias);
}
