/* Shares on the command line, the host's and the network's: dracut's prefixes (virtiofs:TAG,
 * virtfs:TAG, nfs:SOURCE, nfs4:SOURCE) and the fstypes a share is mounted with. */
#include <stddef.h>

#include "cmdline_keys.h"
#include "util.h"

/* dracut's forms (mkosi writes virtiofs: too); virtme-ng gives rootfstype= instead. */
static const struct {
	const char *prefix;
	enum share_fs fs;
} share_prefixes[] = {
	{ "virtiofs:", SHARE_VIRTIOFS },
	{ "virtfs:", SHARE_9P },
	{ "nfs:", SHARE_NFS },
	{ "nfs4:", SHARE_NFS4 },
};

static const struct {
	const char *fstype;
	enum share_fs fs;
} share_fstypes[] = {
	{ "virtiofs", SHARE_VIRTIOFS },
	{ "9p", SHARE_9P },
	{ "nfs", SHARE_NFS },
	{ "nfs4", SHARE_NFS4 },
};

/* The share a value names by dracut's prefixes (virtiofs:TAG, virtfs:TAG for 9p), its tag in
 * *tag; SHARE_NONE without a prefix. */
enum share_fs cmdline_share_prefix(const char *value, const char **tag)
{
	for (size_t i = 0; i < ARRAY_SIZE(share_prefixes); i++) {
		*tag = startswith(value, share_prefixes[i].prefix);
		if (*tag)
			return share_prefixes[i].fs;
	}
	return SHARE_NONE;
}

enum share_fs cmdline_share_from_fstype(const char *fstype)
{
	for (size_t i = 0; fstype && i < ARRAY_SIZE(share_fstypes); i++)
		if (streq(fstype, share_fstypes[i].fstype))
			return share_fstypes[i].fs;
	return SHARE_NONE;
}

const char *share_fstype(enum share_fs fs)
{
	for (size_t i = 0; i < ARRAY_SIZE(share_fstypes); i++)
		if (share_fstypes[i].fs == fs)
			return share_fstypes[i].fstype;
	return NULL;
}

bool share_is_nfs(enum share_fs fs)
{
	return fs == SHARE_NFS || fs == SHARE_NFS4;
}
