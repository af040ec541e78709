/* Device-mapper devices from plain ioctls: create, load one table, resume. The kernel's
 * dm-ioctl.h describes the buffer: a struct dm_ioctl, then the target specs with their
 * parameter strings, 8-byte aligned. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/dm-ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dm.h"
#include "dm_name.h"
#include "util.h"

#define DM_CONTROL DM_MAPPER_DIR "/control"

struct dm_request {
	struct dm_ioctl *io;
	size_t size;
};

static int dm_request_init(struct dm_request *req, const char *name, const char *uuid,
			   size_t extra)
{
	size_t size = sizeof(struct dm_ioctl) + ((extra + 7) & ~(size_t)7);
	int r = 0;

	req->io = calloc(1, size);
	req->size = size;
	if (!req->io)
		return -ENOMEM;
	req->io->version[0] = DM_VERSION_MAJOR;
	req->io->data_size = (__u32)size;
	req->io->data_start = sizeof(struct dm_ioctl);
	if (copy_str(req->io->name, sizeof(req->io->name), name) < 0 ||
	    (uuid && copy_str(req->io->uuid, sizeof(req->io->uuid), uuid) < 0))
		r = -ENAMETOOLONG;
	if (r < 0) {
		free(req->io);
		req->io = NULL;
	}
	return r;
}

static int dm_call(int fd, unsigned long cmd, const char *name, const char *uuid,
		   struct dm_ioctl *out)
{
	struct dm_request req;
	int r = dm_request_init(&req, name, uuid, 0);

	if (r < 0)
		return r;
	if (ioctl(fd, cmd, req.io) < 0)
		r = -errno;
	else if (out)
		*out = *req.io;
	free(req.io);
	return r;
}

static int dm_load(int fd, const char *name, const struct dm_target *t, bool read_only)
{
	size_t params_len = strlen(t->params) + 1;
	struct dm_target_spec *spec;
	struct dm_request req;
	int r = dm_request_init(&req, name, NULL, sizeof(*spec) + params_len);

	if (r < 0)
		return r;
	req.io->target_count = 1;
	req.io->flags = read_only ? DM_READONLY_FLAG : 0;
	spec = (struct dm_target_spec *)((char *)req.io + req.io->data_start);
	spec->sector_start = 0;
	spec->length = t->sectors;
	if (copy_str(spec->target_type, sizeof(spec->target_type), t->type) < 0)
		r = -ENAMETOOLONG;
	else
		memcpy(spec + 1, t->params, params_len);
	if (r == 0 && ioctl(fd, DM_TABLE_LOAD, req.io) < 0)
		r = -errno;
	free(req.io);
	return r;
}

/* What udev would make: /dev/mapper/NAME -> ../dm-MINOR, with the node made where devtmpfs
 * has not (yet) made it. */
static int dm_link(const char *name, dev_t dev)
{
	char node[64], link[PATH_MAX], target[64];
	struct stat st;
	int r = 0;

	snprintf(node, sizeof(node), "/dev/dm-%u", minor(dev));
	snprintf(target, sizeof(target), "../dm-%u", minor(dev));
	if (snprintf(link, sizeof(link), DM_MAPPER_DIR "/%s", name) >= (int)sizeof(link))
		return -ENAMETOOLONG;
	if (stat(node, &st) < 0 && mknod(node, S_IFBLK | 0600, dev) < 0 && errno != EEXIST)
		r = -errno;
	if (r == 0 && symlink(target, link) < 0)
		r = -errno;
	return r;
}

int dm_create(const char *name, const char *uuid, const struct dm_target *target,
	      bool read_only, dev_t *dev)
{
	struct dm_ioctl created;
	bool made = false;
	int fd = -1;
	/* the plan never names one; a name the link or the control node would clash with is
	 * refused before anything is made */
	int r = dm_name_valid(name) ? 0 : -EINVAL;

	if (r == 0) {
		fd = open(DM_CONTROL, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			r = errno == ENOENT ? -ENODEV : -errno;
	}
	if (r == 0) {
		r = dm_call(fd, DM_DEV_CREATE, name, uuid, &created);
		made = r == 0;
	}
	if (r == 0)
		r = dm_load(fd, name, target, read_only);
	/* DM_DEV_SUSPEND without DM_SUSPEND_FLAG resumes: the loaded table goes live. */
	if (r == 0)
		r = dm_call(fd, DM_DEV_SUSPEND, name, NULL, NULL);
	if (r == 0) {
		*dev = (dev_t)created.dev;
		r = dm_link(name, *dev);
	}
	if (r < 0 && made)
		dm_call(fd, DM_DEV_REMOVE, name, NULL, NULL);
	if (fd >= 0)
		close(fd);
	return r;
}

int dm_remove(const char *name)
{
	char link[PATH_MAX];
	int fd = open(DM_CONTROL, O_RDWR | O_CLOEXEC);
	int r = fd < 0 ? -errno : dm_call(fd, DM_DEV_REMOVE, name, NULL, NULL);

	if (fd >= 0)
		close(fd);
	/* a device still there keeps its link */
	if (r == 0 && snprintf(link, sizeof(link), DM_MAPPER_DIR "/%s", name) < (int)sizeof(link))
		unlink(link);
	return r;
}
