/* Host shares at boot: a virtio device of QEMU's virtio-9p or vhost-user-fs, bound to its
 * driver, and the tag the host gave it. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "share.h"
#include "sysfs.h"
#include "util.h"

#define TAG_MAX 256

static const char *const ninep_modules[] = { "9pnet_virtio", NULL };
static const char *const virtiofs_modules[] = { "virtiofs", NULL };

/* Where each kind's tags are: one directory entry a device, the tag in a file of it. */
static const struct share_kind {
	const char *fstype;
	const char *const *modules;
	const char *devices;  /* the driver's devices, under sysfs */
	const char *tags;     /* the directory of tag files under sysfs, or NULL */
	const char *tag_file; /* in each entry of tags (or of devices when tags is NULL) */
} share_kinds[] = {
	{ "9p", ninep_modules, "bus/virtio/drivers/9pnet_virtio", NULL, "mount_tag" },
	/* /sys/fs/virtiofs appeared after Linux 6.1 */
	{ "virtiofs", virtiofs_modules, "bus/virtio/drivers/virtiofs", "fs/virtiofs", "tag" },
};

static const struct share_kind *share_kind(const char *fstype)
{
	for (size_t i = 0; fstype && i < ARRAY_SIZE(share_kinds); i++)
		if (streq(share_kinds[i].fstype, fstype))
			return &share_kinds[i];
	return NULL;
}

const char *const *share_modules(const char *fstype)
{
	const struct share_kind *k = share_kind(fstype);

	return k ? k->modules : NULL;
}

/* What a scan of one kind found: its bound devices and the tags it could read. */
struct share_scan {
	unsigned devices;
	unsigned tags;
	bool found;          /* the tag asked for */
	bool tags_readable;  /* the kernel shows this kind's tags */
	char list[TAG_MAX * 2];
};

static void scan_dir(const char *dir, const char *tag_file, bool devices_only, const char *tag,
		     struct share_scan *s)
{
	char path[PATH_MAX];
	char text[TAG_MAX];
	struct dirent *e;
	DIR *d = opendir(dir);
	size_t used;

	if (!d)
		return;
	while ((e = readdir(d))) {
		/* a driver's directory holds its devices as virtioN links, and bind/unbind files */
		if (devices_only && strncmp(e->d_name, "virtio", 6) != 0)
			continue;
		if (e->d_name[0] == '.')
			continue;
		if (devices_only) {
			s->devices++;
			continue;
		}
		if (snprintf(path, sizeof(path), "%s/%s/%s", dir, e->d_name, tag_file) >=
			    (int)sizeof(path) ||
		    !sysfs_read_line_at(AT_FDCWD, path, text, sizeof(text)))
			continue;
		s->tags++;
		s->found = s->found || (tag && streq(text, tag));
		used = strlen(s->list);
		snprintf(s->list + used, sizeof(s->list) - used, "%s'%s'", used ? ", " : "", text);
	}
	closedir(d);
}

static void share_scan(const char *sysfs, const struct share_kind *k, const char *tag,
		       struct share_scan *s)
{
	char dir[PATH_MAX];
	DIR *d;

	memset(s, 0, sizeof(*s));
	snprintf(dir, sizeof(dir), "%s/%s", sysfs, k->devices);
	scan_dir(dir, NULL, true, NULL, s);
	s->tags_readable = !k->tags;
	if (k->tags) {
		snprintf(dir, sizeof(dir), "%s/%s", sysfs, k->tags);
		d = opendir(dir);
		s->tags_readable = d != NULL;
		if (d)
			closedir(d);
	} else {
		snprintf(dir, sizeof(dir), "%s/%s", sysfs, k->devices);
	}
	if (s->tags_readable)
		scan_dir(dir, k->tag_file, false, tag, s);
}

bool share_present(const char *sysfs, const char *fstype, const char *tag)
{
	const struct share_kind *k = share_kind(fstype);
	struct share_scan s;

	if (!k)
		return false;
	share_scan(sysfs, k, tag, &s);
	return s.tags_readable ? s.found : s.devices > 0;
}

void share_describe(const char *sysfs, const char *fstype, char *out, size_t size)
{
	const struct share_kind *k = share_kind(fstype);
	struct share_scan s;

	if (!k) {
		snprintf(out, size, "%s is not a share's filesystem", fstype ? fstype : "(none)");
		return;
	}
	share_scan(sysfs, k, NULL, &s);
	if (s.devices == 0)
		snprintf(out, size, "the machine has no %s share at all (no device bound to %s)",
			 fstype, strrchr(k->devices, '/') + 1);
	else if (s.tags_readable && s.tags)
		snprintf(out, size, "the %s shares there are tagged %s", fstype, s.list);
	else
		snprintf(out, size, "the machine has %u %s device%s, whose tag%s this kernel does not "
			 "show (it has no /sys/%s; newer kernels list the tags there)", s.devices, fstype,
			 s.devices == 1 ? "" : "s", s.devices == 1 ? "" : "s",
			 k->tags ? k->tags : k->devices);
}
