/* root= and mount.usr=, their fstypes, ro and rw, and init=: what is mounted as / and /usr, and
 * what runs there. */
#include <errno.h>

#include "cmdline_keys.h"
#include "util.h"

/* Network roots earlymount does not boot, by dracut's prefixes. */
static const struct {
	const char *prefix;
	const char *why;
} refused_roots[] = {
	{ "iscsi:", "an iSCSI root, which earlymount does not boot (dracut's iscsi module does)" },
	{ "nbd:", "an NBD root, which earlymount does not boot (dracut's nbd module does)" },
	{ "cifs:", "an SMB (cifs) root, which earlymount does not boot (dracut's cifs module does)" },
	{ "nvmf:", "an NVMe over Fabrics root, which earlymount does not boot" },
	{ "dhcp", "a root named by DHCP alone; give root=/dev/nfs with ip=dhcp for an NFS root" },
};

static int refuse_network_root(const char *value, const char **why)
{
	for (size_t i = 0; i < ARRAY_SIZE(refused_roots); i++)
		if (startswith(value, refused_roots[i].prefix)) {
			*why = refused_roots[i].why;
			return -EINVAL;
		}
	return 0;
}

/* An NFS share's tag is its source: checked here, read again by the planner. */
static int check_nfs_tag(enum share_fs fs, const char *tag, const char **why)
{
	struct nfs_source s = { .v4 = fs == SHARE_NFS4 };

	return streq(tag, NFS_ROOT_DEVICE) ? 0 : nfs_source_from_dracut(tag, &s, why);
}

/* root= and mount.usr=: a device spec, or a share's tag, by a prefix or because the fstype
 * key (applied before every other key) names a share. */
static int set_mount_source(struct options *o, const char *value, const char *fstype,
			    const char **field, enum share_fs *share, const char **why)
{
	const char *tag = NULL;
	enum share_fs fs = cmdline_share_prefix(value, &tag);
	int r = refuse_network_root(value, why);

	if (r < 0)
		return r;
	r = -EINVAL;
	if (fs == SHARE_NONE) {
		fs = cmdline_share_from_fstype(fstype);
		tag = fs != SHARE_NONE ? value : NULL;
	}
	if (fs != SHARE_NONE && !tag[0])
		*why = "nothing after the prefix; give virtiofs:TAG, virtfs:TAG or nfs:SERVER:/PATH";
	else if (share_is_nfs(fs) && check_nfs_tag(fs, tag, why) < 0)
		r = -EINVAL;
	else if (fs == SHARE_NONE && !cmdline_is_device_spec(value))
		*why = "not a device; give a path such as /dev/vda2, a UUID=, PARTUUID=, LABEL= or "
		       "PARTLABEL= tag, gpt-auto, a host share: virtiofs:TAG, virtfs:TAG, or TAG "
		       "with the fstype virtiofs or 9p, or an NFS export: nfs:SERVER:/PATH, /dev/nfs";
	else
		r = cmdline_store(o, tag ? tag : value, field);
	if (r == 0)
		*share = fs;
	return r;
}

int cmdline_set_root(struct options *o, const char *value, const char **why)
{
	int r = 0;

	if (value[0] == '\0' || streq(value, "gpt-auto")) {
		o->root_kind = ROOT_DISCOVER;
		o->root = NULL;
		o->root_share = SHARE_NONE;
	} else if (streq(value, NFS_ROOT_DEVICE)) {
		/* the kernel's form: nfsroot= or DHCP's root-path name the export */
		r = cmdline_store(o, value, &o->root);
		o->root_kind = ROOT_SHARE;
		o->root_share = cmdline_share_from_fstype(o->rootfstype) == SHARE_NFS4 ? SHARE_NFS4 : SHARE_NFS;
	} else if (streq(value, "tmpfs")) {
		o->root_kind = ROOT_TMPFS;
		o->root = NULL;
		o->root_share = SHARE_NONE;
	} else {
		r = set_mount_source(o, value, o->rootfstype, &o->root, &o->root_share, why);
		if (r == 0)
			o->root_kind = o->root_share != SHARE_NONE ? ROOT_SHARE : ROOT_DEVICE;
	}
	return r;
}

int cmdline_set_rootfstype(struct options *o, const char *value, const char **why)
{
	return cmdline_store_or_reset(o, value, &o->rootfstype);
}

int cmdline_set_ro(struct options *o, const char *value, const char **why)
{
	o->rw = 0;
	return 0;
}

int cmdline_set_rw(struct options *o, const char *value, const char **why)
{
	o->rw = 1;
	return 0;
}

int cmdline_set_usr(struct options *o, const char *value, const char **why)
{
	int r = 0;

	/* gpt-auto asks for discovery, as it does for root=. */
	if (value[0] == '\0' || streq(value, "gpt-auto")) {
		o->usr = NULL;
		o->usr_share = SHARE_NONE;
	} else {
		r = set_mount_source(o, value, o->usrfstype, &o->usr, &o->usr_share, why);
	}
	return r;
}

int cmdline_set_usrfstype(struct options *o, const char *value, const char **why)
{
	return cmdline_store_or_reset(o, value, &o->usrfstype);
}

int cmdline_set_init(struct options *o, const char *value, const char **why)
{
	if (value[0] != '\0' && value[0] != '/') {
		*why = "not an absolute path; name the program in the new root, e.g. init=/sbin/init";
		return -EINVAL;
	}
	return cmdline_store_or_reset(o, value, &o->init);
}
